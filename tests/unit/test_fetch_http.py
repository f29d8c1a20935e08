"""Fetching over HTTP (served on loopback): allow-list, redirects, retries, limits, clear errors."""

import pytest

from assets.core.errors import IngestError
from assets.inputs.fetch import fetch_url
from tests.support.httpserver import ScriptedServer

LOOPBACK = ["127.0.0.1"]


def no_sleep(_seconds):
    pass


def test_host_outside_the_allow_list_is_refused():
    with pytest.raises(IngestError, match="not in allowed_hosts"):
        fetch_url("http://127.0.0.1:9/x.json", ["raw.githubusercontent.com"])


def test_redirect_to_another_host_is_refused():
    with ScriptedServer() as server:
        server.respond("/moved", (302, {"Location": "http://localhost:9/elsewhere.json"}, b""))
        with pytest.raises(IngestError, match="'localhost' is not in allowed_hosts"):
            fetch_url(server.url("/moved"), LOOPBACK, sleep=no_sleep)


def test_server_errors_and_429_are_retried_then_succeed():
    waits = []
    with ScriptedServer() as server:
        server.respond("/t.json", (503, {}, b"busy"), (429, {"Retry-After": "2"}, b""), (200, {}, b"[1]"))
        fetched = fetch_url(server.url("/t.json"), LOOPBACK, sleep=waits.append)
        assert server.hits["/t.json"] == 3
    assert fetched.data == b"[1]" and waits == [1.0, 2.0]


def test_persistent_failure_names_the_url_and_the_last_problem():
    with ScriptedServer() as server:
        server.respond("/t.json", (502, {}, b""))
        with pytest.raises(IngestError, match=r"/t.json: failed after 4 attempts; last problem: HTTP 502"):
            fetch_url(server.url("/t.json"), LOOPBACK, sleep=no_sleep)


def test_truncated_body_is_retried_and_reported():
    with ScriptedServer() as server:
        server.respond("/t.json", (200, {"Content-Length": "100"}, b"[1, 2"))
        with pytest.raises(IngestError, match="truncated body"):
            fetch_url(server.url("/t.json"), LOOPBACK, sleep=no_sleep, attempts=2, timeout_s=2)


def test_not_found_is_a_clear_error():
    with ScriptedServer() as server:
        with pytest.raises(IngestError, match="HTTP 404"):
            fetch_url(server.url("/missing.json"), LOOPBACK, sleep=no_sleep)


def test_size_limit():
    with ScriptedServer() as server:
        server.respond("/big.json", (200, {}, b"x" * 5000))
        with pytest.raises(IngestError, match="limit"):
            fetch_url(server.url("/big.json"), LOOPBACK, max_bytes=1000, sleep=no_sleep)
