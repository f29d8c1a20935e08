"""Ingesting MLPerf rounds: reading files, folders and URLs once per run, merging every source
of one result, finding new rounds on GitHub, and recording each ingestion as a version of its round."""
