"""A profile's workload, resolved once (requirement.workload): the forms a team states lengths in and each refusal,
the distributions the calibrated replay draws from (stated percentiles replayed as stated), the rows and their
model, and the projected requests/s taken at the workload's output mean."""

import json

import duckdb
import numpy as np
import polars as pl
import pytest

from assets.calibrate.our_traffic import traffic_of
from assets.calibrate.traffic import Lengths
from assets.calibrate.workload import resolve
from assets.config.profiles import parse_profiles
from assets.core.errors import IngestError
from assets.warehouse.validate import split_valid
from schemas.requirement.workload import Workload
from tests.support.data import FIXTURES
from tests.support.sql_warehouse import (
    H100,
    delivered,
    load,
    point,
    profile_rows,
    project,
    reference_row,
    run_row,
    write_references,
)
from tests.support.workloads import workload_row

B200 = "nvidia-b200-sxm-180gb"
TRACE = FIXTURES / "traffic" / "trace.jsonl"
PERCENTILES = {"p50": 150, "p90": 600, "p99": 1500}
REPLAYED = 200_000  # lengths drawn to compare their percentiles with the statement
TOLERANCE = 0.03  # relative, on each replayed percentile


def stated(workload: dict, source: str = "/team/profiles.yaml") -> dict:
    """requirement.profiles' row of one profile with `workload:`."""
    entry = {"name": "p", "model": "llama3.1-8b", "slo": {"ttft_p95_ms": 1000}, "delivered_fraction_prior": [0.5, 0.8]}
    (row,), _bounds = parse_profiles({"profiles": [entry | {"workload": workload}]}, source)
    return row


def side(row: dict, name: str) -> dict | None:
    text = row[f"{name}_tokens_stated"]
    return json.loads(text) if text else None


# --- the forms ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value,expected",
    [
        (128, {"kind": "fixed", "mean": 128.0}),
        ({"fixed": 128}, {"kind": "fixed", "mean": 128.0}),
        ({"mean": 200, "cv": 1.5}, {"kind": "lognormal", "mean": 200.0, "cv": 1.5}),
        (PERCENTILES, {"kind": "percentiles", "p50": 150.0, "p90": 600.0, "p99": 1500.0}),
    ],
)
def test_each_form_of_a_length_is_read_as_what_it_states(value, expected):
    assert side(stated({"output_tokens": value}), "output") == expected


def test_the_old_mean_keys_keep_working_as_lognormal_with_an_assumed_cv_of_one():
    row = stated({"input_tokens_mean": 550, "output_tokens_mean": 150})
    assert side(row, "input") == {"kind": "lognormal", "mean": 550.0, "cv": 1.0, "cv_assumed": True}
    basis = resolve(row | {"profile": "p"}, None)["lengths_basis"]
    assert basis == "stated: input lognormal mean 550, CV 1 (assumed); output lognormal mean 150, CV 1 (assumed)"


def test_a_lengths_file_is_resolved_against_the_profiles_folder():
    assert stated({"lengths_file": "data/lengths.csv"})["lengths_file"] == "/team/data/lengths.csv"


@pytest.mark.parametrize(
    "workload,message",
    [
        (
            {"output_tokens": 64, "output_tokens_mean": 64},
            "profile 'p': workload.output_tokens and workload.output_tokens_mean both state the output lengths",
        ),
        ({"output_tokens": {"mean": 64}}, "workload.output_tokens has keys ['mean']; expected a number (fixed) or one"),
        ({"input_tokens": {"p50": 600, "p90": 150, "p99": 1500}}, "percentiles must rise: p50 <= p90 <= p99"),
        ({"input_tokens": {"p50": 1, "p90": 2, "p99": 2e7}}, "workload.input_tokens.p99 must be a number above 0"),
        ({"input_tokens": {"mean": 200, "cv": -1}}, "workload.input_tokens.cv must be a number from 0 to 100"),
        ({"output_tokens": "many"}, "workload.output_tokens must be a number above 0"),
        (
            {"lengths_file": "l.csv", "traffic_log": "log.csv", "requests_per_day": 100},
            "workload.lengths_file and workload.traffic_log both give the lengths",
        ),
        (
            {"lengths_file": "l.csv", "output_tokens": 64},
            "workload.lengths_file and workload.output_tokens both state the lengths",
        ),
    ],
)
def test_each_refusal_names_the_file_the_profile_and_the_key(workload, message):
    with pytest.raises(IngestError) as refused:
        stated(workload)
    assert str(refused.value).startswith("/team/profiles.yaml: profile 'p': ") and message in str(refused.value)


