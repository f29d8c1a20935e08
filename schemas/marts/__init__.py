"""pandera models of the tables of warehouse schema `marts`, one module per table."""
