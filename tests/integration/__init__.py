"""The integration tier (see tests/conftest.py)."""
