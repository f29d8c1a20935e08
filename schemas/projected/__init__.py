"""pandera models of the tables of warehouse schema `projected`, one module per table."""
