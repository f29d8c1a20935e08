"""The machinery of the bad-input corpus (tests/integration/test_bad_input_corpus.py): intact inputs built at test
time from the real files under ../shared/data and the small fixtures, mutations of them, and one reader per
parser family that runs the parsers and the table writes (pandera checks, quarantine) as a run does,
into an in-memory DuckDB, and reports what came out."""

import csv
import io
import json
import shutil
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePath

import duckdb
import polars as pl

from assets.config.prices import prices_frame, read_prices
from assets.config.profiles import read_profiles
from assets.core.errors import IngestError
from assets.core.records import Reject, SourceFile
from assets.mlperf_rounds.ingest import read_locations
from assets.mlperf_rounds.rounds import results_frame
from assets.runs.batch import ObservedBatch
from assets.runs.collect import collect_all
from assets.runs.store import write_observed
from assets.warehouse.validate import split_valid
from schemas.benchmark.accelerator_prices import AcceleratorPrices
from schemas.benchmark.mlperf_results import MlperfResults

Files = dict[str, bytes]


@dataclass
class Outcome:
    """What one input gave: the clear error, or the numbers kept (by a key that names the result,
    measurement or request), the quarantine reasons and the file inventory; `crash` if the parsers
    raised anything but a clear error."""

    error: str | None = None
    numbers: dict[tuple, tuple] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    files: list[tuple[str, str, str]] = field(default_factory=list)
    flags: dict[str, tuple] = field(default_factory=dict)
    crash: str | None = None


def _rows(conn: duckdb.DuckDBPyConnection, sql: str) -> list[tuple]:
    return conn.execute(sql).fetchall()


def _valid(frame, model, table: str, rejects: list[Reject]) -> tuple[list[dict], list[str]]:
    """What write_table keeps of `frame` (the pandera checks) and every quarantine reason."""
    valid, schema_rejects = split_valid(frame, model, table)
    return valid.to_dicts(), [f"{r.source} | {r.location} | {r.reason}" for r in rejects + schema_rejects]


def attempt(read: Callable, *args) -> tuple[object, Outcome | None]:
    """(what `read` returned, None), or (None, the outcome): a clear error, or any other exception as a crash."""
    try:
        return read(*args), None
    except IngestError as exc:
        return None, Outcome(error=str(exc))
    except Exception:  # noqa: BLE001 - a crash is what the corpus looks for
        return None, Outcome(crash=traceback.format_exc())


def _inventory(files: list[SourceFile]) -> list[tuple[str, str, str]]:
    return [(f.source, f.status, f.note or "") for f in files]


def read_mlperf_locations(locations: dict[str, Path]) -> dict[str, Outcome]:
    """Each location read on its own (a clear error ends that case), then every case's rows checked
    against the table's pandera model together (each result key prefixed with its case, so that one
    row per result is still checked within a case): what write_table would keep and quarantine."""
    results, frames, rejects = {}, [], []
    for name, location in locations.items():
        batch, failed = attempt(read_locations, [str(location)], [])
        if failed:
            results[name] = failed
            continue
        results[name] = Outcome(files=_inventory(batch.files))
        rejects += [(name, r) for r in batch.rejects]
        if batch.rows:
            frames.append(
                results_frame(batch.rows).with_columns((pl.lit(f"{name}|") + pl.col("result_key")).alias("result_key"))
            )
    if frames:
        valid, schema_rejects = split_valid(pl.concat(frames, how="vertical_relaxed"), MlperfResults, "results")
        for row in valid.iter_rows(named=True):
            name, key = row["result_key"].split("|", 1)
            results[name].numbers[(key,)] = (
                row["result_value"],
                row["result_per_accelerator"],
                row["accelerator_count"],
                row["nodes"],
                row["power_value"],
                row["precision"],
            )
            results[name].flags[key] = (row["accelerator_known"], row["model_known"])
        rejects += [(r.row["result_key"].split("|", 1)[0], r) for r in schema_rejects]
    for name, r in rejects:
        results[name].reasons.append(f"{r.source} | {r.location} | {r.reason}")
    return results


def read_page(path: Path) -> Outcome:
    """A result page alone: its results only cross-check others, so they come out as `presence` records."""
    batch = read_locations([str(path)], [])
    return Outcome(
        numbers={
            (d["result_key"],): (float(d["other_value"]),) for d in batch.disagreements if d["field"] == "presence"
        },
        reasons=[f"{r.source} | {r.location} | {r.reason}" for r in batch.rejects],
    )


