"""Readings the pipeline itself never does, for looking at records in tests: a RequestScan's rows as a frame,
a final-report list as canonical rows, the unit rule of an MLPerf result."""

import shutil
import tempfile
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from assets.core import mlperf_names
from assets.core.records import Reject
from assets.formats.dumps.exchange import RequestScan
from assets.formats.dumps.scan_sql import checked_scan_sql
from assets.formats.mlperf.rows import Origin, records_to_rows
from assets.formats.mlperf.summary_json import SUMMARY_RESULTS_JSON
from assets.inputs.files import Fetched
from assets.request_records.request_sql import TPOT_SQL, repointed


def scan_frame(requests: RequestScan) -> pl.DataFrame:
    """A RequestScan's rows as a frame (start_offset_s from the file's first send), for looking at a
    small file's records (tests, a quick check); the pipeline never loads records this way."""
    conn = duckdb.connect()
    folder = Path(tempfile.mkdtemp(prefix="benchbill-scan-"))
    try:
        if requests.data is not None:
            copy = folder / f"records{Path(requests.path).suffix}"
            copy.write_bytes(requests.data)
            requests = repointed(requests, copy)
        return conn.execute(
            f"SELECT *, start_s - min(start_s) OVER () AS start_offset_s, {TPOT_SQL} AS tpot_ms "
            f"FROM ({checked_scan_sql(requests, requests.select)}) ORDER BY ordinal"
        ).pl()
    finally:
        conn.close()
        shutil.rmtree(folder, ignore_errors=True)


def parse_summary_results(records: list[Any], fetched: Fetched) -> tuple[list[dict[str, Any]], list[Reject]]:
    """Canonical rows and rejects for every record of a `summary_results.json` list."""
    return records_to_rows(
        [(f"record {i}", r) for i, r in enumerate(records)], Origin.of(fetched, SUMMARY_RESULTS_JSON)
    )


def mlperf_unit(mlperf_model: str, scenario: str, round_name: str) -> tuple[str, str]:
    """The unit the number really has for (round, model, scenario), and the rule's note."""
    rule = mlperf_names.mlperf_rule(mlperf_model, scenario, round_name)
    return rule.unit, rule.note