# --- the distributions the replay draws from -----------------------------------------------------------------------


def replayed(**sides) -> tuple[np.ndarray, np.ndarray]:
    """The input and output lengths the calibrated replay draws for a profile stating `sides`."""
    traffic = traffic_of(workload_row(**sides))
    rng = np.random.default_rng(5)
    return traffic.input_tokens.sample(REPLAYED, rng), traffic.output_tokens.sample(REPLAYED, rng)


def test_fixed_lengths_are_replayed_as_stated():
    inputs, outputs = replayed(inputs={"kind": "fixed", "mean": 1000.0}, outputs={"kind": "fixed", "mean": 128.0})
    assert set(inputs) == {1000} and set(outputs) == {128}


def test_stated_percentiles_are_replayed_through_each_stated_point():
    inputs, outputs = replayed(inputs={"kind": "percentiles", **PERCENTILES}, outputs={"kind": "fixed", "mean": 64.0})
    for q, value in PERCENTILES.items():
        assert np.percentile(inputs, int(q[1:])) == pytest.approx(value, rel=TOLERANCE), q
    assert set(outputs) == {64}


def test_the_percentiles_distribution_states_its_own_mean_and_a_capped_tail():
    lengths = Lengths.percentiles(150, 600, 1500)
    drawn = lengths.sample(REPLAYED, np.random.default_rng(3))
    assert drawn.mean() == pytest.approx(lengths.mean, rel=TOLERANCE) and drawn.max() <= 15_000
    assert [lengths.quantile(q) for q in (0.5, 0.9, 0.99)] == pytest.approx([150, 600, 1500])
    with pytest.raises(ValueError, match="p50 <= p90 <= p99"):
        Lengths.percentiles(600, 150, 1500)


# --- requirement.workload rows --------------------------------------------------------------------------------------


def test_a_log_with_lengths_beside_stated_lengths_is_refused_naming_both_keys_and_the_file():
    with pytest.raises(IngestError) as refused:
        workload_row(traffic_log=str(TRACE))  # CHAT_OUTPUTS: stated by the old output_tokens_mean key
    message = str(refused.value)
    assert f"workload.traffic_log {TRACE} has input lengths" in message
    assert "workload.input_tokens_mean states them too" in message and "profile 'chat'" in message


def test_a_log_gives_lengths_and_arrivals_and_stated_lengths_fill_only_what_it_lacks(tmp_path):
    row = workload_row(traffic_log=str(TRACE), inputs=None, outputs=None)
    assert (row["source"], row["input_tokens_kind"], row["arrival_source"]) == ("log", "empirical_log", "log")
    assert row["output_tokens_max"] == 300 and row["lengths_basis"].startswith("the log's 8 requests (mean ")
    bare = tmp_path / "arrivals.csv"
    bare.write_text("start_offset_s,input_tokens,output_tokens\n" + "".join(f"{i * 0.7:.1f},,\n" for i in range(40)))
    filled = workload_row(traffic_log=str(bare), outputs={"kind": "fixed", "mean": 128.0})
    assert (filled["source"], filled["output_tokens_kind"], filled["output_tokens_mean"]) == (
        "log_and_stated",
        "fixed",
        128.0,
    )
    assert filled["input_tokens_kind"] == "lognormal" and "output stated, fixed at 128" in filled["lengths_basis"]


