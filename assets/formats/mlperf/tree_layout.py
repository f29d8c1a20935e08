"""Where things are in an MLPerf submission tree: its roots, its round, a result's measurements JSON."""

from __future__ import annotations

import re
from pathlib import Path

from assets.core import mlperf_names
from assets.core.errors import IngestError

DIVISIONS = ("closed", "open", "network")
_ROUND_IN_NAME = re.compile(r"(?:^|[_\-])v?(\d+\.\d+)$")


def is_tree_root(folder: Path) -> bool:
    """A folder holding `<division>/<submitter>/results` or `.../systems`."""
    for division in DIVISIONS:
        base = folder / division
        if base.is_dir() and any(
            (sub / "results").is_dir() or (sub / "systems").is_dir() for sub in base.iterdir() if sub.is_dir()
        ):
            return True
    return False


def find_tree_roots(folder: Path) -> list[Path]:
    """Submission-tree roots at or below `folder`, or the root above it when `folder` lies inside one."""
    folder = folder.resolve()
    for ancestor in [folder, *folder.parents]:
        if ancestor.name in DIVISIONS and is_tree_root(ancestor.parent):
            return [ancestor.parent]
    roots: list[Path] = []
    stack = [folder]
    while stack:
        current = stack.pop()
        if is_tree_root(current):
            roots.append(current)
            continue
        stack.extend(sorted((p for p in current.iterdir() if p.is_dir() and not p.name.startswith(".")), reverse=True))
    return sorted(roots)


def round_from_path(root: Path) -> str | None:
    """The round named by the tree's folder or one above it (`v5.1`, `inference_results_v5.1`)."""
    for part in [root, *root.parents]:
        match = _ROUND_IN_NAME.search(part.name)
        if match:
            return mlperf_names.normalise_round(match.group(1))
    return None


def tree_round(root: Path) -> str:
    found = round_from_path(root)
    if found is None:
        raise IngestError(
            f"{root}: cannot tell the MLPerf round of this submission tree; expected a folder "
            "named like 'v5.1' or 'inference_results_v5.1' at or above it"
        )
    return found


def measurements_file(submitter_dir: Path, platform: str, benchmark: str, scenario_dir: Path) -> Path | None:
    """The measurements JSON of a result: `results/.../measurements.json` (v6.0+), else
    `measurements/<system>/<benchmark>/<scenario>/<system>_<Scenario>.json` or `<system>.json`
    (names differ by submitter), else the only JSON in that folder."""
    inside = scenario_dir / "measurements.json"
    if inside.is_file():
        return inside
    folder = submitter_dir / "measurements" / platform / benchmark
    if not folder.is_dir():
        return None
    matches = [p for p in folder.iterdir() if p.is_dir() and p.name.lower() == scenario_dir.name.lower()]
    if not matches:
        return None
    folder = matches[0]
    for name in (f"{platform}_{scenario_dir.name}.json", f"{platform}.json"):
        if (folder / name).is_file():
            return folder / name
    candidates = sorted(p for p in folder.glob("*.json"))
    return candidates[0] if len(candidates) == 1 else None