def read_price_file(path: Path) -> Outcome:
    rows, rejects, file = read_prices(path)
    kept, reasons = _valid(prices_frame(rows), AcceleratorPrices, "benchmark.accelerator_prices", rejects)
    return Outcome(
        numbers={
            (r["accelerator_raw"], r["price_class"], r["price_provider"], r["price_as_of"]): (
                r["usd_per_accelerator_hour"],
            )
            for r in kept
        },
        reasons=reasons,
        files=_inventory([file]),
        flags={r["accelerator_raw"]: (r["accelerator_known"],) for r in kept},
    )


def read_profile_file(path: Path) -> Outcome:
    profiles, bounds, _file = read_profiles(path)
    out = Outcome(
        numbers={
            (p["profile"],): (
                p["delivered_fraction_prior_low"],
                p["delivered_fraction_prior_high"],
                p["input_tokens_stated"],
                p["output_tokens_stated"],
            )
            for p in profiles
        }
    )
    out.numbers.update({(b["profile"], b["measure"]): (b["bound"],) for b in bounds})
    out.flags = {p["profile"]: (p["model_known"],) for p in profiles}
    return out


def read_dump_folders(folders: dict[str, Path]) -> dict[str, Outcome]:
    """Each dumps folder read on its own (a clear error ends that folder's case), then every batch
    written together, as the observed asset writes them (pandera checks, children of quarantined runs
    and repeats quarantined), into one in-memory DuckDB: a case's outcome is what came from its folder."""
    results: dict[str, Outcome] = {}
    total = ObservedBatch()
    for name, folder in folders.items():
        batch, failed = attempt(collect_all, [str(folder)])
        if failed:
            results[name] = failed
            continue
        for part in fields(ObservedBatch):  # every list the batch holds (rows, request pass tables, scans)
            if isinstance(getattr(batch, part.name), list):
                getattr(total, part.name).extend(getattr(batch, part.name))
        results[name] = Outcome()
    conn = duckdb.connect()
    write_observed(conn, total)
    of = {str(folder): name for name, folder in folders.items()}

    def case(source: str) -> str | None:
        return next((name for prefix, name in of.items() if str(source).startswith(prefix + "/")), None)

    for source, location, *values in _rows(
        conn,
        """
            SELECT source, location, load_kind, offered_rate_per_s, concurrency, achieved_requests_per_s,
                   requests_ok, requests_failed, output_tokens_per_s, input_tokens_mean, ttft_p50_ms, ttft_p95_ms,
                   ttft_p99_ms, tpot_p95_ms, e2e_p95_ms, e2e_p99_ms FROM observed.measurements""",
    ):
        results[case(source)].numbers[("measurement", PurePath(source).name, location)] = tuple(values)
    # A request is named by its file, position, phase, status and tokens (a changed token count is a new
    # name, so it is caught too); its latencies must match.
    for source, *name, ttft, e2e in _rows(
        conn,
        """
            SELECT source, request_index, phase, status, input_tokens, output_tokens, ttft_ms, e2e_ms
            FROM observed.requests""",
    ):
        results[case(source)].numbers[("request", PurePath(source).name, *name)] = (ttft, e2e)
    for report_dir, label, acc, model, precision in _rows(
        conn, "SELECT report_dir, run_label, accelerator_known, model_known, precision_known FROM observed.runs"
    ):
        results[case(report_dir + "/")].flags[label] = (acc, model, precision)
    for source, location, reason in _rows(conn, "SELECT source, location, reason FROM audit.quarantine"):
        results[case(source)].reasons.append(f"{source} | {location} | {reason}")
    for source, status, note in _rows(conn, "SELECT source, status, coalesce(note, '') FROM audit.source_files"):
        results[case(source)].files.append((source, status, note))
    return results


READERS: dict[str, Callable[[Path], Outcome]] = {
    "page": read_page,
    "prices": read_price_file,
    "profiles": read_profile_file,
}


def read_one(reader: str, location: Path) -> Outcome:
    """The outcome of one input, a clear error included; any other exception is a crash."""
    result, failed = attempt(READERS[reader], location)
    return failed or result


@dataclass(frozen=True)
class Target:
    """One kind of input: its intact files (relative path -> bytes), the file most cases damage, the
    reader, and whether the reader is given the folder or the main file."""

    name: str
    files: Callable[[], Files]
    main: str
    reader: str
    folder: bool = False


