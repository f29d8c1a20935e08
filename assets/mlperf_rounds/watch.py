"""What the round sensor asks for on one tick: every round the operator named (the sources file, or the
MLPerf locations given instead of it) registered and ingested whatever discovery does, plus the rounds
GitHub discovery finds when it is due; a discovery failure is a warning retried on its own clock.

The cursor (JSON) remembers what each named location held (by size and modification time, so an unchanged
file is not read again), the run key last requested per round, and discovery's state and next due time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assets.config.sources import Sources
from assets.core.errors import IngestError
from assets.core.mlperf_names import round_sort_key
from assets.inputs.fetch import is_url
from assets.mlperf_rounds.discovery import FoundRound, discover
from assets.mlperf_rounds.ingest import read_locations

DISCOVERY_INTERVAL_S = 6 * 3600  # after a successful discovery: GitHub's API is rate-limited
DISCOVERY_RETRY_S = 15 * 60  # after a failed one (offline, rate limited): soon, but not every tick


@dataclass(frozen=True)
class RoundRequest:
    """Ingest `round` from `locations`; `run_key` changes when what the locations hold may have changed (a
    named round's), or with the table's blob sha (a discovered round's)."""

    round: str
    locations: list[str]
    run_key: str


@dataclass
class Tick:
    """One evaluation: the runs to request, rounds to register, warnings for the tick's log, the next cursor."""

    requests: list[RoundRequest] = field(default_factory=list)
    new_rounds: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cursor: dict[str, Any] = field(default_factory=dict)


def read_cursor(text: str | None) -> dict[str, Any]:
    """The cursor as a dict; a cursor of the older form (discovery's repository states only) is kept as such."""
    cursor = json.loads(text) if text else {}
    if cursor and "discovery" not in cursor:
        cursor = {"discovery": cursor}
    return {"discovery": {}, "discovery_due_at": 0.0, "locations": {}, "requested": {}, **cursor}


def location_stamp(location: str) -> str:
    """What changes when a location's content may have: size and modification time of the file, or of every
    file below a folder; a URL's content is known only by reading it (the nightly schedule re-reads)."""
    if is_url(location):
        return "url"
    path = Path(location)
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    stats = [(str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in files if p.exists()]
    return hashlib.sha256(repr(stats).encode()).hexdigest()[:16] if stats else "missing"


def named_rounds(
    mlperf: list[str], sources: Sources, known_locations: dict[str, Any]
) -> tuple[dict[str, list[str]], dict[str, Any], list[str]]:
    """Rounds the operator named and where each is: the MLPerf locations given (each read to see which rounds
    it holds, unless unchanged since the last tick), else the sources file's rounds. Returns the plan, what
    each location held (for the cursor) and a warning per location that could not be read."""
    if not mlperf:
        return {name: sources.locations_for(name) for name in sources.round_names}, {}, []
    plan: dict[str, list[str]] = {}
    held: dict[str, Any] = {}
    warnings: list[str] = []
    for location in mlperf:
        stamp = location_stamp(location)
        seen = known_locations.get(location) or {}
        if seen.get("stamp") == stamp and seen.get("rounds"):
            rounds = list(seen["rounds"])
        else:
            try:
                rounds = read_locations([location], sources.allowed_hosts).rounds
            except IngestError as exc:
                warnings.append(f"cannot read MLPerf location {location} (BENCHBILL_MLPERF): {exc}")
                rounds = list(seen.get("rounds") or [])
                stamp = seen.get("stamp", "unread")
            if not rounds:
                warnings.append(f"{location} (BENCHBILL_MLPERF) holds no MLPerf result of any round")
        held[location] = {"stamp": stamp, "rounds": rounds}
        for round_name in rounds:
            plan.setdefault(round_name, []).append(location)
    return dict(sorted(plan.items(), key=lambda item: round_sort_key(item[0]))), held, warnings


def _run_key(round_name: str, locations: list[str], held: dict[str, Any]) -> str:
    stamps = [(location, (held.get(location) or {}).get("stamp", "")) for location in locations]
    return f"{round_name}:{hashlib.sha256(json.dumps(stamps).encode()).hexdigest()[:12]}"


def evaluate(
    sources: Sources,
    mlperf: list[str],
    known: set[str],
    cursor_text: str | None,
    now: float,
    find: Callable[..., tuple[list[FoundRound], dict[str, Any]]] = discover,
) -> Tick:
    """One tick of the round sensor (see the module docstring); `known` are the registered rounds."""
    cursor = read_cursor(cursor_text)
    plan, held, warnings = named_rounds(mlperf, sources, cursor["locations"])
    tick = Tick(warnings=warnings)
    requested = dict(cursor["requested"])
    by_round: dict[str, RoundRequest] = {}
    for round_name, locations in plan.items():
        key = _run_key(round_name, locations, held)
        # a round registered before this cursor existed (by `benchbill run`, or an older sensor) counts as ingested
        changed = round_name in requested and requested[round_name] != key
        if round_name not in known or changed:
            by_round[round_name] = RoundRequest(round_name, locations, key)
        requested[round_name] = key
    if sources.discovery is not None and now >= float(cursor["discovery_due_at"]):
        d = sources.discovery
        try:
            found, cursor["discovery"] = find(
                d.api, d.owner, d.repository_pattern, d.table_files, sources.allowed_hosts, cursor["discovery"]
            )
        except IngestError as exc:
            tick.warnings.append(
                f"round discovery through {d.api} failed, retried in {DISCOVERY_RETRY_S // 60} minutes "
                f"(the rounds named in {'BENCHBILL_MLPERF' if mlperf else sources.path} are ingested anyway): {exc}"
            )
            cursor["discovery_due_at"] = now + DISCOVERY_RETRY_S
        else:
            cursor["discovery_due_at"] = now + DISCOVERY_INTERVAL_S
            for item in found:  # a table found (or corrected) upstream wins over a named location of the round
                by_round[item.round] = RoundRequest(item.round, [item.url], f"{item.round}:{item.sha}")
    for request in sorted(by_round.values(), key=lambda r: round_sort_key(r.round)):
        tick.requests.append(request)
        if request.round not in known:
            tick.new_rounds.append(request.round)
    cursor["locations"] = held
    cursor["requested"] = requested
    tick.cursor = cursor
    return tick
