"""The load generator's own settings (rate, concurrency cap, prompt count, seed) are the sweep's axis, not the config:
a vLLM sweep run as `--request-rate R --max-concurrency 32R` is one run with one load level per rate, each carrying
its cap, and one delivered band that finds the SLO crossing between levels. Files at one rate with different caps
stay apart; burstiness and the workload still separate runs."""

import json
from pathlib import Path

import duckdb
import polars as pl
import pytest

from assets.formats.dumps.exchange import CAP, LOAD_GENERATOR_SETTINGS, Measurement, Parsed, load_cap
from assets.inputs.files import Fetched
from assets.runs.assemble import Point, Read, Run, split_configs
from assets.runs.collect import collect_all
from assets.warehouse.sqlfiles import run_sql_file
from assets.warehouse.write import write_table
from schemas.observed.delivered_at_slo import DeliveredAtSlo
from schemas.requirement.profiles import Profiles
from schemas.requirement.slo_bounds import SloBounds
from tests.support.data import FIXTURES
from tests.support.observed import build, dumps_folder, points

SWEEP = FIXTURES / "vllm-capped-sweep"


@pytest.fixture
def conn(tmp_path):
    connection = duckdb.connect(str(tmp_path / "build.duckdb"))
    yield connection
    connection.close()


def _profile(conn: duckdb.DuckDBPyConnection, ttft_p95_ms: float, tpot_p95_ms: float) -> None:
    profile = {c: None for c in Profiles.to_schema().columns}
    profile.update(
        profile="chat",
        model_raw="llama3.1-8b",
        model_id="llama-3.1-8b-instruct",
        model_known=True,
        model_key="llama-3.1-8b-instruct",
        delivered_fraction_prior_low=0.5,
        delivered_fraction_prior_high=0.8,
        error_rate_max=0.01,
        output_tokens_stated='{"kind": "fixed", "mean": 16.0}',
        peak_window_s=60.0,
        min_replicas=1,
        slo_text="p95 TTFT <= 1 s, p95 TPOT <= 50 ms",
        source="test",
        evidence="requirement",
    )
    bounds = [
        {"profile": "chat", "measure": "ttft_p95_ms", "bound": ttft_p95_ms},
        {"profile": "chat", "measure": "tpot_p95_ms", "bound": tpot_p95_ms},
        {"profile": "chat", "measure": "error_rate", "bound": 0.01},
    ]
    write_table(conn, "requirement.profiles", pl.DataFrame([profile]), Profiles)
    write_table(conn, "requirement.slo_bounds", pl.DataFrame(bounds), SloBounds)


def test_a_sweep_with_the_cap_scaled_with_the_rate_is_one_run_with_a_level_per_rate(tmp_path, conn):
    raw = sorted((json.loads(p.read_bytes()) for p in SWEEP.glob("*.json")), key=lambda r: r["request_rate"])
    assert [(r["request_rate"], r["max_concurrency"]) for r in raw] == [(1, 32), (2, 64), (4, 128), (8, 256)]
    batch = collect_all([str(dumps_folder(tmp_path / "dumps", {"sweep": SWEEP}))])
    (run,) = batch.runs
    assert (run["run_label"], run["load_points"], run["repeats_max"]) == ("sweep", 4, 1)
    assert "max_concurrency" not in json.loads(run["workload"]) and "num_prompts" not in json.loads(run["workload"])
    build(conn, batch)
    levels = points(conn)
    assert [(p["offered_rate_per_s"], p["max_concurrency"]) for p in levels] == [
        (r["request_rate"], r["max_concurrency"]) for r in raw
    ]
    assert [p["achieved_requests_per_s"] for p in levels] == pytest.approx([r["request_throughput"] for r in raw])

    _profile(conn, ttft_p95_ms=1000.0, tpot_p95_ms=50.0)
    frame = run_sql_file(conn, "observed/delivered_at_slo.sql")
    write_table(conn, "observed.delivered_at_slo", frame, DeliveredAtSlo)
    (band,) = frame.iter_rows(named=True)
    assert band["feasible"] and band["slo_crossed"] and band["binding_measure"] == "ttft_p95_ms"
    assert (band["low_load_index"], band["failing_load_index"]) == (2, 3)
    (low_ttft, fail_ttft) = (
        conn.execute(
            "SELECT ci_low FROM observed.load_point_measures WHERE measure = 'ttft_p95_ms' AND load_index = ?", [i]
        ).fetchone()[0]
        for i in (2, 3)
    )
    low_rate, fail_rate = levels[2]["achieved_requests_per_s"], levels[3]["achieved_requests_per_s"]
    assert band["delivered_requests_per_s_low"] == pytest.approx(low_rate)
    assert band["delivered_requests_per_s_high"] == pytest.approx(
        low_rate + (1000.0 - low_ttft) / (fail_ttft - low_ttft) * (fail_rate - low_rate)
    )
    assert low_rate < band["delivered_requests_per_s_high"] < fail_rate


