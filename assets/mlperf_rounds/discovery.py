"""Finding MLPerf Inference rounds where MLCommons publishes them: the owner's
`inference_results_v*` repositories, listed through GitHub's REST API, and a round table at the
root of each (`summary_results.json`, or `summary.json` from v6.1).

A cursor remembers each repository's `pushed_at` and table blob sha, so an unchanged repository
costs no further request and a changed table is reported as a correction.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from assets.core import mlperf_names
from assets.core.errors import IngestError
from assets.inputs.fetch import fetch_url
from assets.inputs.textinput import decode_json

MAX_PAGES = 20


@dataclass(frozen=True)
class FoundRound:
    round: str
    repository: str
    url: str
    sha: str


def get_json(url: str, allowed_hosts: list[str], progress: Callable[[str], None] | None = None) -> Any:
    fetched = fetch_url(url, allowed_hosts, progress=progress, attempts=2, timeout_s=30)
    return decode_json(fetched.data, url)


def list_repositories(api: str, owner: str, allowed_hosts: list[str], fetch=get_json) -> list[dict[str, Any]]:
    """Every repository of `owner` (`GET /orgs/{owner}/repos`, 100 per page)."""
    repositories: list[dict[str, Any]] = []
    for page in range(1, MAX_PAGES + 1):
        batch = fetch(f"{api}/orgs/{owner}/repos?per_page=100&page={page}", allowed_hosts)
        if not isinstance(batch, list):
            raise IngestError(
                f"{api}/orgs/{owner}/repos: expected a JSON list of repositories, got {type(batch).__name__}"
            )
        repositories += [r for r in batch if isinstance(r, dict) and r.get("name")]
        if len(batch) < 100:
            break
    return repositories


def find_table(
    api: str, owner: str, repository: str, table_files: list[str], allowed_hosts: list[str], fetch=get_json
) -> tuple[str, str] | None:
    """(download URL, blob sha) of the first round table at the repository's root, if any."""
    listing = fetch(f"{api}/repos/{owner}/{repository}/contents/", allowed_hosts)
    if not isinstance(listing, list):
        raise IngestError(f"{api}/repos/{owner}/{repository}/contents/: expected a JSON list of entries")
    by_name = {e.get("name"): e for e in listing if isinstance(e, dict) and e.get("type") == "file"}
    for name in table_files:
        entry = by_name.get(name)
        if entry and entry.get("download_url"):
            return str(entry["download_url"]), str(entry.get("sha") or "")
    return None


def discover(
    api: str,
    owner: str,
    pattern: str,
    table_files: list[str],
    allowed_hosts: list[str],
    cursor: dict[str, Any],
    fetch=get_json,
) -> tuple[list[FoundRound], dict[str, Any]]:
    """Round tables that are new or changed since `cursor`, and the next cursor."""
    matcher = re.compile(pattern)
    found: list[FoundRound] = []
    next_cursor = dict(cursor)
    for repository in list_repositories(api, owner, allowed_hosts, fetch):
        name = str(repository["name"])
        match = matcher.search(name)
        if not match:
            continue
        seen = cursor.get(name) or {}
        pushed_at = repository.get("pushed_at")
        if seen and seen.get("pushed_at") == pushed_at:
            continue
        table = find_table(api, owner, name, table_files, allowed_hosts, fetch)
        next_cursor[name] = {"pushed_at": pushed_at, "sha": table[1] if table else None}
        if table is None or table[1] == seen.get("sha"):
            continue
        found.append(FoundRound(mlperf_names.normalise_round(match.group(1)), name, table[0], table[1]))
    return found, next_cursor
