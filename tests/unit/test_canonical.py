"""Aliases, units and precision: one canonical id per thing, unknown names never guessed."""

import pytest

from assets.core import canonical
from tests.support.records import mlperf_unit


@pytest.mark.parametrize(
    "name",
    [
        "NVIDIA H100-SXM-80GB",  # MLPerf submitters
        "NVIDIA H100 80GB HBM3",  # nvidia-smi
        "nvidia-h100-80gb",  # GKE node label
        "NVIDIA-H100-80GB-HBM3",  # NVIDIA GPU feature discovery label
        "p5.48xlarge",  # AWS instance type
        "nvidia h100_sxm 80gb",  # case and separators do not matter
    ],
)
def test_h100_sxm_names_resolve_to_one_id(name):
    assert canonical.accelerator_id(name) == "nvidia-h100-sxm-80gb"


def test_instance_types_carry_their_accelerator_count():
    assert canonical.match_accelerator("p5.48xlarge").accelerators_per_instance == 8
    assert canonical.match_accelerator("NVIDIA H100 80GB HBM3").accelerators_per_instance is None


@pytest.mark.parametrize(
    "name,expected",
    [
        ("AMD Instinct MI300X 192GB HBM3", "amd-mi300x-192gb"),
        ("AMD Instinct MI300X", "amd-mi300x-192gb"),  # rocm-smi
        ("NVIDIA H100 PCIe", "nvidia-h100-pcie-80gb"),  # not the SXM part
        ("Virtualized NVIDIA H200-SXM-141GB", "nvidia-h200-sxm-141gb"),
    ],
)
def test_other_accelerators(name, expected):
    assert canonical.accelerator_id(name) == expected


@pytest.mark.parametrize(
    "name,expected",
    [
        ("NVIDIA GH200 480GB", "nvidia-gh200-96gb"),  # nvidia-smi: 480 GB is the Grace side, ~96 GB HBM3
        ("NVIDIA GeForce RTX 4090 (Ada Lovelace)", "nvidia-rtx-4090"),  # a parenthetical architecture
        ("Virtualized NVIDIA H100-SXM-80GB", "nvidia-h100-sxm-80gb"),  # a VM's passthrough GPU
        ("Virtualized NVIDIA L40S", "nvidia-l40s"),
        ("NVIDIA A100-SXM-80GB CTS", "nvidia-a100-sxm-80gb"),  # MLPerf's trailing CTS
        ("NVIDIA H200-SXM-141GB-CTS", "nvidia-h200-sxm-141gb"),
        ("H100-SXM-80GB", "nvidia-h100-sxm-80gb"),  # without the vendor word
        ("A100-SXM-80GB", "nvidia-a100-sxm-80gb"),
        ("AMD Instinct MI300X 192GB HBM3 (x32)", "amd-mi300x-192gb"),
    ],
)
def test_names_as_mlperf_and_nvidia_smi_write_them_reduce_to_the_chip(name, expected):
    """Words that do not change the chip (Virtualized, a parenthetical, CTS, the vendor) are dropped only
    when the name as written is not in the table."""
    assert canonical.accelerator_id(name) == expected


@pytest.mark.parametrize("name", ["NVIDIA GH200-GraceHopper-Superchip", "Virtualized", "(Ada Lovelace)", "H200"])
def test_reducing_a_name_never_guesses_between_two_chips(name):
    assert canonical.accelerator_id(name) is None


@pytest.mark.parametrize(
    "name",
    ["H100", "NVIDIA Hopper", "", None, "AMD Instinct MI300X 192GB HBM3 (x32), AMD Instinct MI325X 256GB HBM3e (x16)"],
)
def test_ambiguous_or_unknown_accelerators_are_not_guessed(name):
    assert canonical.accelerator_id(name) is None


@pytest.mark.parametrize(
    "name",
    [
        "meta-llama/Llama-3.1-8B-Instruct",
        "llama3.1-8b",
        "llama-3.1-8b-instruct",
        "meta-llama/Meta-Llama-3.1-8B-Instruct",
    ],
)
def test_model_names_resolve(name):
    assert canonical.model_id(name) == "llama-3.1-8b-instruct"


def test_mlperf_model_with_accuracy_suffix():
    assert canonical.model_id("llama2-70b-99.9") == "llama-2-70b-chat"
    assert canonical.split_accuracy_target("llama2-70b-99.9") == ("llama2-70b", "99.9")
    assert canonical.split_accuracy_target("dlrm-v2-99") == ("dlrm-v2", "99")
    assert canonical.split_accuracy_target("llama3.1-8b") == ("llama3.1-8b", None)
    assert canonical.model_id("Qwen/Qwen3.5-397B-A17B") is None


@pytest.mark.parametrize(
    "raw,expected",
    [
        ("fp8", "fp8"),
        ("float8", "fp8"),
        ("INT8", "int8"),
        ("int8", "int8"),
        ("mxfp4", "fp4"),
        ("fp8,fp16,int8", "fp16,fp8,int8"),
        ("{'clip1': 'fp32', 'clip2': 'fp32', 'unet': 'fp8', 'vae': 'fp32'}", "fp32,fp8"),
        ("clip1:fp32,clip2:fp32,unet:fp8,vae:fp32", "fp32,fp8"),
        ("UNSET", None),
        ("", None),
        ("bf16", "bf16"),
        ("UINT4", "uint4"),
    ],
)
def test_precision_normalisation(raw, expected):
    assert canonical.normalise_precision(raw) == expected


def test_unknown_precision_is_an_error_not_a_guess():
    with pytest.raises(canonical.PrecisionError, match="fp7"):
        canonical.normalise_precision("fp7")


@pytest.mark.parametrize(
    "model,scenario,round_name,unit",
    [
        ("llama3.1-8b", "Interactive", "v5.1", "tokens/s"),  # labelled Queries/s in the v5.1 table
        ("whisper", "Offline", "v5.1", "tokens/s"),  # labelled Samples/s
        ("llama2-70b-99.9", "Server", "v4.1", "tokens/s"),
        ("llama2-70b-99", "Server", "v4.0", "queries/s"),  # genuinely queries/s that round
        ("gptj-99", "Offline", "v4.0", "samples/s"),
        ("gptj-99", "Offline", "v4.1", "tokens/s"),
        ("resnet", "Offline", "v5.1", "samples/s"),
        ("resnet", "SingleStream", "v5.1", "ms"),
        ("resnet", "MultiStream", "v1.1", "streams"),
    ],
)
def test_unit_rules(model, scenario, round_name, unit):
    assert mlperf_unit(model, scenario, round_name)[0] == unit


@pytest.mark.parametrize(
    "software,expected",
    [
        ("vLLM 0.10.0, RHEL 9.6", ("vLLM", "0.10.0")),
        ("TensorRT 10.2.0, CUDA 12.4", ("TensorRT", "10.2.0")),
        ("vLLM 0.9.0.2.dev108+g71faa1880.rocm641, Pytorch 2.7.0", ("vLLM", "0.9.0.2.dev108+g71faa1880.rocm641")),
        (None, (None, None)),
    ],
)
def test_runtime_from_mlperf_software(software, expected):
    assert canonical.split_runtime(software) == expected
