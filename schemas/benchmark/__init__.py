"""pandera models of the tables of warehouse schema `benchmark`, one module per table."""
