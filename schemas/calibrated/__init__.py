"""pandera models of the tables of warehouse schema `calibrated`, one module per table."""
