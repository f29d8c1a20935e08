"""pandera models of the tables of warehouse schema `observed`, one module per table."""
