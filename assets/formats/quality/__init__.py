"""Readers of task-quality evaluation results (lm-evaluation-harness JSON, the generic quality CSV), found in
the dump folders beside the load tests; `registry.py` lists them in the order they are tried."""
