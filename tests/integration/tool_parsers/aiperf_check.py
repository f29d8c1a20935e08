"""Run in the AIPerf virtualenv (.venv-tools/aiperf): parse each command line given (a JSON list of argument lists,
from the plan folder) with AIPerf's own CLI app and build its benchmark plan, validate the trace file with AIPerf's
Mooncake validator and load it with its Mooncake trace loader; print what AIPerf understood as JSON."""

import json
import sys
import types

from aiperf.cli import app
from aiperf.config.flags.resolver import resolve_config
from aiperf.config.loader import build_benchmark_plan
from aiperf.config.resolution.plan import BenchmarkRun
from aiperf.dataset.agentic_code_gen.reporting.trace import validate_mooncake_trace
from aiperf.dataset.loader.mooncake_trace import MooncakeTraceDatasetLoader

# load_dataset() only parses and groups the records; prompts are made later from a tokenizer, which needs the
# network: this stands in for the prompt generator's two hooks load_dataset() touches.
NO_PROMPTS = types.SimpleNamespace(
    tokenizer=None, _hash_id_corpus_rng=types.SimpleNamespace(set_trace_id=lambda _trace_id: None), _cache={}
)


def understood(argv: list[str]) -> dict:
    """What AIPerf makes of one `aiperf profile` argument list."""
    command, bound, _ignored = app.parse_args(argv, exit_on_error=False, print_error=True)
    cli_config = bound.kwargs["cli_config"]
    plan = build_benchmark_plan(resolve_config(cli_config, cli_config.config_file))
    (config,) = plan.configs
    dataset = config.get_default_dataset()
    lines, errors = validate_mooncake_trace(dataset.path)
    run = BenchmarkRun(benchmark_id="parser-check", cfg=config, artifact_dir=config.artifacts.dir)
    loader = MooncakeTraceDatasetLoader(filename=str(dataset.path), prompt_generator=NO_PROMPTS, run=run)
    traces = [t for session in loader.load_dataset().values() for t in session]
    return {
        "command": command.__name__,
        "phases": [{"type": str(p.type), "requests": p.requests} for p in config.phases],
        "dataset_format": str(dataset.format),
        "dataset_path": str(dataset.path),
        "endpoint_type": str(config.endpoint.type),
        "streaming": config.endpoint.streaming,
        "extra": config.endpoint.extra,
        "models": config.get_model_names(),
        "urls": config.endpoint.urls,
        "artifact_dir": str(config.artifacts.dir),
        "validator_lines": lines,
        "validator_errors": errors,
        "requests": [[t.timestamp, t.input_length, t.output_length] for t in traces],
    }


if __name__ == "__main__":
    print(json.dumps([understood(argv) for argv in json.loads(sys.argv[1])]))
