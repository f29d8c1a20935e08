"""Faults end to end through `benchbill run`: a run whose fetch fails publishes nothing; only allowed
hosts are fetched (a redirect elsewhere is refused)."""

import pytest

from assets.inputs import fetch
from pipelines.cli import main
from tests.support.httpserver import RESET, ScriptedServer
from tests.support.smallcase import file_sha, parquet_snapshot

LOOPBACK = ["127.0.0.1"]


@pytest.fixture
def waits(monkeypatch):
    """The pauses between attempts, recorded instead of slept; a short read timeout for stalls."""
    recorded = []
    monkeypatch.setattr(fetch, "_pause", recorded.append)
    monkeypatch.setattr(fetch, "TIMEOUT_S", 0.5)
    return recorded


@pytest.fixture
def published_copy(small_case, tmp_path):
    warehouse = small_case.copy_of(small_case.published, tmp_path / "warehouse")
    return warehouse, (file_sha(warehouse / "serving.duckdb"), parquet_snapshot(warehouse))


def sources(tmp_path, hosts) -> str:
    path = tmp_path / "sources.yaml"
    path.write_text("rounds: []\nallowed_hosts: [" + ", ".join(hosts) + "]\n")
    return str(path)


def run_url(small_case, warehouse, url, sources_file) -> list[str]:
    return [
        "run",
        "--mlperf",
        url,
        "--dumps",
        small_case.args_a[3],
        "--sources",
        sources_file,
        "--warehouse",
        str(warehouse),
    ]


def test_a_round_whose_fetch_fails_during_ingestion_publishes_nothing(
    small_case, published_copy, tmp_path, waits, capsys
):
    warehouse, before = published_copy
    table = (small_case.root / "b" / "summary_results.json").read_bytes()
    # A run fetches each URL once, at its start (the fingerprint; planning and ingestion reuse the bytes):
    # every fault there, until attempts run out; the failure is not fetched again by the later steps.
    with ScriptedServer() as server:
        server.respond(
            "/v5.1.json",
            (503, {}, b""),
            (429, {"Retry-After": "1"}, b""),
            (RESET, {}, b""),
            (200, {"Content-Length": str(len(table))}, table[:1000]),
        )
        url = server.url("/v5.1.json")
        assert main(run_url(small_case, warehouse, url, sources(tmp_path, LOOPBACK))) == 1
        assert server.hits["/v5.1.json"] == fetch.ATTEMPTS
    err = capsys.readouterr().err
    assert "run failed; the last complete publish" in err and "is in place" in err
    assert f"{url}: failed after 4 attempts; last problem: truncated body" in err and "1000 bytes read" in err
    assert (file_sha(warehouse / "serving.duckdb"), parquet_snapshot(warehouse)) == before


@pytest.mark.parametrize(
    "answer, hosts, refused",
    [
        (
            (302, {"Location": "http://localhost:9/elsewhere.json"}, b""),
            LOOPBACK,
            "'localhost' is not in allowed_hosts",
        ),
        ((200, {}, b"[]"), ["raw.githubusercontent.com"], "'127.0.0.1' is not in allowed_hosts"),
    ],
    ids=["redirect to another host", "host not allowed"],
)
def test_only_allowed_hosts_are_fetched_end_to_end(
    answer, hosts, refused, small_case, published_copy, tmp_path, waits, capsys
):
    warehouse, before = published_copy
    with ScriptedServer() as server:
        server.respond("/t.json", answer)
        assert main(run_url(small_case, warehouse, server.url("/t.json"), sources(tmp_path, hosts))) == 1
        assert server.hits["/t.json"] == (1 if answer[0] == 302 else 0)
    assert refused in capsys.readouterr().err
    assert (file_sha(warehouse / "serving.duckdb"), parquet_snapshot(warehouse)) == before
