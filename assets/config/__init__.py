"""The files an operator edits: the accelerator price table (CSV), the workload profiles (YAML)
and the MLPerf sources file (YAML), each read and checked with errors naming the file, row and key."""
