"""Faults while fetching round tables, served on loopback: 5xx, 429 with Retry-After, timeouts,
connection resets and truncated bodies are retried a bounded number of times with backoff, then fail
clearly naming the URL; a compressed body is held to the size limit once decompressed."""

import email.utils
import gzip
import time

import pytest

from assets.core.errors import IngestError
from assets.inputs import fetch
from assets.inputs.fetch import fetch_url
from tests.support.httpserver import RESET, STALL, ScriptedServer

LOOPBACK = ["127.0.0.1"]


@pytest.fixture
def waits(monkeypatch):
    """The pauses between attempts, recorded instead of slept; a short read timeout for stalls."""
    recorded = []
    monkeypatch.setattr(fetch, "_pause", recorded.append)
    monkeypatch.setattr(fetch, "TIMEOUT_S", 0.5)
    return recorded


FAULTS = {
    "503": (503, {}, b"busy"),
    "500": (500, {}, b""),
    "429": (429, {"Retry-After": "2"}, b""),
    "reset": (RESET, {}, b""),
    "timeout": (STALL, {}, b"2"),
    "truncated body": (200, {"Content-Length": "100"}, b"[1, 2"),
}


@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
def test_each_fault_is_retried_and_the_next_answer_is_taken(fault, waits):
    with ScriptedServer() as server:
        server.respond("/t.json", fault, (200, {}, b"[1]"))
        fetched = fetch_url(server.url("/t.json"), LOOPBACK)
        assert server.hits["/t.json"] == 2
    assert fetched.data == b"[1]" and waits == [2.0 if fault[0] == 429 else 1.0]


def test_retry_after_as_an_http_date_is_honoured_and_capped(waits):
    soon = email.utils.formatdate(time.time() + 3, usegmt=True)
    later = email.utils.formatdate(time.time() + 3600, usegmt=True)
    with ScriptedServer() as server:
        server.respond(
            "/t.json", (429, {"Retry-After": soon}, b""), (503, {"Retry-After": later}, b""), (200, {}, b"[]")
        )
        fetch_url(server.url("/t.json"), LOOPBACK)
    assert 1.0 <= waits[0] <= 3.0 and waits[1] == fetch.MAX_RETRY_AFTER_S


def test_faults_that_persist_end_in_a_clear_failure_after_bounded_retries(waits):
    with ScriptedServer() as server:
        server.respond(
            "/t.json",
            (503, {}, b""),
            (429, {"Retry-After": "1"}, b""),
            (RESET, {}, b""),
            (200, {"Content-Length": "100"}, b"[1"),
        )
        with pytest.raises(IngestError) as failure:
            fetch_url(server.url("/t.json"), LOOPBACK)
        assert server.hits["/t.json"] == fetch.ATTEMPTS == 4
    assert waits == [1.0, 1.0, 4.0]  # backoff 1, 2, 4 s; Retry-After asked for 1 s instead of 2
    message = str(failure.value)
    assert server.url("/t.json") in message and "failed after 4 attempts" in message and "truncated body" in message


def test_a_compressed_download_is_held_to_the_size_limit_once_decompressed(waits):
    bomb = gzip.compress(b"0" * 20_000_000)  # 20 MB of zeros in ~20 kB
    with ScriptedServer() as server:
        server.respond("/t.json", (200, {"Content-Encoding": "gzip"}, bomb))
        with pytest.raises(IngestError, match="body exceeds the 1000000-byte limit"):
            fetch_url(server.url("/t.json"), LOOPBACK, max_bytes=1_000_000)
        assert server.hits["/t.json"] == 1  # not retried: the same body would be too large again
