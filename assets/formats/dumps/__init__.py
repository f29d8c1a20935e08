"""Benchmark dump formats: one pure module per tool, each recognising its files by content.

Every tool module is a reader (`assets.formats.base.Reader`): `FORMATS` (the names it recognises, as
written in `audit.source_files`), `SKIPPED` (formats recognised and not read, with the reason),
`recognise(dump) -> str | None` and `parse(dump, kind) -> Parsed`, plus `TOOL` and `READ_IN_PLACE`;
`registry.py` holds the one list that tries them in order. `exchange.py` holds what readers exchange,
`values.py` and `scan_sql.py` the checks of values (in Python and in SQL), `decode.py` the file as
readers see it, `bench_serving.py` the result layout vLLM's and SGLang's benchmarks share. A parser
turns a file into `Measurement`s: one load level
measured once (one repeat), with the tool's own aggregates and, where the dump has them,
per-request records: a polars frame with the columns of `REQUEST_COLUMNS` for the JSON formats
(whose files are small; checked value by value by `values.checked_column`), or, for the formats that hold
millions of requests (the generic CSV/Parquet, AIPerf's JSON lines), a `RequestScan`: the SQL with
which DuckDB reads the file in place, so a large log is never loaded into Python at all; its values
are checked by the same rules, row by row, in SQL (`scan_sql.checked_scan_sql`).

Our metric definitions (docs/design.md), whatever the tool: TTFT = request sent -> first output token;
E2E = request sent -> last token; TPOT = (E2E - TTFT) / (output tokens - 1), undefined (NULL) for
fewer than two output tokens; ITL = gap between consecutive tokens (all gaps pooled); all in ms.
A tool aggregate fills one of our columns only when the tool's definition is ours; everything the
tool reported is also kept, labelled with the tool's own definition, in `tool_metrics`."""
