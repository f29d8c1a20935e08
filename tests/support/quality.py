"""The quality gate on a small DuckDB: a batch's quality evidence, a profiles document and the configs each profile
is offered (profile, model_id, precision, precision_scheme), as the gate's tests build it."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl

from assets.config.profiles import parse_profiles, parse_quality_bounds, write_quality_bounds
from assets.core.records import SourceFile
from assets.runs.quality import write_quality
from assets.warehouse.sqlfiles import run_sql_file
from assets.warehouse.write import write_table
from schemas.marts.quality_gate import QualityGate
from schemas.requirement.profiles import Profiles


def quality_gate(warehouse: Path, batch, profiles: dict, offered: list[dict]) -> pl.DataFrame:
    """marts.quality_gate of `batch`'s evidence under `profiles`, for the configs `offered` (observed ones)."""
    conn = duckdb.connect(str(warehouse))
    write_quality(conn, batch.quality, batch.quality_rejects, batch.quality_files)
    rows, _bounds = parse_profiles(profiles, "profiles.yaml")
    write_table(conn, "requirement.profiles", pl.DataFrame(rows, infer_schema_length=None), Profiles)
    write_quality_bounds(
        conn, parse_quality_bounds(profiles, "profiles.yaml"), SourceFile("profiles.yaml", None, None, "yaml", "read")
    )
    schema = {"profile": pl.String, "model_id": pl.String, "precision": pl.String, "precision_scheme": pl.String}
    conn.register("offered", pl.DataFrame(offered, schema=schema))
    conn.execute("CREATE TABLE observed.delivered_at_slo AS SELECT * FROM offered")
    conn.execute("CREATE SCHEMA projected")
    conn.execute("CREATE TABLE projected.delivered_at_slo (profile VARCHAR, model_id VARCHAR, precision VARCHAR)")
    frame = run_sql_file(conn, "marts/quality_gate.sql")
    QualityGate.validate(frame)
    return frame
