"""Dump folders: `run.yaml` sidecars, the one registry of dump formats, and assembling runs.

A dumps folder is any tree. A `run.yaml` describes the runs below it (keys of deeper files win
over keys of shallower ones). Everything below one (deepest) run.yaml that one tool wrote is one
run of one config; files that measure the same load level (same offered rate, or same
concurrency) are repeats of that level. Files are recognised by content, never by name, by the
format modules in `assets.dump_formats`, tried in the order of `FORMAT_MODULES`. A file whose
content was already read (same sha256, e.g. copied twice) is read once."""
