"""Dump folders into runs: `run.yaml` sidecars (`sidecar.py`), every file read and recognised (`collect.py`,
through the registry of dump formats), measurements placed in load levels and repeats (`assemble.py`), and the
observed tables written from them (`store.py`).

A dumps folder is any tree. A `run.yaml` describes the runs below it (keys of deeper files win
over keys of shallower ones). Everything below one (deepest) run.yaml that one tool wrote is one
run of one config; files that measure the same load level (same offered rate, or same
concurrency) are repeats of that level. Files are recognised by content, never by name, by the
readers of `assets.formats.dumps`, tried in the order of its registry. A file whose
content was already read (same sha256, e.g. copied twice) is read once."""
