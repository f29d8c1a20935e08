"""A second `benchbill run` with nothing changed only prints what is published; any change of an input's
content (or of the code) builds again; the fingerprint reaches the serving file only by a successful publish."""

import hashlib
import json

import duckdb
import pytest

from pipelines.cli import main
from tests.support.data import V51_TABLE, make_dumps
from tests.support.data import WORKED_PROFILES as PROFILES


# Its own warehouse: the tests change its inputs and run again in it.
@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("fingerprint")
    dumps = make_dumps(root / "dumps", variants=("vllm",))
    (root / "profiles.yaml").write_text(PROFILES)
    args = [
        "run",
        "--mlperf",
        str(V51_TABLE),
        "--dumps",
        str(dumps),
        "--profiles",
        str(root / "profiles.yaml"),
        "--warehouse",
        str(root / "warehouse"),
    ]
    assert main(args) == 0
    return root, args


def recorded(root):
    with duckdb.connect(str(root / "warehouse" / "serving.duckdb"), read_only=True) as conn:
        fingerprint, inputs = conn.execute("SELECT fingerprint, inputs FROM audit.run_fingerprint").fetchone()
    return fingerprint, json.loads(inputs)


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_publish_records_what_it_was_built_from(built):
    root, _args = built
    fingerprint, inputs = recorded(root)
    assert len(fingerprint) == 64
    assert {"input": f"mlperf {V51_TABLE}", "sha256": digest(V51_TABLE)} in inputs
    assert any(
        i["input"].startswith("dumps ") and i["input"].endswith("stage_0_lifecycle_metrics.json") for i in inputs
    )


def test_nothing_changed_means_nothing_is_built(built, capsys):
    root, args = built
    serving = root / "warehouse" / "serving.duckdb"
    before = (digest(serving), serving.stat().st_mtime_ns)
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "nothing changed since the last publish" in captured.err and "benchbill: building" not in captured.err
    assert "llama3.1-8b-chat" in captured.out and "serving file:" in captured.out
    assert (digest(serving), serving.stat().st_mtime_ns) == before


def test_a_failed_run_records_nothing_and_a_changed_input_builds(built, capsys):
    root, args = built
    first, _inputs = recorded(root)
    profiles = root / "profiles.yaml"
    profiles.write_text(PROFILES.replace("ttft_p95_ms: 1000", "ttft_p95_ms: not-a-number"))
    assert main(args) == 1  # the changed input is read, found wrong, and nothing is published
    assert recorded(root)[0] == first
    profiles.write_text(PROFILES.replace("ttft_p95_ms: 1000", "ttft_p95_ms: 900"))
    capsys.readouterr()
    assert main(args) == 0
    assert "benchbill: building" in capsys.readouterr().err
    assert recorded(root)[0] != first
    assert main([*args, "--force"]) == 0 and "benchbill: building" in capsys.readouterr().err


def test_storing_texts_after_a_run_that_did_not_builds(built, capsys):
    """--store-texts changes what is published (observed.request_texts), so it is part of the fingerprint."""
    root, args = built
    capsys.readouterr()
    assert main(args) == 0 and "nothing changed since the last publish" in capsys.readouterr().err
    without = recorded(root)
    assert main([*args, "--store-texts"]) == 0
    assert "benchbill: building" in capsys.readouterr().err
    assert recorded(root)[0] != without[0] and recorded(root)[1] == without[1]  # same inputs, another setting
    assert main([*args, "--store-texts"]) == 0 and "nothing changed" in capsys.readouterr().err
