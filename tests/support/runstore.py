"""A run store on S3 for tests: moto's S3 server on loopback (never the internet), a bucket in it, and the fsspec
options that reach it; and a small set of real public dumps, one of whose files becomes owned records."""

import contextlib
import json
from collections.abc import Iterator

import fsspec
from moto.server import ThreadedMotoServer

from tests.support.data import DATA

PUBLIC = DATA / "dumps" / "public"
ANUD = PUBLIC / "aiperf-anud18-qwen36-vllm-aiperf-benchmark" / "results" / "nvfp4"
LLMPERF_RUN = "gpt-4.1-nano_20260120_165625"
SWEEPS = {  # four run partitions; c1's per-request file (profile_export.jsonl) becomes records the warehouse owns
    "c16": ANUD / "5090" / "agent" / "c16",
    "c1": ANUD / "qwen3vl_ngrok" / "chatbot_flat" / "c1",
    "rohan": PUBLIC / "aiperf-rohan9446-mlx-inference-bench" / "artifacts" / "Qwen_Qwen3-0.6B-openai-chat-concurrency1",
    "llmperf": PUBLIC / "llmperf-johnsonafool-llmperf-test" / "result_outputs" / LLMPERF_RUN / "raw_data",
}
BUCKET = "benchbill-runs"


@contextlib.contextmanager
def s3_bucket() -> Iterator[tuple[object, str]]:
    """An S3 endpoint on loopback with an empty bucket BUCKET: (an s3fs filesystem on it, the run store's fsspec
    options as JSON)."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    options = {"endpoint_url": f"http://{host}:{port}", "key": "testing", "secret": "testing"}
    fs = fsspec.filesystem("s3", skip_instance_cache=True, use_listings_cache=False, **options)
    if fs.exists(BUCKET):  # moto keeps its buckets per process: one an earlier test's server made is still there
        fs.rm(BUCKET, recursive=True)
    fs.mkdir(BUCKET)
    try:
        yield fs, json.dumps(options)
    finally:
        server.stop()
