"""Run in the inference-perf virtualenv (.venv-tools/inference-perf): parse each argument list given (JSON, from the
plan folder) as inference-perf's own command line does (its argparse from the Config model, the YAML file merged
with the command line's overrides, the pydantic Config), and read the trace with its Azure trace reader; print what
inference-perf understood as JSON. No server or tokenizer is needed for that."""

import json
import sys
from argparse import ArgumentParser
from pathlib import Path

from inference_perf.config import Config, read_config
from inference_perf.utils import add_global_args, add_pydantic_args, unflatten_dict
from inference_perf.utils.trace_reader import AzurePublicDatasetReader


def understood(argv: list[str]) -> dict:
    """What inference-perf makes of one `inference-perf` argument list."""
    parser = ArgumentParser()
    base_args = add_global_args(parser)
    add_pydantic_args(parser, Config)
    args = parser.parse_args(argv)
    overrides = unflatten_dict({k: v for k, v in vars(args).items() if k not in base_args})
    config = read_config(args.config_file, overrides)
    traces = {
        "load": AzurePublicDatasetReader().load_traces(Path(config.load.trace.file)),
        "data": AzurePublicDatasetReader().load_traces(Path(config.data.trace.file)),
    }
    return {
        "load_type": config.load.type.value,
        "stages": [s.model_dump(mode="json", include={"rate", "duration"}) for s in config.load.stages],
        "data_type": config.data.type.value,
        "api": config.api.model_dump(mode="json", include={"type", "streaming"}),
        "server": config.server.model_dump(mode="json", include={"base_url", "model_name", "ignore_eos"}),
        "tokenizer": config.tokenizer.pretrained_model_name_or_path,
        "storage_path": config.storage.local_storage.path,
        "per_request_report": config.report.request_lifecycle.per_request,
        "requests": {k: [list(t) for t in v] for k, v in traces.items()},
    }


if __name__ == "__main__":
    print(json.dumps([understood(argv) for argv in json.loads(sys.argv[1])]))
