"""Bad input at scale without the shared data: a generic log of 180k requests reads every request, and a
file above the size limit is refused naming it (quarantined with the reason: it costs only itself and its run)."""

import pytest

from tests.support.badinput import (
    materialise,
    read_dump_folders,
)
from tests.support.data import REPO_ROOT, WORKED_RUN_YAML

FIXTURES = REPO_ROOT / "tests" / "fixtures"
RUN_YAML = WORKED_RUN_YAML.encode()


def read(path) -> bytes:
    return path.read_bytes()


GENERIC = read(FIXTURES / "generic/requests.csv")


def test_a_huge_generic_log_reads_every_request_and_a_file_above_the_limit_is_refused(tmp_path, monkeypatch):
    lines = GENERIC.decode().splitlines()
    rows = [line for line in lines[1:] if ",measure," in line]
    header, body = lines[0], []
    for copy_number in range(4000):  # ~180k requests, ~9 MB
        for line in rows:
            start, rest = line.split(",", 1)
            body.append(f"{float(start) + copy_number * 30:.6f},{rest}")
    log = ("\n".join([header, *body]) + "\n").encode()
    folder = materialise(tmp_path / "huge", {"run.yaml": RUN_YAML, "log.csv": log})
    out = read_dump_folders({"huge": folder})["huge"]
    requests = [k for k in out.numbers if k[0] == "request"]
    assert len(body) > 150_000 and len(requests) == len(body) and not out.reasons
    first = next(v for k, v in out.numbers.items() if k[0] == "request" and k[2] == 0)
    assert first == (pytest.approx(float(rows[0].split(",")[3])), pytest.approx(float(rows[0].split(",")[4])))
    monkeypatch.setattr("assets.inputs.files.MAX_LOCAL_FILE_BYTES", 1_000_000)
    refused = read_dump_folders({"huge": folder})["huge"]  # the file costs itself: quarantined, named, never read
    assert refused.error is None and not refused.numbers
    assert any("log.csv" in r and "above the 1,000,000-byte limit" in r for r in refused.reasons), refused.reasons
    assert any("the run is quarantined as a whole" in r for r in refused.reasons), refused.reasons