# ---- split_configs on measurements as the vLLM reader gives them -------------------------------------------------


def _point(name: str, rate: float, workload: dict, server: dict | None = None) -> Point:
    fetched = Fetched(name, b"{}", name * 2)
    parsed = Parsed("vllm bench serve result", "vllm", "d")
    m = Measurement(name, "rate", rate, workload.get("max_concurrency"), {}, workload=workload)
    m.server_settings = server or {}
    parsed.measurements.append(m)
    return Point(Read(fetched, Path("."), parsed), m)  # type: ignore[arg-type]


def _run(pts: list[Point]) -> Run:
    config = {"runtime_settings": None, "tool_version": None, "load_kind": "rate"}
    return Run(Path("/d"), Path("."), "vllm", config, "r", "run-x", "c", ["run.yaml"], [p.read for p in pts], pts)


def test_rate_cap_prompt_count_and_seed_are_the_axis_and_repeats_at_one_level():
    base = {"backend": "openai", "burstiness": 1.0}
    pts = [
        _point(f"{rate}.json", rate, {**base, "max_concurrency": int(32 * rate), "num_prompts": int(100 * rate)})
        for rate in (1, 2, 4)
    ] + [_point("4-again.json", 4, {**base, "max_concurrency": 128, "num_prompts": 200, "seed": 7})]
    (run,) = split_configs(_run(pts))
    assert (run.label, run.run_id, len(run.points), run.workload) == ("r", "run-x", 4, base)


def test_caps_that_differ_at_one_rate_stay_apart_by_cap():
    base = {"backend": "openai", "burstiness": 1.0}
    pts = [_point(f"c{cap}.json", 10, {**base, "max_concurrency": cap}) for cap in (1, 16, 256)]
    runs = split_configs(_run(pts))
    assert sorted(r.label for r in runs) == [
        "r [max_concurrency=16]",
        "r [max_concurrency=1]",
        "r [max_concurrency=256]",
    ]
    assert all(len(r.points) == 1 and r.workload["max_concurrency"] for r in runs)


def test_burstiness_and_the_workload_still_separate_runs():
    pts = [
        _point("a.json", 1, {"burstiness": 1.0, "max_concurrency": 32}),
        _point("b.json", 2, {"burstiness": 1.0, "max_concurrency": 64}),
        _point("c.json", 1, {"burstiness": 0.5, "max_concurrency": 32}),
        _point("d.json", 2, {"burstiness": 0.5, "max_concurrency": 64, "dataset_name": "sharegpt"}),
    ]
    runs = {r.label: len(r.points) for r in split_configs(_run(pts))}
    assert runs == {
        "r [burstiness=0.5 dataset_name=sharegpt]": 1,
        "r [burstiness=0.5]": 1,
        "r [burstiness=1.0]": 2,
    }


def test_every_tool_names_its_load_generator_settings_in_one_table():
    assert {"vllm", "sglang", "guidellm", "aiperf", "genai-perf", "llmperf", "inference-perf", "mlperf-loadgen"} <= set(
        LOAD_GENERATOR_SETTINGS
    )
    assert [k for k, role in LOAD_GENERATOR_SETTINGS["vllm"].items() if role == CAP] == ["max_concurrency"]
    assert load_cap("vllm", {"max_concurrency": "64"}) == 64.0 and load_cap("vllm", {"max_concurrency": "x"}) is None
    assert load_cap("guidellm", {"max_concurrency": 64}) is None  # not a setting GuideLLM writes into the workload


def test_a_capped_and_an_uncapped_file_at_one_rate_are_not_repeats():
    pts = [
        _point("capped.json", 10, {"burstiness": 1.0, "max_concurrency": 25}),
        _point("open.json", 10, {"burstiness": 1.0}),
    ]
    assert sorted(r.label for r in split_configs(_run(pts))) == ["r [max_concurrency=25]", "r [unstated]"]
