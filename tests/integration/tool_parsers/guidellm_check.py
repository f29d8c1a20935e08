"""Run in the GuideLLM virtualenv (.venv-tools/guidellm): run GuideLLM's own `run` command (its click options, the
scenario file, pydantic validation) on each argument list given (JSON, from the plan folder) with the benchmark
itself replaced by a recorder, then load each scenario's data with GuideLLM's data loader (deserializer, column
mapper, finalizer); print what GuideLLM understood as JSON. Offline: the tokenizer is named, never loaded."""

import asyncio
import importlib
import json
import sys

from guidellm.benchmark.entrypoints import resolve_to_single_benchmark
from guidellm.data import create_data_loader

run_module = importlib.import_module("guidellm.cli.run")


def understood(argv: list[str]) -> dict:
    """What GuideLLM makes of one `guidellm run` argument list."""
    recorded = []

    async def record(args, **_kwargs):
        recorded.append(args)

    run_module.entry.benchmark_generative_text = record
    run_module.run.main(argv, prog_name="guidellm run", standalone_mode=False)
    benchmark = resolve_to_single_benchmark(recorded[0].get_benchmarks())
    if benchmark.tokenizer.model is None:  # as GuideLLM does: the tokenizer defaults to the model
        benchmark.tokenizer.model = benchmark.backend.model

    async def requests():
        loader = await create_data_loader(
            loader_config=benchmark.data_loader,
            data_config=benchmark.data,
            tokenizer_config=benchmark.tokenizer,
            column_mapper_config=benchmark.data_column_mapper,
            preprocessors_config=benchmark.data_preprocessors,
            finalizer_config=benchmark.data_finalizer,
            random_seed=benchmark.seed.value,
        )
        return [node.request for graph in loader for node in graph.nodes.values()]

    return {
        "profile": benchmark.profile.kind,
        "rate": benchmark.profile.rate,
        "constraints": [c.model_dump(mode="json") for c in benchmark.constraints],
        "outputs": [o.model_dump(mode="json") for o in benchmark.outputs],
        "backend": benchmark.backend.model_dump(mode="json", include={"kind", "target", "model", "request_format"}),
        "data": [d.model_dump(mode="json", include={"kind", "path"}) for d in benchmark.data],
        "requests": [
            [r.input_metrics.text_tokens, r.output_metrics.text_tokens, r.input_metrics.text_words]
            for r in asyncio.run(requests())
        ],
    }


if __name__ == "__main__":
    print(json.dumps([understood(argv) for argv in json.loads(sys.argv[1])]))
