"""MLPerf's own accuracy bounds as a table (benchmark.mlperf_accuracy_targets), for SQL to set beside each
result's published accuracy (sql/benchmark/mlperf_accuracy.sql)."""

from __future__ import annotations

import duckdb
import polars as pl

from assets.core import mlperf_names
from assets.core.paths import REFERENCE_DIR
from assets.core.records import SourceFile
from assets.inputs.files import sha256_file
from assets.warehouse.write import WriteReport, write_table
from schemas.benchmark.mlperf_accuracy_targets import MlperfAccuracyTargets

TARGETS_CSV = REFERENCE_DIR / "mlperf_accuracy_targets.csv"


def accuracy_target_rows() -> list[dict]:
    """One row per benchmark x metric x bound, with the rounds it holds for (as sortable numbers)."""
    return [
        {
            "benchmark": t.benchmark,
            "metric": t.metric,
            "bound": t.bound,
            "reference_value": t.reference_value,
            "target_fraction": t.target_fraction,
            "target_value": t.target_value,
            "first_round": t.first_round,
            "last_round": t.last_round,
            "first_round_order": mlperf_names.round_sort_key(t.first_round),
            "last_round_order": mlperf_names.round_sort_key(t.last_round),
            "note": t.note or None,
            "evidence": "benchmark",
        }
        for t in mlperf_names.mlperf_accuracy_targets()
    ]


def write_accuracy_targets(conn: duckdb.DuckDBPyConnection) -> WriteReport:
    rows = accuracy_target_rows()
    file = SourceFile(
        str(TARGETS_CSV),
        sha256_file(TARGETS_CSV),
        TARGETS_CSV.stat().st_size,
        "mlperf accuracy targets",
        "read",
        len(rows),
    )
    return write_table(
        conn,
        "benchmark.mlperf_accuracy_targets",
        pl.DataFrame(rows, infer_schema_length=None),
        MlperfAccuracyTargets,
        [],
        [file],
    )
