"""pandera models of the tables of warehouse schema `requirement`, one module per table."""
