"""Publishing: the build file becomes the serving file readers open, with its Parquet export and report, as
one set recorded in `published.json`."""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from assets.core.faults import checkpoint
from assets.core.sqltext import qualified, sql_path_literal, sql_string_literal
from assets.inputs.files import sha256_file
from assets.warehouse.layout import WarehouseLayout
from assets.warehouse.lock import WarehouseProblem, cannot_write
from assets.warehouse.parquet import fsync_dir, prepare_export, switch_current

# Files written in this storage format open in every DuckDB 1.x client (BI drivers pin duckdb<2).
SERVING_STORAGE_VERSION = "v1.0.0"


ReportWriter = Callable[[Path, Path, Path], int]  # (serving file to read, output, the name it is published as)


def publish_serving(
    build_path: Path, layout: WarehouseLayout, write_report: ReportWriter
) -> tuple[int, dict, PublishRecord]:
    """Publish the build file as one set: copy every schema, table and view into a fresh file beside the
    serving file (read-only to everyone: mode 0444), export that copy to Parquet (a new folder, not yet
    current) and write the report from it (`report.html.next`), then swap the three in one right after the
    other and record the set (`published.json`: the run fingerprint and each member's checksum), the record
    last. A run is "nothing changed" only when the record and all three members agree
    (`published_fingerprint`), so a run interrupted anywhere in the swap is completed by the next one.

    A reader holding the old file keeps reading its snapshot. A failure or a kill before the first rename
    leaves the published set exactly as it was: a failure (a full disk) removes the half-written copies at once,
    a kill leaves them for the next run to remove (`remove_leftovers`). Returns the number of tables, the
    export's manifest and the record."""
    serving_path = layout.serving_path
    staging = staging_path(serving_path)
    report_next = _next(layout.report_path)
    remove_leftovers(serving_path, layout.report_path)
    try:
        conn = duckdb.connect()
        try:
            conn.execute(f"ATTACH {sql_path_literal(build_path)} AS build (READ_ONLY)")
            conn.execute(
                f"ATTACH {sql_path_literal(staging)} AS serving "
                f"(STORAGE_VERSION {sql_string_literal(SERVING_STORAGE_VERSION)})"
            )
            conn.execute("COPY FROM DATABASE build TO serving")
            [(tables,)] = conn.execute(
                "SELECT count(*) FROM duckdb_tables() WHERE database_name = 'serving'"
            ).fetchall()
            conn.execute("DETACH serving")
            conn.execute("DETACH build")
        finally:
            conn.close()
        with open(staging, "rb") as handle:
            os.fsync(handle.fileno())
        os.chmod(staging, SERVING_MODE)
        checkpoint("publish.copied", staging)
        manifest = prepare_export(staging, layout.parquet_dir, serving_name=serving_path)
        write_report(staging, report_next, serving_path)
        record = PublishRecord(
            fingerprint=_fingerprint_in(staging),
            serving_sha256=sha256_file(staging),
            export_id=manifest["export_id"],
            report_sha256=sha256_file(report_next),
            published_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        )
        checkpoint("publish.exported", staging)
    except (OSError, duckdb.IOException) as exc:  # a full disk, most often: the half-written copies go at once
        remove_leftovers(serving_path, layout.report_path)
        if isinstance(exc, OSError):
            raise WarehouseProblem(cannot_write(Path(exc.filename or staging), exc)) from exc
        raise WarehouseProblem(f"{staging}: cannot be written ({exc}); free some space, then run again") from exc
    except BaseException:
        remove_leftovers(serving_path, layout.report_path)
        raise
    os.replace(staging, serving_path)
    switch_current(layout.parquet_dir, manifest["export_id"])  # right after the swap: the file just published
    checkpoint("publish.swapped")
    os.replace(report_next, layout.report_path)
    write_record(layout, record)
    fsync_dir(serving_path.parent)
    return tables, manifest, record


# The serving file is written by the publish step only: read-only to everyone else (a run also checks its
# checksum against the publish record, which holds for users whom file modes do not stop, such as root).
SERVING_MODE = 0o444
PUBLISH_RECORD = "published.json"


@dataclass(frozen=True)
class PublishRecord:
    """What the last complete publish put in place: its run fingerprint and each member's checksum."""

    fingerprint: str | None
    serving_sha256: str
    export_id: str
    report_sha256: str
    published_at: str


def _next(path: Path) -> Path:
    return path.with_name(path.name + ".next")


def _fingerprint_in(serving: Path) -> str | None:
    with duckdb.connect(str(serving), read_only=True) as conn:
        row = conn.execute("SELECT fingerprint FROM audit.run_fingerprint").fetchone()
    return row[0] if row else None


