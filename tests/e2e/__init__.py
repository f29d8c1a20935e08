"""The e2e tier (see tests/conftest.py)."""
