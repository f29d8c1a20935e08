"""Per-request records at any size: one DuckDB pass, order-statistic intervals, the view over
the files read in place, and the shape of a traffic log."""