def write_record(layout: WarehouseLayout, record: PublishRecord) -> None:
    """The publish record, replaced atomically (the last step of a publish)."""
    target = layout.dir / PUBLISH_RECORD
    staging = target.with_name(f".{PUBLISH_RECORD}.{os.getpid()}.tmp")
    staging.write_text(json.dumps(dataclasses.asdict(record), indent=2) + "\n", encoding="utf-8")
    with open(staging, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(staging, target)


def read_record(layout: WarehouseLayout) -> PublishRecord | None:
    try:
        return PublishRecord(**json.loads((layout.dir / PUBLISH_RECORD).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def _current_export(layout: WarehouseLayout) -> str | None:
    try:
        return json.loads((layout.parquet_current / "manifest.json").read_text(encoding="utf-8"))["export_id"]
    except (OSError, ValueError, KeyError):
        return None


def stale_members(layout: WarehouseLayout, record: PublishRecord | None = None) -> list[str]:
    """Which members of the published set do not match the last publish record (`record`, read when not given;
    empty: the set is whole): a publish interrupted in its swap, a report or serving file altered or removed since."""
    record = record or read_record(layout)
    if record is None:
        return ["publish record"]
    stale = []
    if not layout.serving_path.is_file() or sha256_file(layout.serving_path) != record.serving_sha256:
        stale.append("serving file")
    if _current_export(layout) != record.export_id:
        stale.append("Parquet export")
    if not layout.report_path.is_file() or sha256_file(layout.report_path) != record.report_sha256:
        stale.append("report")
    return stale


def damaged_serving(layout: WarehouseLayout) -> str | None:
    """Why the serving file is damaged (None when it is not, or not there): DuckDB cannot open it and it is not
    the file the last publish recorded (so not one a writer merely holds: that one matches its record). The next
    publish replaces it; the checks that compare with it have nothing to compare with."""
    path = layout.serving_path
    if not path.is_file():
        return None
    try:
        duckdb.connect(str(path), read_only=True).close()
        return None
    except duckdb.Error as exc:
        problem = str(exc).splitlines()[0]
    record = read_record(layout)
    if record is not None and sha256_file(path) == record.serving_sha256:
        return None
    return f"{path} cannot be opened ({problem}) and is not the file the last publish recorded"


def published_state(layout: WarehouseLayout) -> str:
    """What is published, in words, for the messages after a failure or an interrupt."""
    record = read_record(layout)
    stale = stale_members(layout, record)
    if record is None:
        return "nothing is recorded as published yet (no complete publish); the next run publishes"
    if not stale:
        return (
            f"the last complete publish ({record.published_at}) is in place: its serving file, Parquet export "
            "and report are unchanged"
        )
    return (
        f"the {', '.join(stale)} no longer match the last complete publish ({record.published_at}): interrupted "
        "mid-publish or altered since; the next run publishes the set again"
    )


def pipeline_member(layout: WarehouseLayout, path: Path) -> str | None:
    """What `path` is in the warehouse folder when it is anything but the report (None: outside the folder, or the
    report itself): the serving file, the publish record, the Parquet export, the stored runs and records, the
    build file, the lock, or another file the pipeline may write there. Links are followed: a link to a member
    is that member."""
    folder = layout.dir.resolve()
    target = path.resolve()
    if target == layout.report_path.resolve() or not target.is_relative_to(folder):
        return None
    named = {
        layout.serving_path.name: "the serving file",
        PUBLISH_RECORD: "the publish record",
        layout.parquet_dir.name: "the Parquet export",
        layout.records_dir.name: "the records the warehouse owns",
        layout.runs_dir.name: "the stored run partitions",
        layout.fits_dir.name: "the stored engine-model fits",
        layout.plans_dir.name: "the measurement plans",
        layout.build_path.name: "the build file",
        layout.lock_path.name: "the warehouse's lock",
    }
    parts = target.relative_to(folder).parts
    if not parts:
        return "the warehouse folder itself"
    first = parts[0]
    for name, what in named.items():
        if first == name or first.startswith(name + ".") or first.startswith("." + name):
            return what
    return "a file in the warehouse folder (the pipeline's: the published set, its stored runs and their leftovers)"


def staging_path(serving_path: Path) -> Path:
    """Where the next serving file is written before it is swapped in."""
    return serving_path.with_name(serving_path.name + ".next")


def remove_leftovers(serving_path: Path, report_path: Path | None = None) -> list[Path]:
    """Remove what a failed or killed publish left beside the serving file (the next file and its WAL, the
    next report); the paths removed."""
    staging = staging_path(serving_path)
    removed = []
    nexts = [staging, staging.with_name(staging.name + ".wal")] + ([] if report_path is None else [_next(report_path)])
    for leftover in nexts:
        try:
            leftover.unlink()
            removed.append(leftover)
        except FileNotFoundError:
            continue
    return removed


def export_matches(serving_path: Path, manifest: dict) -> bool:
    """True when an export's manifest lists exactly the serving file's tables and analyst views, each
    with the serving file's row count."""
    conn = duckdb.connect(str(serving_path), read_only=True)
    try:
        relations = dict(
            conn.execute(
                "SELECT schema_name || '.' || table_name, 'table' FROM duckdb_tables() UNION ALL "
                "SELECT schema_name || '.' || view_name, 'view' FROM duckdb_views() WHERE schema_name = 'analytics'"
            ).fetchall()
        )
        if relations != {t["name"]: t["kind"] for t in manifest["tables"]}:
            return False
        return all(
            conn.execute(f"SELECT count(*) FROM {qualified(t['name'])}").fetchall() == [(t["rows"],)]
            for t in manifest["tables"]
        )
    finally:
        conn.close()
