"""The warehouse: validating frames against their pandera models, writing tables with their
quarantine and file inventory, views, SQL files, publishing the serving file and its Parquet export,
the run fingerprint and the single-writer lock."""
