"""A file that is no dump is recognised from its head and skipped without parsing more: a large JSON
document's head is read as the value it begins (`json_head`); the whole document is decoded only for a reader
that parses it, and then decides its format."""

import dataclasses
import hashlib
import json
import subprocess
import sys

import pytest

from assets.formats.dumps import registry
from assets.inputs.files import LargeFile, sha256_file
from assets.inputs.textinput import json_head
from tests.support.data import FIXTURES, REPO_ROOT, WORKED_RUN_YAML

VLLM_RESULT = FIXTURES / "vllm" / "openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json"


@pytest.mark.parametrize(
    "head,value",
    [
        (b'{"a": 1, "b": [1, 2', {"a": 1, "b": [1]}),
        (b'[{"x": 1}, {"y": "cut inside a str', [{"x": 1}]),
        (b'{"a": "an escaped quote \\" then more', {}),
        (b'  {"a": {"b": 1}', {"a": {"b": 1}}),
        (b'\xef\xbb\xbf{"whole": true}', {"whole": True}),
        (b'{"a": 1, "b": "}], not structure", "c": 2, "d', {"a": 1, "b": "}], not structure", "c": 2}),
        (b"not json", None),
        (b"[" * 1000, None),  # deeper than MAX_JSON_HEAD_DEPTH: no shape, never a crash
    ],
)
def test_json_head_is_the_value_the_head_begins(head, value):
    assert json_head(head) == value


def test_a_large_dump_recognised_from_its_head_is_parsed_whole_and_the_whole_decides(monkeypatch):
    """A vLLM result cut inside its first per-request array (700 bytes) is read exactly as when held whole."""
    monkeypatch.setattr("assets.inputs.files.HEAD_BYTES", 700)
    data = VLLM_RESULT.read_bytes()
    whole, _ = registry.parse_file(registry.Fetched(str(VLLM_RESULT), data, sha256_file(VLLM_RESULT)))
    large = LargeFile(str(VLLM_RESULT), sha256_file(VLLM_RESULT), len(data), data[:700], data[-8:])
    parsed, dump = registry.parse_file(large, str(VLLM_RESULT))
    assert whole is not None and parsed is not None and not dump.partial
    assert parsed.kind == whole.kind and len(parsed.measurements) == len(whole.measurements) == 1
    (got,), (want,) = parsed.measurements, whole.measurements
    assert got.requests is not None and want.requests is not None and got.requests.equals(want.requests)
    assert dataclasses.replace(got, requests=None) == dataclasses.replace(want, requests=None)


PEAK_MEMORY_PROBE = """
import json, resource, sys
from assets.runs.collect import collect_all
from assets.formats.dumps import registry  # every reader loaded before the baseline
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
batch = collect_all([sys.argv[1]], links_into=[])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"before_kb": before, "after_kb": after,
                  "files": [[f.source, f.status, f.note, f.sha256] for f in batch.files]}))
"""


def test_a_large_json_that_is_no_dump_is_skipped_from_its_head_in_bounded_memory(tmp_path):
    """A 200 MB single-line JSON document that is no dump: recognised from its first megabyte and skipped; the
    whole run's peak memory grows by a small fraction of the file (parsing it whole took 3 to 6 times its size)."""
    root = tmp_path / "dumps"
    (root / "run").mkdir(parents=True)
    (root / "run" / "run.yaml").write_text(WORKED_RUN_YAML)
    big = root / "run" / "embeddings.json"
    with open(big, "wb") as handle:
        handle.write(b'{"model": "not a benchmark", "vectors": [')
        handle.write(b"0.123456789, -1.5e-3, 42, " * 7_700_000)
        handle.write(b"0]}")
    size = big.stat().st_size
    assert size > 200_000_000
    done = subprocess.run(
        [sys.executable, "-c", PEAK_MEMORY_PROBE, str(root)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    grown = (report["after_kb"] - report["before_kb"]) * 1024
    assert grown < 0.1 * size, f"peak memory grew by {grown / size:.2f} x the file's size"
    (row,) = [f for f in report["files"] if f[0].endswith("embeddings.json")]
    assert row[1] == "skipped" and row[2] == 'not a dump format this version reads (JSON with keys "model", "vectors")'
    digest = hashlib.sha256()
    with open(big, "rb") as handle:
        while chunk := handle.read(1 << 24):
            digest.update(chunk)
    assert row[3] == digest.hexdigest()  # listed with its checksum, hashed as it streamed past
