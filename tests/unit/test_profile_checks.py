"""A profiles file is checked before any step runs: a wrong key is named with the allowed ones, an SLO bound outside
its plausible range is a warning saying which unit was probably meant, and a model nothing serves gets a "did you
mean" naming the closest served names."""

import pytest

from assets.config.profiles import WORKLOAD_KEYS, check_profiles, slo_warnings
from assets.core.errors import IngestError
from assets.report.decision import model_hint

PROFILE = """\
profiles:
  - name: chat
    model: meta-llama/Llama-3.1-8B-Instruct
    slo: {{{slo}}}
    delivered_fraction_prior: [0.5, 0.8]
    workload: {{{workload}}}
"""


def write(tmp_path, slo="ttft_p95_ms: 1000, tpot_p95_ms: 50", workload="input_tokens_mean: 200"):
    path = tmp_path / "profiles.yaml"
    path.write_text(PROFILE.format(slo=slo, workload=workload))
    return path


def test_a_misspelt_workload_key_is_named_with_the_allowed_ones(tmp_path):
    with pytest.raises(IngestError) as raised:
        check_profiles(write(tmp_path, workload="input_tokens_mean: 200, outptu_tokens_mean: 64"))
    assert f"profile 'chat': unknown workload keys ['outptu_tokens_mean']; allowed {sorted(WORKLOAD_KEYS)}" in str(
        raised.value
    )


@pytest.mark.parametrize(
    ("slo", "said"),
    [
        ("ttft_p99_ms: 1", "slo.ttft_p99_ms = 1 ms is under 10 ms: seconds meant? (1 s is 1000 ms)"),
        (
            "ttft_p95_ms: 900000",
            "slo.ttft_p95_ms = 900000 ms is over 10 minutes: microseconds meant? (900000 us is 900 ms)",
        ),
        ("tpot_p95_ms: 0.05", "slo.tpot_p95_ms = 0.05 ms is under 1 ms: seconds meant? (0.05 s is 50 ms)"),
    ],
)
def test_an_implausible_slo_bound_is_a_warning_naming_the_unit_probably_meant(tmp_path, slo, said):
    path = write(tmp_path, slo=slo)
    assert check_profiles(path) == [f"{path}: profile 'chat': {said}"]


def test_plausible_bounds_warn_of_nothing(tmp_path):
    assert check_profiles(write(tmp_path)) == []
    bounds = [{"profile": "p", "measure": m, "bound": b} for m, b in [("ttft_p95_ms", 10.0), ("tpot_p95_ms", 1.0)]]
    assert slo_warnings([*bounds, {"profile": "p", "measure": "error_rate", "bound": 0.01}], "f") == []


def test_a_model_nothing_serves_gets_the_closest_served_names():
    served = {"meta-llama/Llama-3.1-8B-Instruct": "llama-3.1-8b-instruct", "llama2-70b-99": "llama-2-70b-chat"}
    typo = {"model_raw": "meta-llama/Llama-3.1-8B-Instrct", "model_key": "llama-3.1-8b-instrct"}
    assert model_hint(typo, served) == (
        "warning: model meta-llama/Llama-3.1-8B-Instrct matches no run of ours and no MLPerf result: did you mean "
        "meta-llama/Llama-3.1-8B-Instruct?"
    )
    assert model_hint({"model_raw": "x", "model_key": "llama-2-70b-chat"}, served) is None
    assert model_hint({"model_raw": "qqqq", "model_key": "qqqq"}, served).endswith(": check its spelling")


def test_a_model_no_alias_table_knows_is_served_by_runs_of_the_same_key():
    served = {"/models/llama-2-7b-hf": "llama-2-7b-hf"}  # a run's model as written -> its key
    assert model_hint({"model_raw": "meta-llama/Llama-2-7b-hf", "model_key": "llama-2-7b-hf"}, served) is None
