"""pandera polars models, one module per warehouse table, named after the table."""
