"""The MLPerf sources file: where each known round is published, the hosts fetches may go to, and
where the round sensor looks for new rounds."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assets.core.errors import IngestError
from assets.inputs.files import read_settings_file
from assets.inputs.textinput import parse_yaml


@dataclass(frozen=True)
class Discovery:
    """Where the round sensor looks for new rounds (GitHub's REST API)."""

    api: str
    owner: str
    repository_pattern: str
    table_files: list[str]


@dataclass(frozen=True)
class Sources:
    """The sources file: each known round's table location, allowed hosts, discovery settings."""

    rounds: list[tuple[str, str]]
    allowed_hosts: list[str]
    discovery: Discovery | None = None
    path: str = ""

    def locations_for(self, round_name: str) -> list[str]:
        return [url for name, url in self.rounds if name == round_name]

    @property
    def round_names(self) -> list[str]:
        return list(dict.fromkeys(name for name, _url in self.rounds))


def load_sources(path: str | Path) -> Sources:
    """The sources file, checked; IngestError naming the file and the key at fault."""
    path = Path(path)
    data = read_settings_file(path).data  # refused by its size before it is read; IngestError naming it
    content = parse_yaml(data, f"{path} (the MLPerf sources file)")
    if not isinstance(content, dict) or not isinstance(content.get("rounds"), list):
        raise IngestError(f"{path}: expected `rounds:` (a list of {{round, url}}) and `allowed_hosts:`")
    rounds = []
    for i, entry in enumerate(content["rounds"]):
        if not isinstance(entry, dict) or not entry.get("url") or not entry.get("round"):
            raise IngestError(f"{path}: rounds[{i}] needs `round` (like v5.1) and `url`")
        rounds.append((str(entry["round"]).strip(), str(entry["url"])))
    discovery = None
    found = content.get("discovery")
    if found is not None:
        missing = [k for k in ("api", "owner", "repository_pattern", "table_files") if not found.get(k)]
        if missing:
            raise IngestError(f"{path}: discovery lacks {missing}")
        discovery = Discovery(
            str(found["api"]).rstrip("/"),
            str(found["owner"]),
            str(found["repository_pattern"]),
            [str(f) for f in found["table_files"]],
        )
    return Sources(rounds, [str(h) for h in content.get("allowed_hosts") or []], discovery, str(path))
