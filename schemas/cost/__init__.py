"""pandera models of the tables of warehouse schema `cost`, one module per table."""
