"""A real round table served over HTTP on loopback reads as the file does, keeping the URL and checksum."""

from assets.mlperf_rounds.ingest import read_locations
from tests.support.data import V51_TABLE
from tests.support.httpserver import ScriptedServer

LOOPBACK = ["127.0.0.1"]


def test_round_table_read_from_a_url_keeps_url_and_checksum():
    body = V51_TABLE.read_bytes()
    with ScriptedServer() as server:
        server.respond("/summary_results.json", (200, {}, body))
        batch = read_locations([server.url("/summary_results.json")], LOOPBACK)
    rows, files = batch.rows, batch.files
    assert len(rows) == 1448 and not batch.rejects
    assert rows[0]["source"].startswith("http://127.0.0.1:") and files[0].sha256 == rows[0]["source_sha256"]
