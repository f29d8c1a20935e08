"""The tables and views of a serving file that the report reads, and the check that a serving file has them all.

A serving file published by an earlier benchbill may lack a view this version reads (the calibrated cost
sensitivity, say): the report then says which, and how to get a serving file it can read, instead of failing on a
query deep in the report.
"""

from __future__ import annotations

import duckdb

REPORT_TABLES = (
    "analytics.capacity_plan",
    "analytics.cost_sensitivity",
    "analytics.delivered_at_slo",
    "analytics.load_points",
    "analytics.measure_next",
    "analytics.mlperf_reference",
    "analytics.mlperf_results",
    "analytics.profiles",
    "analytics.quarantine",
    "analytics.runs",
    "analytics.shortlist",
    "analytics.shortlist_sources",
    "analytics.slo_bounds",
    "analytics.source_files",
    "benchmark.mlperf_profile_reference",
    "requirement.traffic_rate",
)


class ServingFileTooOld(ValueError):
    """The serving file lacks tables or views the report reads."""


def present_tables(conn: duckdb.DuckDBPyConnection) -> set[str]:
    """Every table and view (`schema.name`) the connected file holds."""
    return {
        f"{schema}.{name}"
        for schema, name in conn.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() "
            "UNION SELECT schema_name, view_name FROM duckdb_views()"
        ).fetchall()
    }


def missing_report_tables(conn: duckdb.DuckDBPyConnection) -> list[str]:
    """The tables and views of REPORT_TABLES the connected serving file does not hold."""
    present = present_tables(conn)
    return [t for t in REPORT_TABLES if t not in present]


def require_report_tables(conn: duckdb.DuckDBPyConnection, serving_path: str) -> None:
    """Raise ServingFileTooOld, naming what is missing, unless the serving file holds every table the report reads."""
    missing = missing_report_tables(conn)
    if missing:
        raise ServingFileTooOld(
            f"{serving_path} lacks {', '.join(missing)}, which this version's report reads: it was published by an "
            "earlier benchbill (or is not a benchbill serving file). Run `benchbill run` to publish it again with "
            "this version; the report published beside it is untouched"
        )