def test_a_lengths_file_gives_the_lengths_and_the_stated_cv_the_arrivals(tmp_path):
    lengths = tmp_path / "dataset.csv"
    lengths.write_text("prompt_id,input_tokens,output_tokens\n" + "".join(f"{i},{100 * i},{i}\n" for i in range(1, 11)))
    row = workload_row(inputs=None, outputs=None, lengths_file=str(lengths), arrival_cv=2.0)
    assert (row["source"], row["output_tokens_kind"], row["output_tokens_mean"]) == (
        "lengths_file",
        "empirical_file",
        5.5,
    )
    assert (row["arrival_source"], row["arrival_cv"], row["output_tokens_max"]) == ("stated", 2.0, 10.0)
    traffic = traffic_of(row)
    assert traffic.arrival_cv == 2.0 and set(traffic.output_tokens.values) == set(range(1, 11))
    trace = tmp_path / "dataset.jsonl"  # a Mooncake-style trace's lengths, its timestamps not ours
    trace.write_text("".join(f'{{"timestamp": {i}, "input_length": {i * 10}, "output_length": 7}}\n' for i in range(4)))
    from_trace = workload_row(inputs=None, outputs=None, lengths_file=str(trace))
    assert (from_trace["input_tokens_mean"], from_trace["output_tokens_p99"]) == (15.0, 7.0)
    lengths.write_text("input_tokens,output_tokens\n10,5\n10,-5\n")
    with pytest.raises(IngestError, match=r"dataset.csv: row 2 has input_tokens '10' and output_tokens '-5'"):
        workload_row(inputs=None, outputs=None, lengths_file=str(lengths))


def test_a_stated_workload_row_says_its_arrivals_and_volume():
    row = workload_row(arrival_cv=None)
    assert (row["source"], row["arrival_source"], row["arrival_cv"], row["mean_requests_per_s"]) == (
        "stated",
        "assumed",
        None,
        25.0,
    )
    assert row["basis"].endswith("arrivals: Poisson (CV 1 assumed: no workload.arrival_cv), no volume stated")


def test_the_workload_model_passes_a_good_frame_and_quarantines_a_bad_row():
    good = {k: v for k, v in workload_row().items() if k in Workload.to_schema().columns}
    bad = good | {"profile": "other", "input_tokens_kind": "guessed", "output_tokens_mean": -1.0}
    valid, rejects = split_valid(pl.DataFrame([good, bad]), Workload, "requirement.workload")
    assert valid.height == 1 and len(rejects) == 1
    assert "input_tokens_kind" in rejects[0].reason and rejects[0].row["profile"] == "other"


# --- the projected requests/s read the workload ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "output,per_request,basis",
    [
        ({"kind": "fixed", "mean": 100.0}, 100.0, "the workload's output mean (100.0 tokens; stated: "),
        (None, 250.0, "MLPerf TOKENS_PER_SAMPLE of the reference result (fallback: the profile states no output"),
    ],
)
def test_projected_requests_per_s_divide_by_the_workloads_output_mean(tmp_path, output, per_request, basis):
    """A run of ours on H100 learns the fraction; B200, never run, is projected: its MLPerf tokens/s x that fraction,
    over the workload's output mean (or, with no output lengths stated, MLPerf's tokens per sample, labelled)."""
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    (profile,), bounds = profile_rows()
    profile.update(output_tokens_stated=json.dumps(output) if output else None)
    load(conn, [run_row("a")], [point("a", 0, 10, 100), point("a", 1, 20, 2100)], [profile], bounds)
    delivered(conn)
    write_references(conn, [reference_row(H100), reference_row(B200, 4000.0) | {"output_tokens_per_sample": 250.0}])
    (row,) = project(conn).iter_rows(named=True)
    conn.close()
    assert row["output_tokens_per_request"] == per_request and row["output_tokens_basis"].startswith(basis)
    tokens = row["delivered_output_tokens_per_s_low"]
    assert tokens == pytest.approx(4000 * 8 * 10 * 50 / 1000)  # the run's 10 req/s x 50 tokens / MLPerf's 1000
    assert row["delivered_requests_per_s_low"] == pytest.approx(tokens / per_request)
