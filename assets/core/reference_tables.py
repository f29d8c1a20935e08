"""The one reader of the reference tables under `assets/reference/`: a CSV file's rows as dicts."""

from __future__ import annotations

import csv

from assets.core.paths import REFERENCE_DIR


def read_reference_csv(name: str) -> list[dict[str, str]]:
    with open(REFERENCE_DIR / name, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))
