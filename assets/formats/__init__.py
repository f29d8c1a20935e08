"""Readers of published file formats, one module per format, each recognising its files by
content: MLPerf Inference results (`mlperf/`) and benchmark tools' dumps (`dumps/`). Every reader follows
the contract in `base.py` and is registered in its family's `registry.py`."""
