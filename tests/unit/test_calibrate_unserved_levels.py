"""What was not served is never fitted, so never billed: a load level that completed nothing, or under half of the
requests sent to it (SERVED_SHARE_MIN), is left out of its config's fit and named on calibrated.engine_models; a
config none of whose levels served anything is not_calibrated with why, and its profile rows never bill."""

import duckdb
import pytest

from assets.calibrate.levels import SERVED_SHARE_MIN, read_configs
from assets.calibrate.our_traffic import project_pair
from assets.calibrate.tables import calibrate_config, model_row

RUN_COLUMNS = (
    "run_id, run_label, tool, accelerator_raw, accelerator_id, accelerator_count, model_raw, model_id, model_key, "
    "precision, runtime, runtime_version, runtime_settings, workload, arrival"
)
POINT_COLUMNS = (
    "run_id, load_index, load_kind, offered_rate_per_s, concurrency, achieved_requests_per_s, repeats, requests_sent, "
    "requests_ok, error_rate, input_tokens_mean, output_tokens_mean, ttft_p50_ms, tpot_p50_ms"
)


def run(run_id: str, accelerator: str) -> str:
    return (
        f"('{run_id}', '{run_id}', 'vllm', '{accelerator}', '{accelerator}', 1, 'llama', 'llama-3.1-8b', "
        "'llama-3.1-8b', 'bf16', "
        "'vLLM', '0.11.0', '{}', '{}', 'poisson')"
    )


def point(run_id: str, index: int, rate: float, achieved: float, sent: int, ok: int) -> str:
    """A level at `rate` requests/s, `ok` of `sent` requests completed, none failed (error rate 0, as a tool that
    counts only failures reports a server that dropped requests), 40 ms TTFT and 10 ms TPOT."""
    values = f"{rate}::DOUBLE, NULL::DOUBLE, {achieved}::DOUBLE, 1, {sent}, {ok}, 0.0::DOUBLE"
    return f"('{run_id}', {index}, 'rate', {values}, 200.0::DOUBLE, 64.0::DOUBLE, 40.0::DOUBLE, 10.0::DOUBLE)"


@pytest.fixture(scope="module")
def warehouse() -> duckdb.DuckDBPyConnection:
    """Two configs: a sweep of six levels, one of which completed nothing and one 40 of the 100 requests sent; and a
    server that completed nothing at any of its three levels (the achieved rate 0 a dead endpoint gives)."""
    conn = duckdb.connect()
    conn.execute("CREATE SCHEMA observed")
    conn.execute(
        f"CREATE TABLE observed.runs AS SELECT * FROM (VALUES {run('sweep', 'h100')}, {run('dead', 'a100')}) "
        f"AS t({RUN_COLUMNS})"
    )
    points = [point("sweep", i, rate, rate * 0.98, 100, 100) for i, rate in enumerate((1.0, 2.0, 4.0, 8.0))]
    points += [point("sweep", 4, 16.0, 0.0, 100, 0), point("sweep", 5, 32.0, 6.0, 100, 40)]
    points += [point("dead", i, rate, 0.0, 100, 0) for i, rate in enumerate((4.0, 5.0, 6.0))]
    conn.execute(
        f"CREATE TABLE observed.load_points AS SELECT * FROM (VALUES {', '.join(points)}) AS t({POINT_COLUMNS})"
    )
    conn.execute(
        "CREATE TABLE observed.requests AS SELECT 'sweep' AS run_id, 0 AS load_index, 200 AS input_tokens, "
        "64 AS output_tokens, 'ok' AS status, 'measure' AS phase"
    )
    return conn


def test_a_level_that_completed_nothing_or_under_half_is_left_out_of_the_fit_and_said(warehouse):
    sweep, dead = sorted(read_configs(warehouse), key=lambda c: c.accelerator != "h100")
    assert [lv.load_index for lv in sweep.levels] == [0, 1, 2, 3]
    assert SERVED_SHARE_MIN == 0.5
    assert sweep.unserved == [
        "sweep level 4 (16 requests/s): completed nothing (achieved 0 requests/s, 0 of 100 requests sent completed)",
        "sweep level 5 (32 requests/s): completed 40 of the 100 requests sent (40%, under 50%)",
    ]
    assert dead.levels == [] and len(dead.unserved) == 3


def test_a_config_that_served_nothing_is_not_calibrated_with_why_and_never_bills(warehouse):
    dead = next(c for c in read_configs(warehouse) if c.accelerator == "a100")
    model = model_row(calibrate_config(dead))
    assert model["status"] == "not_calibrated" and model["load_levels"] == 0
    assert model["status_reason"].startswith("no load level served anything: 3 load levels not served, not fitted")
    assert "dead level 0 (4 requests/s): completed nothing" in model["status_reason"]
    assert model["step_b0_ms"] is None
    delivered, curve = project_pair({"profile": "chat"}, {"ttft_p95_ms": 1000.0}, model, [])
    assert delivered["status"] == "not_calibrated" and not delivered["bills"] and curve == []
    assert "no load level served anything" in delivered["status_reason"]
