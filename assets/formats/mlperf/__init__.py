"""Readers of MLPerf Inference results as MLCommons publishes them, one module per form (round
tables, checker CSVs and JSON, workbooks, cm4mlperf rows, result pages, submission trees and their LoadGen
logs); `rows.record_to_row` turns every form's records into one canonical row."""
