"""Per-request records at any size: one DuckDB pass over every request source, no Python object per request.

Sources are the files DuckDB reads where they lie (`RequestScan`: the generic CSV/Parquet, AIPerf's
JSON lines) and the request frames the JSON formats give (registered through Arrow). One scan of
all of them:

- checks every value of the files read in place by the rules of `checked_column`
  (`assets.formats.dumps.scan_sql.checked_scan_sql`: not a number, not finite, not whole, implausible; a copy
  of an earlier row; a last row that may be cut short) and every row against `schemas.observed.requests` (the
  pandera model's checks, compiled to SQL by `assets.warehouse.validate.sql_checks`: pandera itself validates
  a sample of the published view, the full checks run here); a failing row is left out and
  quarantined with its reason;
- computes TPOT by our one definition (`assets.request_records.request_sql.TPOT_SQL`);
- aggregates the rows on two grouping sets at once (`sql/observed/request_pass/request_groups.sql`): per repeat
  (source and the file's own level values: counts, the measured window, token sums, the first
  arrivals, the repeat's own percentiles) and per load level (run, kind and nominal value: the
  percentiles pooled over repeats, with the brackets of the interval).

Once `assets.runs.assemble` has placed each group in its run's sweep (load level and repeat), the groups
give `observed.request_stats` (per repeat) and `observed.request_percentiles` (per load level,
pooled over repeats, with a 95% interval): see those SQL files for the methods. Records that have
no file to be read from later (the JSON formats' frames, files not on disk) are handed back to be
stored in the warehouse; the others are published as the view `observed.requests` over the files.

With a records folder (the warehouse's), each file read in place is first copied there as it is checked (one
Parquet file named by the file's content and the code, `assets.request_records.records_files`), and the pass aggregates
that copy: every source file is parsed once, and a file whose copy is already there (unchanged since a build) is
not parsed at all, nor searched again for copies of rows.

Each source's state is one `SourceState` (`assets.request_records.sources`), held in `states` by its key; a source
DuckDB cannot read is handled in one place (`_run_until_readable`). The statements are the files of
`sql/observed/request_pass/` (run by `_sql` and `_create`), over the temporary views of the SELECTs that
`assets.request_records.request_sql` assembles (`_view`)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import polars as pl

from assets.core.errors import IngestError
from assets.core.records import Reject
from assets.core.sqltext import sql_string_literal
from assets.formats.dumps.exchange import TEXT_COLUMNS, RequestScan
from assets.inputs.textinput import file_encoding_problem, json_lines_file_problem
from assets.request_records.order_stats import EXACT_UP_TO, PERCENTILE_PROBABILITIES, order_statistic_ranks
from assets.request_records.records_files import copy_checked, copy_sources
from assets.request_records.request_sql import (
    NO_PARTS,
    ROW_TYPES,
    level_columns,
    pass_sql,
    repointed,
    rows_sql,
    stored_select,
    text_part,
)
from assets.request_records.sources import Source, SourceState
from schemas.observed.request_texts import RequestTexts
from schemas.observed.requests import Requests

QUARANTINE_ROWS_PER_SOURCE = 1_000  # failing rows listed one by one per source; the rest counted
KEY_COLUMNS = ["source_key", "file_offered_rate_per_s", "file_concurrency"]


class RequestPass:
    """One DuckDB pass over the request sources of a dumps folder (an in-memory database that spills
    to a temporary folder if need be): every source is parsed once, by one aggregation; only the
    load levels of at most EXACT_UP_TO requests are read again, for their exact order statistics.
    Closed with `close`."""

    def __init__(self, store_texts: bool = False, records_dir: Path | None = None) -> None:
        self.store_texts = store_texts  # hold the prompt and response texts of frames (`texts`); off: never held
        self.records_dir = records_dir  # the warehouse's records: files read in place are copied there, then read
        self.folder = Path(tempfile.mkdtemp(prefix="benchbill-requests-"))
        self.conn = duckdb.connect()
        self.conn.execute(f"SET temp_directory = {sql_string_literal(str(self.folder / 'spill'))}")
        self.conn.execute("SET preserve_insertion_order = false")
        self.states: dict[str, SourceState] = {}  # by source key, in the order the sources were added
        self.groups: pl.DataFrame | None = None
        self.unreadable: dict[str, str] = {}

    def close(self) -> None:
        self.conn.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> RequestPass:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _read(self) -> Iterator[SourceState]:
        """The sources the pass reads (those DuckDB could not read left out), in the order they were added."""
        return (state for state in self.states.values() if state.readable)

    def _sql(self, name: str, params: dict[str, object] | None = None) -> duckdb.DuckDBPyConnection:
        """Run `sql/observed/request_pass/<name>.sql`, its values bound ($name)."""
        return self.conn.execute(pass_sql(name), params)

    def _create(self, name: str, what: str = "TABLE", params: dict[str, object] | None = None) -> None:
        """The temporary table (or view) `name`: the SELECT in `sql/observed/request_pass/<name>.sql`."""
        assert what in ("TABLE", "VIEW") and name.isidentifier()
        self.conn.execute(f"CREATE TEMP {what} {name} AS {pass_sql(name)}", params)

    def _view(self, name: str, select: str) -> None:
        """The temporary view `name` over an assembled SELECT (request_sql), for a file's statement to read."""
        assert name.isidentifier()
        self.conn.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS {select}")

    def add(self, source: Source) -> None:
        requests = source.requests
        file_levels = isinstance(requests, RequestScan) and bool(requests.level_columns)
        level = level_columns(source.run_id, source.run_kind, source.level_kind, source.level_nominal, file_levels)
        state = self.states[source.key] = SourceState(source, len(self.states), level)
        if isinstance(requests, pl.DataFrame):
            rows = requests.with_columns(
                pl.lit(state.id).alias("source_id"),
                (pl.col("request_index") + 1).alias("ordinal"),
                pl.coalesce("start_offset_s", "start_time_unix_s").alias("start_s"),
                pl.lit(None).alias("offered_rate_per_s"),
                pl.lit(None).alias("concurrency"),
                pl.lit(None).alias("problem"),
                pl.lit(None).alias("row_hash"),
            )
            state.frame = rows.select([pl.col(c).cast(t) for c, t in ROW_TYPES.items()])
            texts = [c for c in TEXT_COLUMNS if c in rows.columns]
            if texts and self.store_texts:
                state.texts = rows.select(
                    "source_id",
                    "ordinal",
                    *[
                        pl.col(c).cast(pl.String) if c in texts else pl.lit(None, pl.String).alias(c)
                        for c in TEXT_COLUMNS
                    ],
                )
            return
        if requests.data is not None:  # not on disk: read from a temporary copy
            copy = self.folder / f"source-{state.id}{Path(requests.path).suffix}"
            copy.write_bytes(requests.data)
            requests = repointed(requests, copy)
        state.scan = requests

    def run(self) -> pl.DataFrame:
        """Parse every source once (a file holding copies of rows twice); the groups (per source and load level)
        it holds. A file DuckDB cannot read
        with the types it inferred or was told is read again with every value as text (its values are then
        checked row by row); a CSV or Parquet file DuckDB cannot read at all is left out and listed in
        `unreadable` (key -> reason: not UTF-8 text, or DuckDB's reason), to be quarantined; JSON lines that
        are not JSON stop the run (IngestError naming the file and the line), as any file that looks like
        JSON and is not."""
        frames = [state.frame for state in self.states.values() if state.frame is not None]
        self.conn.register(
            "request_frames", (pl.concat(frames) if frames else pl.DataFrame(schema=ROW_TYPES)).to_arrow()
        )
        self.conn.register(
            "request_source_ids",
            pl.DataFrame(
                {"source_id": [state.id for state in self.states.values()], "source_key": list(self.states)},
                schema={"source_id": pl.Int64, "source_key": pl.String},
            ).to_arrow(),
        )
        if self.records_dir is not None:
            copy_sources(self.conn, self._read(), self.records_dir, self._write_records)
        self._run_until_readable(self._aggregate)
        # Files with fewer distinct row hashes than rows hold copies of rows (or, rarely, rows whose hashes collide):
        # read those again, finding the copies row by row (a window, only there). At most a round per source.
        while copied := self._copies_to_find():
            for state in copied:
                state.copies = True
            for state in copied:
                if state.owned is not None:
                    self._write_records(state, state.owned)
            self._run_until_readable(self._aggregate)
        # Records already in the warehouse were searched for copies when written: those holding some say so.
        holding = self._sources_with("copied")
        for state in self.states.values():
            state.copies = state.copies or (state.reused and state.key in holding)
        self.groups = self._sql("source_groups").pl()
        return self.groups

    def _aggregate(self) -> None:
        """request_rows (every source the pass reads, checked) and their groups, request_groups."""
        self._view("request_rows", rows_sql([state.part() for state in self._read()] or [NO_PARTS]))
        self.conn.execute(f"CREATE OR REPLACE TEMP TABLE request_groups AS {pass_sql('request_groups')}")

    def _copies_to_find(self) -> list[SourceState]:
        """The sources whose groups may hold copies of rows, not yet read with the window that finds them."""
        maybe = self._sources_with("maybe_copied")
        return [state for state in self._read() if not state.copies and state.key in maybe]

    def _sources_with(self, flag: str) -> set[str]:
        """The keys of the sources whose groups may hold copies of rows (`flag` maybe_copied) or hold some (copied)."""
        return set(self._sql("source_copies").pl().filter(pl.col(flag)).get_column("source_key").to_list())

    def _run_until_readable(self, attempt: Callable[[], None], key: str | None = None) -> bool:
        """Run `attempt` (a statement reading the sources; with `key`, that one source's records being written)
        until DuckDB reads it: when DuckDB cannot, the source at fault (`key`, else the one `_unreadable` names) is
        switched to the tolerant re-read (every value as text) or quarantined (left out, listed in `unreadable`;
        JSON lines stop the run), by `_cannot_read`, and the attempt is made again. Bounded by the number of
        sources: each is switched once and left out once. False when `key` was left out; a failure no single
        source explains raises IngestError."""
        for _ in range(2 * len(self.states) + 1):
            try:
                attempt()
                return True
            except duckdb.Error as exc:
                culprit, reason = (key, str(exc).splitlines()[0]) if key is not None else self._unreadable(exc)
                state = self.states.get(culprit) if culprit is not None else None
                if state is None or state.scan is None:
                    raise IngestError(f"reading per-request records failed: {reason}") from None
                if not self._cannot_read(state, reason) and key is not None:
                    return False
        raise AssertionError("a source was switched or left out more than once")  # pragma: no cover

    def _unreadable(self, exc: duckdb.Error) -> tuple[str | None, str]:
        """(key, DuckDB's reason) of the source the pass could not read (None: no single source)."""
        for state in self._read():
            try:
                self._view("probe_rows", rows_sql([state.part()]))
                self._sql("source_probe").fetchall()
            except duckdb.Error as own:
                return state.key, str(own).splitlines()[0]
        return None, str(exc).splitlines()[0]

    def _cannot_read(self, state: SourceState, reason: str) -> bool:
        """A file DuckDB could not read: True to try again with every value as text (its typed read failed);
        else it is left out and listed in `unreadable` (False), or, for JSON lines, the run stops (IngestError)."""
        scan = state.scan
        assert scan is not None
        if scan.tolerant_select and not state.tolerant:
            state.tolerant = True
            return True
        name = state.source.name
        if "read_ndjson" in scan.select:
            raise IngestError(
                json_lines_file_problem(Path(scan.path), name) or f"{name}: invalid JSON ({reason})"
            ) from None
        problem = file_encoding_problem(Path(scan.path)) if "read_csv" in scan.select else None
        self.unreadable[state.key] = problem or f"cannot read as CSV/Parquet: {reason}"
        state.readable = False
        return False

    def _write_records(self, state: SourceState, target: Path) -> bool:
        """The checked rows of one file written to `target`, in the file's order; False when the file cannot be
        read (`_run_until_readable`)."""
        self.conn.execute("SET preserve_insertion_order = true")
        try:
            return self._run_until_readable(lambda: copy_checked(self.conn, state, target), state.key)
        finally:
            self.conn.execute("SET preserve_insertion_order = false")

    def rejects(self) -> list[Reject]:
        """The rows that failed a check: the first QUARANTINE_ROWS_PER_SOURCE of each source one by one
        (location: the row as the file counts it, `line 6` of a CSV, `request 3` of a JSON format's
        records), then one line with the count."""
        if self.groups is None or not self.groups.get_column("rows_quarantined").sum():
            return []
        failing = set(self.groups.filter(pl.col("rows_quarantined") > 0).get_column("source_key").to_list())
        self._view(
            "explained_rows", rows_sql([state.part(explain=True) for state in self._read() if state.key in failing])
        )
        cursor = self._sql("rejects", {"listed": QUARANTINE_ROWS_PER_SOURCE})
        names = [column[0] for column in cursor.description][3:]
        out = []
        for key, ordinal, reasons, *values in cursor.fetchall():
            source = self.states[key].source
            out.append(Reject(source.name, source.row_name(ordinal), reasons, dict(zip(names, values))))
        totals = (
            self.groups.group_by("source_key")
            .agg(pl.col("rows_quarantined").sum())
            .filter(pl.col("rows_quarantined") > QUARANTINE_ROWS_PER_SOURCE)
        )
        for key, count in totals.iter_rows():
            out.append(
                Reject(
                    self.states[key].source.name,
                    "rows",
                    f"{count - QUARANTINE_ROWS_PER_SOURCE} more rows failed "
                    f"a value check or the checks of schema {Requests.__name__} (the first "
                    f"{QUARANTINE_ROWS_PER_SOURCE} are listed one by one)",
                )
            )
        return out

    def finish(self, keys: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
        """observed.request_stats and observed.request_percentiles, once `keys` (KEY_COLUMNS -> run_id,
        load_index, repeat_index) places every group in its run's sweep."""
        ids = pl.DataFrame(
            {"source_key": list(self.states), "source_id": [state.id for state in self.states.values()]},
            schema={"source_key": pl.String, "source_id": pl.Int64},
        )
        placed = keys.join(ids, on="source_key").select(
            *KEY_COLUMNS,
            "source_id",
            "run_id",
            "load_index",
            "repeat_index",
            "source",
            "first_ordinal",
            "first_start_s",
            "level_kind",
            "level_nominal",
        )
        self.conn.register("request_keys", placed.to_arrow())
        self._create("request_groups_keyed", "VIEW")
        stats = self._sql("request_stats").pl()
        self._read_small_levels()
        self._create("request_pooled")
        sizes = [n for (n,) in self._sql("pooled_sizes", {"exact_up_to": EXACT_UP_TO}).fetchall()]
        ranks = [
            {"requests_used": n, "percentile": p, "lower_rank": lo, "upper_rank": hi}
            for n in sizes
            for p in PERCENTILE_PROBABILITIES
            for lo, hi in [order_statistic_ranks(n, p)]
        ]
        rank_types = {
            "requests_used": pl.Int64,
            "percentile": pl.Float64,
            "lower_rank": pl.Int64,
            "upper_rank": pl.Int64,
        }
        self.conn.register("order_ranks", pl.DataFrame(ranks, schema=rank_types).to_arrow())
        percentiles = self._sql("request_percentiles").pl()
        return stats, percentiles

    def _read_small_levels(self) -> None:
        """request_small: the sorted values of the load levels of at most EXACT_UP_TO ok requests, read
        again from only the sources that hold them."""
        self._create("small_levels", params={"exact_up_to": EXACT_UP_TO})
        small = {source_id for (source_id,) in self._sql("small_sources").fetchall()}
        parts = [state.part() for state in self._read() if state.id in small]
        if not parts:
            self._sql("request_small_none")
            return
        self._view("small_rows", rows_sql(parts))
        self._create("request_small")

    def stored(self, keys: pl.DataFrame) -> pl.DataFrame:
        """The valid rows of the sources that cannot be read in place later, keyed and in the columns
        of observed.requests (to be stored in the warehouse)."""
        stored = [state.id for state in self.states.values() if not state.source.in_place]
        if not stored:
            return pl.DataFrame(schema={c: d.type for c, d in Requests.to_schema().dtypes.items()})
        return self.conn.execute(stored_select(stored)).pl()

    def view_scans(self) -> list[tuple[str, str]]:
        """(source key, checked SELECT) of every file observed.requests reads in place, as this pass read it
        (with every value as text where the typed read failed); the window that finds copies of rows only
        for the files that hold some."""
        copied = (
            set()
            if self.groups is None
            else set(self.groups.filter(pl.col("rows_copied") > 0).get_column("source_key").to_list())
        )
        return [
            (state.key, state.checked("find" if state.key in copied else None))
            for state in self._read()
            if state.scan is not None and state.source.in_place
        ]

    def texts(self, keys: pl.DataFrame) -> pl.DataFrame:
        """observed.request_texts: the prompt and response texts of the rows kept (valid, placed by `keys`) of
        every source that has them (the JSON formats' frames; a generic file's text columns, read now)."""
        empty = pl.DataFrame(schema={c: d.type for c, d in RequestTexts.to_schema().dtypes.items()})
        if not self.store_texts:
            return empty
        parts = [
            text_part(state.id, state.scan.text_select)
            for state in self._read()
            if state.scan is not None and state.scan.text_select
        ]
        frames = [state.texts for state in self.states.values() if state.texts is not None]
        if frames:
            self.conn.register("request_frame_texts", pl.concat(frames).to_arrow())
            parts.append("SELECT * FROM request_frame_texts")
        if not parts:
            return empty
        self._view("text_parts", " UNION ALL BY NAME ".join(parts))
        ids = {int(source_id) for (source_id,) in self._sql("text_sources").fetchall()}
        if not ids:
            return empty
        self._view("text_rows", rows_sql([state.part() for state in self._read() if state.id in ids]))
        return self._sql("request_texts").pl()
