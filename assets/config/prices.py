"""The prices CSV: dated accelerator-hour prices, each with its provider and source; a bad
row is quarantined with its reason."""

from __future__ import annotations

import csv
import datetime
import io
from pathlib import Path
from typing import Any

import polars as pl

from assets.core import canonical
from assets.core.errors import IngestError
from assets.core.ranges import INPUT_RANGES, PRICES
from assets.core.records import LOCATION_COLUMN, SOURCE_COLUMN, Reject, SourceFile
from assets.inputs.files import read_settings_file
from assets.inputs.textinput import CUT_LINE_REASON, cut_last_line, decode_text
from assets.warehouse.validate import frame_from_rows
from schemas.benchmark.accelerator_prices import AcceleratorPrices
from schemas.vocab import PRICE_CLASSES

PRICE_COLUMNS = ("accelerator", "price_class", "usd_per_accelerator_hour", "provider", "source", "as_of")
# A plausible price per accelerator-hour, in USD (its range in assets.core.ranges.INPUT_RANGES, with why).
_PRICE_RANGE = INPUT_RANGES[PRICES]["usd_per_accelerator_hour"]
PLAUSIBLE_USD_PER_ACCELERATOR_HOUR = (_PRICE_RANGE.low, _PRICE_RANGE.high)


class PriceProblem(ValueError):
    pass


def price_row(raw: dict[str, str], *, source: str, index: int, today: datetime.date) -> dict[str, Any]:
    """One CSV row as a price row; PriceProblem names what is wrong (a price outside
    PLAUSIBLE_USD_PER_ACCELERATOR_HOUR, or dated after `today`, is wrong)."""
    accelerator = (raw.get("accelerator") or "").strip()
    if not accelerator:
        raise PriceProblem("accelerator is empty")
    price_class = (raw.get("price_class") or "").strip()
    if price_class not in PRICE_CLASSES:
        raise PriceProblem(f"price_class {price_class!r} is not one of {PRICE_CLASSES}")
    text = (raw.get("usd_per_accelerator_hour") or "").strip()
    try:
        usd = float(text)
    except ValueError:
        raise PriceProblem(f"usd_per_accelerator_hour {text!r} is not a number") from None
    low, high = PLAUSIBLE_USD_PER_ACCELERATOR_HOUR
    if not low <= usd <= high:  # NaN fails too
        raise PriceProblem(
            f"usd_per_accelerator_hour {text!r} is outside the plausible range {low:g} to {high:g} USD "
            "(PLAUSIBLE_USD_PER_ACCELERATOR_HOUR): a typo or a unit mistake?"
        )
    try:
        as_of = datetime.date.fromisoformat((raw.get("as_of") or "").strip())
    except ValueError:
        raise PriceProblem(f"as_of {raw.get('as_of')!r} is not a date like 2026-05-18") from None
    if as_of > today:
        raise PriceProblem(f"as_of {as_of} is in the future (today is {today}): a price must have been observed")
    for column in ("provider", "source"):
        if not (raw.get(column) or "").strip():
            raise PriceProblem(f"{column} is empty: every price needs its provider and source")
    match = canonical.match_accelerator(accelerator)
    return {
        "accelerator_raw": accelerator,
        "accelerator_id": match.accelerator_id if match else None,
        "accelerator_known": match is not None,
        "price_class": price_class,
        "usd_per_accelerator_hour": usd,
        "price_provider": raw["provider"].strip(),
        "price_source": raw["source"].strip(),
        "price_as_of": as_of,
        "source": source,
        "source_row": index,
        "evidence": "benchmark",
    }


def _one_price_per_key(rows: list[dict[str, Any]], source: str) -> tuple[list[dict[str, Any]], list[Reject]]:
    """One row per accelerator, class, provider and date: a repeated row is read once; rows that
    give the same key different prices are all quarantined (which one is right is not ours to guess)."""
    by_key: dict[tuple, list[dict[str, Any]]] = {}
    for row in rows:
        key = (row["accelerator_raw"].lower(), row["price_class"], row["price_provider"].lower(), row["price_as_of"])
        by_key.setdefault(key, []).append(row)
    kept, rejects = [], []
    for same in by_key.values():
        first = same[0]
        if len({r["usd_per_accelerator_hour"] for r in same}) > 1:
            prices = ", ".join(f"line {r['source_row'] + 2}: {r['usd_per_accelerator_hour']:g}" for r in same)
            rejects += [
                Reject(
                    source,
                    f"line {r['source_row'] + 2}",
                    f"contradicting prices for one accelerator, class, provider and date ({prices}); keep one",
                    r,
                )
                for r in same
            ]
            continue
        kept.append(first)
        rejects += [
            Reject(
                source,
                f"line {r['source_row'] + 2}",
                f"repeats line {first['source_row'] + 2} (same "
                "accelerator, class, provider, date and price): read once",
                r,
            )
            for r in same[1:]
        ]
    return sorted(kept, key=lambda r: r["source_row"]), rejects


def read_prices(
    path: str | Path, today: datetime.date | None = None
) -> tuple[list[dict[str, Any]], list[Reject], SourceFile]:
    """Price rows and rejects from a prices CSV (columns as in the contract); `today` (default: today in
    UTC) bounds the dates."""
    today = today or datetime.datetime.now(datetime.UTC).date()
    fetched = read_settings_file(path)
    text, cut = cut_last_line(decode_text(fetched.data, str(path)))
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in reader.fieldnames or []]
    missing = [c for c in PRICE_COLUMNS if c not in header]
    if missing:
        raise IngestError(f"{path}: prices CSV lacks columns {missing}; expected {list(PRICE_COLUMNS)}, got {header}")
    rows, rejects = [], []
    for index, raw in enumerate(reader):
        raw = {(k or "").strip(): v for k, v in raw.items()}
        try:
            rows.append(price_row(raw, source=fetched.name, index=index, today=today))
        except PriceProblem as problem:
            rejects.append(Reject(fetched.name, f"line {index + 2}", str(problem), raw))
    if cut is not None:
        rejects.append(Reject(fetched.name, f"line {reader.line_num + 1}", CUT_LINE_REASON, {"line": cut}))
    rows, duplicates = _one_price_per_key(rows, fetched.name)
    rejects += duplicates
    file = SourceFile(fetched.name, fetched.sha256, len(fetched.data), "prices csv", "read", rows=len(rows))
    return rows, rejects, file


def prices_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Price rows as the frame `benchmark.accelerator_prices` is written from (with each row's line)."""
    return frame_from_rows(rows, AcceleratorPrices).with_columns(
        pl.col("source").alias(SOURCE_COLUMN), pl.format("line {}", pl.col("source_row") + 2).alias(LOCATION_COLUMN)
    )