def materialise(root: Path, files: Files) -> Path:
    shutil.rmtree(root, ignore_errors=True)
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def outcomes(cases: dict[str, tuple[Target, Files]], root: Path) -> dict[str, Outcome]:
    """The outcome of every case (name -> (target, files)), dump folders read in one batch."""
    found, folders, locations = {}, {}, {}
    for number, (name, (target, files)) in enumerate(cases.items()):
        folder = materialise(root / f"case{number:04d}", files)
        location = folder if target.folder else folder / target.main
        if target.reader == "dumps":
            folders[name] = folder
        elif target.reader == "mlperf":
            locations[name] = location
        else:
            found[name] = read_one(target.reader, location)
    return {**found, **read_mlperf_locations(locations), **read_dump_folders(folders)}


# ---- mutations: each takes the intact files and returns the damaged ones ---------------------------

Mutation = Callable[[Files, str], Files]


def on_main(change: Callable[[bytes], bytes]) -> Mutation:
    return lambda files, main: {**files, main: change(files[main])}


def on_file(relative: str, change: Callable[[bytes], bytes]) -> Mutation:
    return lambda files, _main: {**files, relative: change(files[relative])}


def without(relative: str) -> Mutation:
    return lambda files, _main: {k: v for k, v in files.items() if k != relative}


def json_edit(change: Callable[[object], object], relative: str | None = None) -> Mutation:
    """Decode the JSON, change it in place, encode it again (NaN and Infinity are written as JSON's
    NaN / Infinity tokens, as Python's json does)."""

    def in_place(document: object) -> object:
        change(document)
        return document

    return json_replace(in_place, relative)


def json_replace(change: Callable[[object], object], relative: str | None = None) -> Mutation:
    """Decode the JSON and write what `change` returns instead."""

    def mutate(files: Files, main: str) -> Files:
        name = relative or main
        return {**files, name: json.dumps(change(json.loads(files[name]))).encode()}

    return mutate


def stringify(path: list) -> Callable[[object], None]:
    """The number at `path` written as a string of the same number."""

    def change(document: object) -> None:
        for key in path[:-1]:
            document = document[key]
        document[path[-1]] = repr(document[path[-1]])

    return change


def json_lines_edit(change: Callable[[list], None], relative: str | None = None) -> Mutation:
    def mutate(files: Files, main: str) -> Files:
        name = relative or main
        values = [json.loads(line) for line in files[name].splitlines() if line.strip()]
        change(values)
        return {**files, name: "".join(json.dumps(v) + "\n" for v in values).encode()}

    return mutate


def csv_edit(change: Callable[[list[list[str]]], None], relative: str | None = None) -> Mutation:
    def mutate(files: Files, main: str) -> Files:
        name = relative or main
        rows = list(csv.reader(io.StringIO(files[name].decode("utf-8-sig"))))
        change(rows)
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        return {**files, name: out.getvalue().encode()}

    return mutate


def set_cell(column: str, value: str, row: int = 1, header: int = 0) -> Callable[[list[list[str]]], None]:
    def change(rows: list[list[str]]) -> None:
        rows[row][rows[header].index(column)] = value

    return change


def set_path(path: list, value: object) -> Callable[[object], None]:
    def change(document: object) -> None:
        for key in path[:-1]:
            document = document[key]
        document[path[-1]] = value

    return change


def cut_in_last_value(data: bytes) -> bytes:
    """The file cut in the middle of its last line's last value (`12.5` -> `12`), without a newline."""
    text = data.rstrip(b"\r\n")
    return text[:-1] if text[-2:-1].isdigit() else text[:-2]


def cut_after(marker: bytes, keep: int) -> Callable[[bytes], bytes]:
    """Everything up to `keep` bytes after the first `marker` (a cut in the middle of a line)."""
    return lambda data: data[: data.index(marker) + len(marker) + keep]


def latin1_inside(data: bytes, after: bytes) -> bytes:
    """A Latin-1 e-acute (not UTF-8) inside the first value following `after`."""
    at = data.index(after) + len(after)
    return data[:at] + b"\xe9" + data[at:]


EMPTY = on_main(lambda d: b"")
TRUNCATED = on_main(lambda d: d[: len(d) // 2])
BOM = on_main(lambda d: b"\xef\xbb\xbf" + d)
UTF16 = on_main(lambda d: d.decode("utf-8").encode("utf-16"))
NESTED = on_main(lambda d: b"[" * 100_000 + b"]" * 100_000)
BINARY = on_main(lambda d: bytes(range(256)) * 8)
CSV_INSTEAD = on_main(lambda d: b"accelerator,value\nh100,1\n")
JSON_INSTEAD = on_main(lambda d: b'[{"accelerator": "h100", "value": 1}]\n')
CRLF = on_main(lambda d: d.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
