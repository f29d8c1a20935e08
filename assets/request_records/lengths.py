"""Token lengths: the summary statistics of a column of lengths (a traffic log's, a lengths file's), and a
lengths-only file (`workload.lengths_file`: a tool's dataset or a log without timestamps).

A lengths file is a CSV or JSON lines with one request per row and its input and output tokens under one of the
column pairs of LENGTH_COLUMNS (the generic format's, the Azure trace's, the Mooncake-style trace's); other columns
are ignored. Read by DuckDB where it lies; every length must be a whole number of at least 0."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import duckdb
import polars as pl

from assets.core.errors import IngestError

LENGTH_COLUMNS = (
    ("input_tokens", "output_tokens"),
    ("ContextTokens", "GeneratedTokens"),
    ("input_length", "output_length"),
)


def token_stats(side: str, tokens: pl.Series) -> dict[str, float | None]:
    """`<side>_tokens_mean`, p50, p90, p95, p99, cv and max of a column of lengths (None each when it has none)."""
    values = tokens.drop_nulls().cast(pl.Float64)
    if values.is_empty():
        return {f"{side}_tokens_{k}": None for k in ("mean", "p50", "p90", "p95", "p99", "cv", "max")}
    mean = cast(float, values.mean())
    std = cast(float | None, values.std(ddof=0))
    stats: dict[str, float | None] = {f"{side}_tokens_mean": mean}
    for q in (50, 90, 95, 99):
        stats[f"{side}_tokens_p{q}"] = values.quantile(q / 100, "linear")
    stats[f"{side}_tokens_cv"] = (std or 0.0) / mean if mean > 0 else None
    stats[f"{side}_tokens_max"] = cast(float, values.max())
    return stats


def _read(conn: duckdb.DuckDBPyConnection, path: str) -> pl.DataFrame:
    """Every row of `path` as text (JSON lines by extension or first character, else CSV), read by DuckDB."""
    with open(path, "rb") as handle:
        head = handle.read(1)
    if path.endswith((".jsonl", ".json")) or head == b"{":
        frame = conn.read_json(path, format="newline_delimited").pl()
        return frame.with_columns(pl.all().cast(pl.String))
    return conn.read_csv(path, header=True, all_varchar=True).pl()


def read_lengths_file(path: str) -> pl.DataFrame:
    """The input_tokens and output_tokens (Int64) of every row of a lengths file; IngestError naming the file, the
    columns expected, or the first row whose lengths are not whole numbers of at least 0."""
    if not Path(path).is_file():
        raise IngestError(f"{path}: workload.lengths_file does not exist")
    conn = duckdb.connect()
    try:
        raw = _read(conn, path)
    except (duckdb.Error, pl.exceptions.PolarsError) as exc:
        said = str(exc).splitlines()[0]
        raise IngestError(f"{path}: cannot read as a lengths file (CSV or JSON lines): {said}") from None
    finally:
        conn.close()
    pair = next((p for p in LENGTH_COLUMNS if set(p) <= set(raw.columns)), None)
    if pair is None:
        said = "; ".join(" and ".join(p) for p in LENGTH_COLUMNS)
        raise IngestError(
            f"{path}: a lengths file needs input and output token columns ({said}); found {sorted(raw.columns)}"
        )
    whole = lambda column: pl.col(column).str.strip_chars().cast(pl.Int64, strict=False)  # noqa: E731
    frame = raw.with_row_index("row", offset=1).select(
        "row",
        whole(pair[0]).alias("input_tokens"),
        whole(pair[1]).alias("output_tokens"),
        pl.col(pair[0]).alias("raw_in"),
        pl.col(pair[1]).alias("raw_out"),
    )
    bad = frame.filter(
        pl.col("input_tokens").is_null() | pl.col("output_tokens").is_null() | (pl.col("input_tokens") < 0)
        | (pl.col("output_tokens") < 0)
    )  # fmt: skip
    if bad.height:
        first: dict[str, Any] = bad.row(0, named=True)
        raise IngestError(
            f"{path}: row {first['row']} has {pair[0]} {first['raw_in']!r} and {pair[1]} {first['raw_out']!r}: "
            "expected whole numbers of tokens, at least 0"
        )
    if frame.is_empty():
        raise IngestError(f"{path}: a lengths file with no rows")
    return frame.select("input_tokens", "output_tokens")
