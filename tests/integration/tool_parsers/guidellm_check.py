"""Run in the GuideLLM virtualenv (.venv-tools/guidellm): run GuideLLM's own `run` command (its click options, the
scenario file, pydantic validation) on each argument list given (JSON, from the plan folder) with the benchmark
itself replaced by a recorder, then load each scenario's data with GuideLLM's data loader (its trace deserializer,
column mapper, finalizer), which makes every prompt with the tokenizer; print what GuideLLM understood as JSON.
Offline, the model's tokenizer cannot be loaded: the data is loaded with a character-level tokenizer
(guidellm_tokenizer.py) through GuideLLM's own tokenizer factory, and each prompt is counted with it."""

import asyncio
import importlib
import json
import sys
import tempfile
from pathlib import Path

from guidellm.benchmark.entrypoints import resolve_to_single_benchmark
from guidellm.data import create_data_loader
from guidellm_tokenizer import save_character_tokenizer
from transformers import AutoTokenizer

run_module = importlib.import_module("guidellm.cli.run")


def understood(argv: list[str], tokenizer_folder: Path) -> dict:
    """What GuideLLM makes of one `guidellm run` argument list, its data loaded with the tokenizer in the folder."""
    recorded = []

    async def record(args, **_kwargs):
        recorded.append(args)

    run_module.entry.benchmark_generative_text = record
    run_module.run.main(argv, prog_name="guidellm run", standalone_mode=False)
    benchmark = resolve_to_single_benchmark(recorded[0].get_benchmarks())
    # as GuideLLM does, the tokenizer defaults to the model; offline, the local one stands in for it
    tokenizer = benchmark.tokenizer.model or benchmark.backend.model
    benchmark.tokenizer.model = str(tokenizer_folder)
    counter = AutoTokenizer.from_pretrained(str(tokenizer_folder))

    async def nodes():
        loader = await create_data_loader(
            loader_config=benchmark.data_loader,
            data_config=benchmark.data,
            tokenizer_config=benchmark.tokenizer,
            column_mapper_config=benchmark.data_column_mapper,
            preprocessors_config=benchmark.data_preprocessors,
            finalizer_config=benchmark.data_finalizer,
            random_seed=benchmark.seed.value,
        )
        return [node for graph in loader for node in graph.nodes.values()]

    requests = []
    for node in asyncio.run(nodes()):
        (prompt,) = node.request.columns["text_column"]
        requests.append(
            {
                "relative_timestamp": node.settings.relative_timestamp,
                "prompt_tokens": node.request.input_metrics.text_tokens,
                "output_tokens": node.request.output_metrics.text_tokens,
                "prompt_tokens_counted": len(counter.encode(prompt, add_special_tokens=False)),
                "prompt": prompt,
            }
        )
    return {
        "profile": benchmark.profile.model_dump(mode="json", include={"kind", "schedule_turn", "time_scale"}),
        "constraints": [c.model_dump(mode="json") for c in benchmark.constraints],
        "outputs": [o.model_dump(mode="json") for o in benchmark.outputs],
        "backend": benchmark.backend.model_dump(mode="json", include={"kind", "target", "model", "request_format"}),
        "tokenizer": tokenizer,
        "data": [d.model_dump(mode="json", include={"kind", "time_scale", "source"}) for d in benchmark.data],
        "requests": requests,
    }


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        tokenizer_folder = save_character_tokenizer(Path(folder))
        print(json.dumps([understood(argv, tokenizer_folder) for argv in json.loads(sys.argv[1])]))
