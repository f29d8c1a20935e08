"""A precision keeps its activations and its method: the scheme read from precisions.csv (the one table) names
weight format and bits, activation bits (or format) and the quantisation method where the spelling states them,
and two schemes agree only when one is the other known in part."""

from __future__ import annotations

import pytest

from assets.core import canonical, precisions
from assets.runs.sidecar import run_precision


@pytest.mark.parametrize(
    ("spelling", "scheme", "method"),
    [
        ("w4a16", "int4-w4a16", None),
        ("w4a8", "int4-w4a8", None),
        ("w4afp8", "int4-w4afp8", None),
        ("awq", "int4-w4a16-awq", "awq"),
        ("gptq", "int4-w4a16-gptq", "gptq"),
        ("int4-rtn", "int4-w4a16-rtn", "rtn"),
        ("smoothquant", "int8-w8a8-smoothquant", "smoothquant"),
        ("w8a16", "int8-w8a16", None),
        ("w8a8", "int8-w8a8", None),
        ("fp8-dynamic", "fp8-w8a8-dynamic", "dynamic"),
        ("fp8-static", "fp8-w8a8-static", "static"),
        ("fp8", "fp8", None),
        ("bfloat16", "bf16", None),
    ],
)
def test_each_spelling_keeps_its_activations_and_method(spelling, scheme, method):
    found = precisions.read_precision(spelling)
    assert (found.scheme, found.method) == (scheme, method)


def test_schemes_agree_only_when_one_is_the_other_known_in_part():
    assert precisions.schemes_agree("int4", "int4-w4a16-awq")
    assert precisions.schemes_agree("int4-w4a16", "int4-w4a16-gptq")
    assert not precisions.schemes_agree("int4-w4a8", "int4-w4a16")
    assert not precisions.schemes_agree("int4-w4a16-awq", "int4-w4a16-gptq")
    assert not precisions.schemes_agree("fp8", "fp8_e5m2")


def test_a_run_keeps_its_scheme_completed_by_the_model_name_when_they_agree():
    def scheme(raw: str, model: str) -> str | None:
        implied = canonical.model_and_precision(model).implied_precision
        return run_precision(raw, precisions.read_precision(raw), model, implied)["precision_scheme"]

    assert scheme("w4a8", "acme/chat-3b") == "int4-w4a8"
    assert scheme("int4", "Qwen/Qwen3-0.6B-AWQ") == "int4-w4a16-awq"
    assert scheme("w4a8", "Qwen/Qwen3-0.6B-AWQ") == "int4-w4a8"  # disagrees with the name: run.yaml's, said
