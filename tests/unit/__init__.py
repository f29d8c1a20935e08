"""The unit tier (see tests/conftest.py)."""
