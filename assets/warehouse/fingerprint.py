"""The run fingerprint: one digest of every input a `benchbill run` reads (their content, by checksum),
of the code that reads them and of the settings that change what is published (`--store-texts`),
recorded in the build and so published with it.

`benchbill run` computes it before anything else; when it equals the one in the published serving
file, nothing would change, so the run only prints the published shortlist. The fingerprint is
written into the build by the asset below, which the analyst views (and so the publish step) wait
for: it reaches the serving file only through a successful publish, and a run that fails or is
interrupted leaves the previous one in place, which then no longer matches what the next run sees."""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from assets.core.errors import IngestError
from assets.core.paths import CODE_PACKAGES, package_dir
from assets.inputs.fetch import is_url
from assets.inputs.files import Fetched, read_settings_file, settings_size_problem, sha256_file, walk_files
from assets.inputs.textinput import parse_yaml
from assets.warehouse.layout import WarehouseLayout
from assets.warehouse.published_set import read_record, stale_members

VERSION = "benchbill-fingerprint-1"
CODE_SUFFIXES = (".py", ".sql", ".csv", ".yaml", ".yml")
LIBRARIES = ("dagster", "duckdb", "polars", "pandera", "pyarrow")


class RunInputs(Protocol):
    """What a run reads (the Dagster resource `Inputs` is one)."""

    @property
    def sources_file(self) -> str: ...
    @property
    def prices(self) -> str: ...
    @property
    def profiles(self) -> str: ...
    @property
    def dumps(self) -> Sequence[str]: ...
    @property
    def store_texts(self) -> bool: ...
    @property
    def allow_links_into(self) -> Sequence[str] | None: ...


@functools.cache  # the code does not change under a running process: one hash of it per process
def code_fingerprint() -> str:
    """sha256 over the pipeline's own files (code, SQL, reference tables) and the library versions."""
    from importlib.metadata import PackageNotFoundError, version

    digest = hashlib.sha256(VERSION.encode())
    for package in CODE_PACKAGES:
        folder = package_dir(package)
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in CODE_SUFFIXES and "__pycache__" not in path.parts:
                digest.update(f"{path.relative_to(folder.parent)}\n{sha256_file(path)}\n".encode())
    for name in LIBRARIES:
        try:
            digest.update(f"{name}=={version(name)}\n".encode())
        except PackageNotFoundError:
            digest.update(f"{name} missing\n".encode())
    digest.update(sys.version.encode())
    return digest.hexdigest()


def _location(
    location: str,
    fetch: Callable[[str], Fetched],
    links_into: Sequence[str] | None = None,
    checksum: Callable[[Path], str] = sha256_file,
) -> list[tuple[str, str]]:
    """(name, sha256) of a file, of every file below a folder (by relative path; links followed as walk_files
    follows them with `links_into`; each file's checksum from `checksum`), or of a URL's body."""
    if is_url(location):
        return [(location, fetch(location).sha256)]
    path = Path(location)
    if path.is_dir():
        return [
            (f"{path.resolve()}/{p.relative_to(path).as_posix()}", checksum(p))
            for p in walk_files(path, links_into=links_into)
        ]
    if path.is_file():
        return [(str(path.resolve()), sha256_file(path))]
    return [(str(path.resolve()), "missing")]


def _settings_location(location: str, fetch: Callable[[str], Fetched]) -> list[tuple[str, str]]:
    """`_location` of a settings file, never hashed when its size alone refuses it (the run's reading of it
    then stops with the reason; a 10 GB file is not read first)."""
    if not is_url(location) and settings_size_problem(Path(location)) is not None:
        return [(str(Path(location).resolve()), f"too large: {Path(location).stat().st_size} bytes")]
    return _location(location, fetch)


def _traffic_logs(profiles: str) -> list[str]:
    """The traffic logs a profiles file names (relative to it)."""
    try:
        content = parse_yaml(read_settings_file(profiles).data, profiles)  # size, nesting and alias limits
    except (OSError, IngestError):
        return []  # the run's own reading of the profiles says what is wrong
    entries = content.get("profiles") if isinstance(content, dict) else None
    logs = []
    for entry in entries if isinstance(entries, list) else []:
        workload = entry.get("workload") if isinstance(entry, dict) else None
        if isinstance(workload, dict) and workload.get("traffic_log"):
            logs.append(str(Path(profiles).parent / str(workload["traffic_log"])))
    return logs


def inputs_fingerprint(
    inputs: RunInputs,
    mlperf_locations: list[str],
    fetch: Callable[[str], Fetched],
    dump_checksum: Callable[[Path], str] = sha256_file,
) -> tuple[str, str, list[tuple[str, str]]]:
    """(fingerprint, code sha256, covered items) for a run reading `inputs`, whose MLPerf round tables are
    at `mlperf_locations` (the explicit ones, or the sources file's); `fetch(url)` returns a URL's bytes
    (the run then reuses them); `dump_checksum(path)` a dump file's sha256 (e.g. the one the warehouse recorded
    for it while its size, mtime, ctime and inode are unchanged)."""
    items: list[tuple[str, str]] = []
    for location in mlperf_locations:
        items += [("mlperf " + name, sha) for name, sha in _location(location, fetch)]
    for label, location in (("sources", inputs.sources_file), ("prices", inputs.prices), ("profiles", inputs.profiles)):
        items += [(f"{label} {name}", sha) for name, sha in _settings_location(location, fetch)]
    for log in _traffic_logs(inputs.profiles):
        items += [("traffic log " + name, sha) for name, sha in _location(log, fetch)]
    links_into = None if inputs.allow_links_into is None else [*inputs.dumps, *inputs.allow_links_into]
    for folder in inputs.dumps:
        items += [("dumps " + name, sha) for name, sha in _location(folder, fetch, links_into, dump_checksum)]
    code = code_fingerprint()
    digest = hashlib.sha256(code.encode())
    # Settings that change what is published: a run that stores texts after one that did not builds.
    digest.update(f"store_texts={inputs.store_texts}\n".encode())
    for name, sha in items:
        digest.update(f"{name}\t{sha}\n".encode())
    return digest.hexdigest(), code, items


def published_fingerprint(warehouse: WarehouseLayout) -> str | None:
    """The fingerprint of the last complete publish, when its whole set (serving file, Parquet export, report)
    is in place and unaltered (`assets.warehouse.published_set.stale_members`: each member's checksum against the
    publish record); None otherwise, so the next run publishes again. The serving file is not opened."""
    record = read_record(warehouse)
    if record is None or stale_members(warehouse, record):
        return None
    return record.fingerprint


def inputs_json(items: list[tuple[str, str]]) -> str:
    return json.dumps([{"input": name, "sha256": sha} for name, sha in items])


def fingerprint_row(fingerprint: str, code_sha256: str, inputs: str) -> dict[str, Any]:
    """The row of audit.run_fingerprint for a build (empty values: a run that did not fingerprint its inputs)."""
    return {
        "fingerprint": fingerprint or None,
        "code_sha256": code_sha256 or None,
        "inputs": inputs or "[]",
        "recorded_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
