"""pandera models of the tables of warehouse schema `audit`, one module per table."""
