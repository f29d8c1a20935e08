"""pandera models at the asset boundary: good frames pass, bad rows are quarantined, bad shapes fail."""

import datetime

import duckdb
import pandera.polars as pa
import polars as pl
import pytest

from assets.core.errors import SchemaMismatch
from assets.warehouse.validate import split_valid
from assets.warehouse.write import write_table
from schemas.benchmark.accelerator_prices import AcceleratorPrices
from schemas.observed.load_points import LoadPoints
from schemas.requirement.slo_bounds import SloBounds


def price(**changes):
    row = {
        "accelerator_raw": "H100-SXM",
        "accelerator_id": "nvidia-h100-sxm-80gb",
        "accelerator_known": True,
        "price_class": "on_demand",
        "usd_per_accelerator_hour": 2.99,
        "price_provider": "Lambda",
        "price_source": "a page",
        "price_as_of": datetime.date(2026, 5, 18),
        "source": "prices.csv",
        "source_row": 0,
        "evidence": "benchmark",
    }
    row.update(changes)
    return row


def test_good_frame_passes_unchanged():
    frame = pl.DataFrame([price(), price(price_provider="RunPod", usd_per_accelerator_hour=3.49)])
    valid, rejects = split_valid(frame, AcceleratorPrices, "benchmark.accelerator_prices")
    assert valid.height == 2 and rejects == []


@pytest.mark.parametrize(
    "changes,column",
    [
        ({"usd_per_accelerator_hour": -1.0}, "usd_per_accelerator_hour"),
        ({"usd_per_accelerator_hour": float("inf")}, "usd_per_accelerator_hour"),
        ({"price_class": "whenever"}, "price_class"),
        ({"evidence": "observed"}, "evidence"),
    ],
)
def test_bad_rows_become_rejects_with_the_failed_check(changes, column):
    frame = pl.DataFrame([price(), price(price_provider="Other", **changes)])
    valid, rejects = split_valid(frame, AcceleratorPrices, "benchmark.accelerator_prices")
    assert valid.height == 1 and len(rejects) == 1
    assert column in rejects[0].reason and rejects[0].row["price_provider"] == "Other"


def test_missing_column_is_a_whole_table_error():
    frame = pl.DataFrame([price()]).drop("price_as_of")
    with pytest.raises(SchemaMismatch, match=r"missing \['price_as_of'\]"):
        split_valid(frame, AcceleratorPrices, "benchmark.accelerator_prices")


def test_slo_measure_names_are_checked():
    frame = pl.DataFrame({"profile": ["p", "p"], "measure": ["ttft_p95_ms", "ttft_p42_ms"], "bound": [1000.0, 5.0]})
    valid, rejects = split_valid(frame, SloBounds, "requirement.slo_bounds")
    assert valid["measure"].to_list() == ["ttft_p95_ms"] and "measure" in rejects[0].reason


def test_write_table_replaces_and_quarantines_in_one_go(tmp_path):
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    frame = pl.DataFrame([price(), price(price_provider="Bad", usd_per_accelerator_hour=0.0)])
    report = write_table(conn, "benchmark.accelerator_prices", frame, AcceleratorPrices)
    assert (report.rows, report.quarantined) == (1, 1)
    again = write_table(conn, "benchmark.accelerator_prices", frame, AcceleratorPrices)
    assert again.rows == 1
    assert conn.execute("SELECT count(*) FROM benchmark.accelerator_prices").fetchone() == (1,)
    assert conn.execute(
        "SELECT count(*), any_value(reason) LIKE '%usd_per_accelerator_hour%' FROM audit.quarantine"
    ).fetchone() == (1, True)


def test_load_point_latency_bounds():
    columns = LoadPoints.to_schema().columns
    assert "ttft_p95_ms" in columns and "achieved_requests_per_s" in columns
    row = {name: None for name in columns}
    row.update(
        run_id="r",
        load_index=0,
        load_kind="rate",
        achieved_requests_per_s=1.0,
        achieved_requests_per_s_min=1.0,
        achieved_requests_per_s_max=1.0,
        requests_sent=1,
        requests_ok=1,
        requests_failed=0,
        error_rate=0.0,
        percentile_source="tool_aggregate",
        percentile_estimator="e",
        repeats=1,
        tool_definitions="d",
        source="s",
        source_sha256="x",
        evidence="observed",
    )
    bad = dict(row, load_index=1, ttft_p95_ms=-5.0)
    frame = pl.DataFrame([row, bad], schema_overrides={c: pl.Float64 for c in columns if c.endswith("_ms")})
    valid, rejects = split_valid(frame, LoadPoints, "observed.load_points")
    assert valid.height == 1 and "ttft_p95_ms" in rejects[0].reason


def pandera_failing_rows(frame, model):
    """The rows pandera's own (full) validation fails."""
    try:
        model.validate(frame, lazy=True)
    except pa.errors.SchemaErrors as errors:
        return sorted({int(i) for i in errors.failure_cases.get_column("index").drop_nulls()})
    return []


@pytest.mark.parametrize(
    "changes",
    [
        {"usd_per_accelerator_hour": -1.0},  # greater_than / ge
        {"usd_per_accelerator_hour": float("inf")},  # less_than
        {"usd_per_accelerator_hour": float("nan")},  # NaN in a non-nullable float is a null
        {"price_class": "whenever"},  # isin
        {"price_provider": "Lambda"},  # a second row with the same key: uniqueness
        {"evidence": None},  # not nullable
    ],
)
def test_the_checks_run_in_sql_give_pandera_s_verdicts(changes):
    """split_valid lets pandera check the schema and DuckDB run the model's data checks (compiled to SQL):
    every row pandera's full validation fails is rejected, and only those."""
    frame = pl.DataFrame([price(), price(price_provider="Other"), price(**{"price_provider": "Third", **changes})])
    _valid, rejects = split_valid(frame, AcceleratorPrices, "benchmark.accelerator_prices")
    assert sorted(int(r.location.split()[1]) for r in rejects) == pandera_failing_rows(frame, AcceleratorPrices)
    assert rejects


def test_string_checks_in_sql_match_pandera():
    frame = pl.DataFrame(
        {
            "profile": ["p", "p", "q"],
            "measure": ["ttft_p95_ms", "ttft_p95_ms_x", "error_rate"],
            "bound": [1.0, 2.0, 0.1],
        }
    )
    _valid, rejects = split_valid(frame, SloBounds, "requirement.slo_bounds")
    assert [r.location for r in rejects] == ["row 1"] == [f"row {i}" for i in pandera_failing_rows(frame, SloBounds)]
