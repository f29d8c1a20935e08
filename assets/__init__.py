"""benchbill's Dagster assets, one module per evidence class, with pure parsing helpers beside them."""
