"""Our traffic's shape: the arrival pattern and token mix of a production request log.

A profile names its log with `workload.traffic_log` (a file in the generic per-request format,
see `assets.formats.dumps.generic`; only arrival times and token counts are needed). From it:
the rate over time (requests per window), the mean and peak rate and their ratio, the coefficient of
variation of the inter-arrival gaps (0 = evenly spaced, 1 = Poisson, above 1 = bursty), the gamma
shape fitted to the gaps by maximum likelihood (vLLM's `--burstiness`: 1 = Poisson, below 1 =
burstier), and the input/output token mix. The shortlist compares it with the pattern each
measurement was taken under. Column-wise in polars: a long log never becomes Python objects."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import duckdb
import polars as pl

from assets.core.errors import IngestError
from assets.core.records import SourceFile
from assets.formats.dumps import generic
from assets.formats.dumps.decode import decode
from assets.formats.dumps.model import FormatProblem
from assets.inputs.files import read_dump_file, size_of
from assets.warehouse.query import query_frame
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.write import WriteReport, write_table
from schemas.requirement.traffic_rate import TrafficRate
from schemas.requirement.traffic_shape import TrafficShape


def window_seconds(span_s: float) -> float:
    """Rate windows: a twentieth of the log, between 1 s and 60 s."""
    return float(min(60, max(1, math.floor(span_s / 20)))) if span_s > 0 else 1.0


def _number(value: Any) -> float:
    """A polars aggregate of a numeric series (typed by polars as any Python value) as the float it is."""
    return cast(float, value)


def gamma_shape(gaps: pl.Series) -> float | None:
    """Maximum-likelihood gamma shape of positive gaps (Minka's closed-form approximation)."""
    positive = gaps.filter(gaps > 0)
    if positive.len() < 2:
        return None
    s = math.log(_number(positive.mean())) - _number(positive.log().mean())
    if s <= 0:
        return None
    return (3 - s + math.sqrt((s - 3) ** 2 + 24 * s)) / (12 * s)


def shape_of(frame: pl.DataFrame) -> tuple[dict[str, Any], pl.DataFrame]:
    """The arrival pattern and token mix of a request frame (generic columns), and its rate windows."""
    starts = frame.get_column("start_offset_s").drop_nulls().sort()
    if starts.len() < 3:
        raise FormatProblem(f"{starts.len()} requests with a start time: too few for an arrival pattern")
    span = float(starts[-1] - starts[0])
    gaps = starts.diff().drop_nulls()
    window = window_seconds(span)
    counts = (
        pl.DataFrame({"t": starts - starts[0]})
        .with_columns((pl.col("t") // window).cast(pl.Int64).alias("w"))
        .group_by("w")
        .len()
        .sort("w")
    )
    full = pl.DataFrame({"w": pl.int_range(0, max(1, int(span // window)), eager=True)})
    windows = full.join(counts, on="w", how="left").with_columns(pl.col("len").fill_null(0))
    mean_rate = (starts.len() - 1) / span if span > 0 else None
    tokens_in, tokens_out = frame.get_column("input_tokens"), frame.get_column("output_tokens")
    peak = _number(windows.get_column("len").max()) / window
    shape = {
        "requests": starts.len(),
        "span_s": span,
        "mean_rate_per_s": mean_rate,
        "window_s": window,
        "peak_rate_per_s": peak,
        "peak_to_mean": peak / mean_rate if mean_rate else None,
        "interarrival_cv": float(_number(gaps.std()) / _number(gaps.mean())) if gaps.mean() else None,
        "gamma_shape": gamma_shape(gaps),
        "input_tokens_mean": tokens_in.mean(),
        "input_tokens_p50": tokens_in.quantile(0.5, "linear"),
        "input_tokens_p95": tokens_in.quantile(0.95, "linear"),
        "output_tokens_mean": tokens_out.mean(),
        "output_tokens_p50": tokens_out.quantile(0.5, "linear"),
        "output_tokens_p95": tokens_out.quantile(0.95, "linear"),
    }
    rates = windows.select(
        (pl.col("w") * window).cast(pl.Float64).alias("window_start_s"),
        pl.col("len").cast(pl.Int64).alias("requests"),
        (pl.col("len") / window).alias("rate_per_s"),
    )
    return shape, rates


def read_traffic_log(path: str) -> tuple[dict[str, Any], pl.DataFrame, SourceFile]:
    """The shape of one traffic log, read by DuckDB where it lies (a large log is hashed as it streams past,
    never held in memory, as the dumps' per-request files are)."""
    fetched = read_dump_file(Path(path))
    try:
        frame = generic.read_requests(decode(fetched, str(path)))
        shape, rates = shape_of(frame)
    except (FormatProblem, pl.exceptions.PolarsError) as problem:
        raise IngestError(
            f"{path}: not a usable traffic log ({problem}); expected the generic per-request "
            "format with start_time_unix_s or start_offset_s, input_tokens, output_tokens"
        ) from None
    shape["source_sha256"] = fetched.sha256
    return (
        shape,
        rates,
        SourceFile(fetched.name, fetched.sha256, size_of(fetched), "traffic log", "read", rows=shape["requests"]),
    )


def write_traffic(conn: duckdb.DuckDBPyConnection, log: Callable[[str], None]) -> tuple[WriteReport, WriteReport]:
    """requirement.traffic_shape and requirement.traffic_rate from the traffic log of every profile that names
    one (requirement.profiles); IngestError naming the profile when its log does not exist."""
    logs = query_frame(
        conn, "SELECT profile, traffic_log FROM requirement.profiles WHERE traffic_log IS NOT NULL ORDER BY profile"
    )
    shapes, rate_frames, files = [], [], []
    for profile, path in logs.iter_rows():
        if not Path(path).exists():
            raise IngestError(f"profile {profile!r}: workload.traffic_log {path} does not exist")
        shape, rates, file = read_traffic_log(path)
        shapes.append({"profile": profile, "traffic_log": path, **shape, "evidence": "requirement"})
        rate_frames.append(rates.with_columns(pl.lit(profile).alias("profile")))
        files.append(file)
        log(f"traffic of {profile}: {shape['requests']} requests, CV {shape['interarrival_cv']:.2f}")
    report = write_table(
        conn, "requirement.traffic_shape", frame_from_rows(shapes, TrafficShape), TrafficShape, [], files
    )
    rates = (
        pl.concat(rate_frames).select("profile", "window_start_s", "requests", "rate_per_s")
        if rate_frames
        else frame_from_rows([], TrafficRate)
    )
    return report, write_table(conn, "requirement.traffic_rate", rates, TrafficRate)
