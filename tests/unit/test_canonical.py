"""Aliases, units and precision: one canonical id per thing, unknown names never guessed."""

import pytest

from assets.core import canonical, mlperf_names, precisions
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
    assert mlperf_names.split_accuracy_target("llama2-70b-99.9") == ("llama2-70b", "99.9")
    assert mlperf_names.split_accuracy_target("dlrm-v2-99") == ("dlrm-v2", "99")
    assert mlperf_names.split_accuracy_target("llama3.1-8b") == ("llama3.1-8b", None)
    assert canonical.model_id("Qwen/Qwen3.5-397B-A17B") is None


@pytest.mark.parametrize(
    "raw,expected",
    [
        ("fp8", "fp8"),
        ("float8", "fp8"),
        ("INT8", "int8"),
        ("int8", "int8"),
        ("mxfp4", "mxfp4"),  # microscaling fp4 is not NVIDIA's nvfp4 nor a bare fp4
        ("fp4", "fp4"),
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
    assert precisions.normalise_precision(raw) == expected


def test_unknown_precision_is_an_error_not_a_guess():
    with pytest.raises(precisions.PrecisionError, match="fp7"):
        precisions.normalise_precision("fp7")


@pytest.mark.parametrize(
    "raw,precision,weight_bits,activation_bits",
    [
        # bitsandbytes (vLLM --quantization bitsandbytes)
        ("nf4", "nf4", 4, 16),
        ("bnb-nf4", "nf4", 4, 16),
        ("bnb_fp4", "fp4", 4, 16),
        ("bnb-8bit", "int8", 8, 16),
        # AWQ, GPTQ, compressed-tensors and TensorRT-LLM schemes
        ("awq", "int4", 4, 16),
        ("AWQ_Marlin", "int4", 4, 16),
        ("gptq", "int4", 4, 16),
        ("GPTQ-Int8", "int8", 8, 16),
        ("W4A16", "int4", 4, 16),
        ("w8a8", "int8", 8, 8),
        ("W4A8", "int4", 4, 8),
        ("w8a16", "int8", 8, 16),
        ("W4A8_AWQ", "int4", 4, 8),
        ("int4", "int4", 4, None),
        ("INT8", "int8", 8, None),
        ("int4_weight_only", "int4", 4, 16),
        # fp8 and its spellings
        ("fp8_e4m3", "fp8", 8, None),
        ("float8_e4m3fn", "fp8", 8, None),
        ("torch.float8_e4m3fn", "fp8", 8, None),
        ("FP8-dynamic", "fp8", 8, 8),
        ("fp8_e5m2", "fp8_e5m2", 8, None),
        ("E5M2", "fp8_e5m2", 8, None),
        # microscaling and narrow floats
        ("mxfp4", "mxfp4", 4, None),
        ("NVFP4", "nvfp4", 4, None),
        ("modelopt_fp4", "nvfp4", 4, None),
        ("mxfp6", "mxfp6", 6, None),
        ("fp6_e3m2", "fp6", 6, None),
        ("mxfp8", "mxfp8", 8, None),
        # GGUF types (llama.cpp), any case
        ("q2_k", "q2_k", 2, None),
        ("Q4_K_M", "q4_k_m", 4, None),
        ("q5_k_s", "q5_k_s", 5, None),
        ("Q8_0", "q8_0", 8, None),
        ("IQ4_XS", "iq4_xs", 4, None),
        ("iq2_xxs", "iq2_xxs", 2, None),
        ("IQ1_M", "iq1_m", 1, None),
        ("F16", "fp16", 16, None),
        # dtypes as runtimes write them
        ("bfloat16", "bf16", 16, None),
        ("torch.bfloat16", "bf16", 16, None),
        ("half", "fp16", 16, None),
        ("float32", "fp32", 32, None),
        ("tf32", "tf32", 32, None),
        # several components: the narrowest weight bits, no single activation width
        ("fp8,fp16,int8", "fp16,fp8,int8", 8, None),
    ],
)
def test_precision_vocabulary_gives_the_canonical_name_and_bits(raw, precision, weight_bits, activation_bits):
    found = precisions.read_precision(raw)
    assert (found.precision, found.weight_bits, found.activation_bits) == (precision, weight_bits, activation_bits)
    assert found.known and found.stated


@pytest.mark.parametrize("raw", ["fp7", "auto", "bitsandbytes", "compressed-tensors", "fp8,quantum8"])
def test_an_unknown_precision_is_kept_raw_and_flagged_never_raised(raw):
    """`bitsandbytes`, `compressed-tensors`: a method whose width the name does not say is not guessed."""
    found = precisions.read_precision(raw)
    assert found.precision is None and not found.known and found.stated and found.unknown


@pytest.mark.parametrize("raw", [None, "", "UNSET", "N/A"])
def test_a_value_that_states_no_precision_is_not_stated(raw):
    found = precisions.read_precision(raw)
    assert found.precision is None and not found.stated and found.known


def test_every_canonical_precision_has_one_width_in_the_table():
    widths: dict[str, set[int]] = {}
    for spelling in ["fp8", "float8_e4m3fn", "w8a8_fp8", "q4_k_m", "q4_0_4_4", "nvfp4", "w4a16_mxfp4"]:
        found = precisions.read_precision(spelling)
        widths.setdefault(found.precision, set()).add(found.weight_bits)
    assert all(len(w) == 1 for w in widths.values()), widths


@pytest.mark.parametrize(
    "name,model,precision,activation_bits",
    [
        ("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", "llama-3.1-8b-instruct", "fp8", None),
        ("neuralmagic/Meta-Llama-3.1-8B-FP8", "llama-3.1-8b", "fp8", None),  # the base model, not the instruct
        ("RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "llama-3.1-8b-instruct", "fp8", 8),
        ("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", "llama-3.1-70b-instruct", "fp8", None),
        ("hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4", "llama-3.1-8b-instruct", "int4", 16),
        ("TheBloke/Llama-2-70B-Chat-AWQ", "llama-2-70b-chat", "int4", 16),
        ("hugging-quants/Meta-Llama-3.1-8B-Instruct-GPTQ-INT4", "llama-3.1-8b-instruct", "int4", 16),
        ("neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w8a8", "llama-3.1-8b-instruct", "int8", 8),
        ("neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", "llama-3.1-8b-instruct", "int4", 16),
        ("RedHatAI/Meta-Llama-3.1-8B-Instruct-W4A16-G128", "llama-3.1-8b-instruct", "int4", 16),
        ("unsloth/Meta-Llama-3.1-8B-Instruct-bnb-4bit", "llama-3.1-8b-instruct", "nf4", 16),
        ("unsloth/Llama-3.1-8B-Instruct-unsloth-bnb-4bit", "llama-3.1-8b-instruct", "nf4", 16),
        ("bartowski/Meta-Llama-3.1-8B-Instruct-GGUF", "llama-3.1-8b-instruct", None, None),  # which type: not said
        (
            "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
            "llama-3.1-8b-instruct",
            "q4_k_m",
            None,
        ),
        ("/models/Meta-Llama-3.1-8B-Instruct-Q2_K.gguf", "llama-3.1-8b-instruct", "q2_k", None),
        ("/data/nm/models/DeepSeek-R1", "deepseek-r1", None, None),  # a local path: its last folder
        ("C:\\models\\Meta-Llama-3.1-8B-Instruct-AWQ", "llama-3.1-8b-instruct", "int4", 16),
        ("models/meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b-instruct", None, None),
        ("nvidia/DeepSeek-R1-FP4", "deepseek-r1", "fp4", None),
        ("openai/gpt-oss-120b", "gpt-oss-120b", None, None),
        ("meta-llama/Llama-2-70b-chat-hf", "llama-2-70b-chat", None, None),
        ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b-instruct-v0.1", None, None),
        # a quantised checkpoint of a model the table does not know: the precision is still read
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", None, "int4", 16),
        ("unsloth/gemma-4-31B-it-qat-GGUF/gemma-4-31B-it-qat-UD-Q4_K_XL.gguf", None, "q4_k_xl", None),
    ],
)
def test_a_quantised_checkpoint_is_its_base_model_at_the_precision_its_name_implies(
    name, model, precision, activation_bits
):
    found = canonical.model_and_precision(name)
    implied = found.implied_precision
    assert found.model_id == model
    assert ((implied.precision, implied.activation_bits) if implied else (None, None)) == (precision, activation_bits)


@pytest.mark.parametrize("name", ["unsloth/Llama-3.1-8B-Instruct", "acme/Meta-Llama-3.1-8B-Instruct", "Llama-3-8B"])
def test_a_copy_under_another_organisation_without_a_quantisation_suffix_is_not_guessed(name):
    """Only a name that declares itself a quantised copy is matched without its organisation."""
    assert canonical.model_and_precision(name).model_id is None


@pytest.mark.parametrize(
    "names,key",
    [
        # known to an alias table: the canonical id, however the name is written (an MLPerf name, a quantised copy)
        (["meta-llama/Llama-3.1-8B-Instruct", "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8"], "llama-3.1-8b-instruct"),
        (["llama2-70b-99", "meta-llama/Llama-2-70b-chat-hf"], "llama-2-70b-chat"),
        # unknown: the name without organisation, folder and quantisation words, lower case
        (["meta-llama/Llama-2-7b-hf", "/models/llama-2-7b-hf", "Llama_2_7b_hf"], "llama-2-7b-hf"),
        (["mistralai/Mixtral-8x7B-v0.1"], "mixtral-8x7b-v0.1"),
        (["codellama/CodeLlama-34b-hf", "/srv/CodeLlama-34b-hf/"], "codellama-34b-hf"),
        (["TheBloke/CodeLlama-34B-AWQ", "codellama-34b"], "codellama-34b"),
    ],
)
def test_the_pairing_rule_is_the_canonical_id_where_known_else_the_unknown_models_key(names, key):
    """canonical.model_key: what a model's runs, profiles, quality figures and calibrated configs pair on."""
    assert {canonical.model_key(name) for name in names} == {key}
    for name in names:
        match = canonical.model_and_precision(name)
        assert match.key == key  # the key observed.runs and observed.quality carry is the same rule
        assert match.model_id in (key, None)  # the canonical id, where known, is the key itself


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
    assert mlperf_names.split_runtime(software) == expected
