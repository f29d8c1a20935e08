"""Dump folders an attacker or an unlucky operator prepared: only regular files are ever opened, links stay
inside the folders the operator allowed, odd names and a warehouse inside a dumps folder are listed as skipped
with the reason, and nothing hangs (every test here runs under an alarm: a hang fails it)."""

import os
import shutil
import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from assets.core.errors import IngestError
from assets.inputs.files import WAREHOUSE_MARKER, read_local, sha256_file, walk_files
from assets.resources import Inputs
from assets.runs.collect import collect_all
from assets.runs.drop_folder import dumps_fingerprint
from assets.warehouse.fingerprint import inputs_fingerprint
from assets.warehouse.layout import WarehouseLayout
from pipelines.sensors import drop_run_key, dump_folder_sensor
from tests.support.data import FIXTURES, WORKED_RUN_YAML, built_warehouse

VLLM_RESULT = FIXTURES / "vllm" / "openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json"
HANG_LIMIT_S = 20  # a walk of these few files takes milliseconds; reaching this means it blocked


@pytest.fixture(autouse=True)
def no_hang() -> Iterator[None]:
    """Fail (SIGALRM raises here) instead of hanging on a FIFO or /dev/zero."""

    def hung(_signum: int, _frame: object) -> None:
        raise TimeoutError(f"blocked for {HANG_LIMIT_S} s: a FIFO or a device was opened")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(HANG_LIMIT_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def one_run(root: Path) -> Path:
    """A dumps folder with one real vLLM result below its run.yaml."""
    run = root / "run"
    run.mkdir(parents=True)
    (run / "run.yaml").write_text(WORKED_RUN_YAML)
    shutil.copy(VLLM_RESULT, run / VLLM_RESULT.name)
    return root


def skipped(batch) -> dict[str, tuple[str, str]]:
    """Skipped inventory rows by file name: (kind, reason)."""
    return {Path(f.source).name: (f.detected_format, f.note) for f in batch.files if f.status == "skipped"}


def test_fifos_sockets_and_devices_are_listed_as_skipped_never_opened(tmp_path):
    clean = one_run(tmp_path / "clean")
    root = one_run(tmp_path / "dumps")
    os.mkfifo(root / "run" / "results.json")  # named like a dump: opening it would wait for a writer forever
    (root / "run" / "zero.json").symlink_to("/dev/zero")  # reading it would never end
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(root / "run" / "metrics.sock"))
    try:
        batch = collect_all([str(root)], links_into=["/dev"])  # even an allowed link: a device is never read
        assert len(batch.runs) == 1 and batch.measurements
        assert skipped(batch) == {
            "results.json": ("not a file", "a named pipe (FIFO): never opened (it could block or never end)"),
            "zero.json": ("not a file", "a character device: never opened (it could block or never end)"),
            "metrics.sock": ("not a file", "a socket: never opened (it could block or never end)"),
        }
        assert all(f.sha256 is None and f.size_bytes is None for f in batch.files if f.status == "skipped")
        # The drop-folder sensor's fingerprint and the run's: the same as without the special files.
        assert dumps_fingerprint([str(root)], links_into=[]) == dumps_fingerprint([str(clean)], links_into=[])
        checksums = [sha for _name, sha in inputs_fingerprint(Inputs(dumps=[str(root)]), [], _no_fetch)[2]]
        assert sorted(checksums) == sorted(
            sha for _n, sha in inputs_fingerprint(Inputs(dumps=[str(clean)]), [], _no_fetch)[2]
        )
    finally:
        listener.close()


def _no_fetch(url: str):
    raise AssertionError(f"no URL is fetched here ({url})")


def test_the_drop_folder_sensor_does_not_hang_on_a_fifo(tmp_path):
    root = one_run(tmp_path / "dumps")
    os.mkfifo(root / "run" / "results.json")
    (root / "run" / "zero.json").symlink_to("/dev/zero")
    resources = {"inputs": Inputs(dumps=[str(root)], allow_links_into=[]), "warehouse": built_warehouse(tmp_path)}
    with dg.build_sensor_context(resources=resources) as context:  # the warehouse resource holds a context
        request = dump_folder_sensor(context)
    assert isinstance(request, dg.RunRequest)
    assert request.run_key == drop_run_key(dumps_fingerprint([str(one_run(tmp_path / "clean"))], links_into=[]), 1)


def test_a_special_file_given_as_a_file_or_swapped_in_after_the_walk_is_refused_by_name(tmp_path):
    fifo = tmp_path / "prices.csv"
    os.mkfifo(fifo)
    with pytest.raises(IngestError, match=r"prices.csv: a named pipe \(FIFO\), not a file: never opened"):
        read_local(fifo)
    with pytest.raises(IngestError, match=r"prices.csv: a named pipe \(FIFO\)"):
        sha256_file(fifo)
    with pytest.raises(IngestError, match="a character device"):
        read_local("/dev/zero")


def test_links_leaving_every_dumps_folder_are_not_followed_unless_allowed(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(VLLM_RESULT, outside / "result.json")
    (outside / "secret.txt").write_text("not for the warehouse")
    root = one_run(tmp_path / "dumps")
    (root / "run" / "linked.json").symlink_to(outside / "result.json")
    (root / "run" / "folder").symlink_to(outside, target_is_directory=True)
    (root / "run" / "inside.json").symlink_to(root / "run" / VLLM_RESULT.name)  # inside the dumps folder: fine

    batch = collect_all([str(root)], links_into=[])
    why = (
        "outside the dumps folders and the folders links may lead into "
        "(--allow-links-into DIR or BENCHBILL_ALLOW_LINKS_INTO allows it)"
    )
    assert links_out(batch) == {
        "linked.json": f"points at {outside / 'result.json'}, {why}",
        "folder": f"points at {outside}, {why}",
    }
    assert not any("secret" in f.source for f in batch.files)
    assert {Path(f.source).name for f in batch.files} >= {"inside.json"}  # read (as a copy of the result)

    allowed = collect_all([str(root)], links_into=[str(outside)])
    assert links_out(allowed) == {}
    assert {Path(f.source).name for f in allowed.files} >= {"linked.json", "secret.txt"}
    # Settings change what is fingerprinted: the sensor sees the allowance.
    assert dumps_fingerprint([str(root)], links_into=[]) != dumps_fingerprint([str(root)], links_into=[str(outside)])
    # A link from one dumps folder into another is inside the dumps folders.
    second = tmp_path / "second"
    (second / "run").mkdir(parents=True)
    (second / "run" / "run.yaml").write_text(WORKED_RUN_YAML.replace("arrival: constant", "label: second"))
    (second / "run" / "shared.json").symlink_to(outside / "result.json")
    both = collect_all([str(root), str(second)], links_into=[str(outside)])
    assert links_out(both) == {}
    assert links_out(collect_all([str(root), str(second)], links_into=[])).keys() == {
        "linked.json",
        "folder",
        "shared.json",
    }


def links_out(batch) -> dict[str, str]:
    """Links skipped for leading out of the allowed folders, by file name: the reason."""
    return {Path(f.source).name: f.note for f in batch.files if f.detected_format == "link outside the dumps folders"}


def test_a_name_that_is_not_utf8_is_listed_as_skipped_and_fingerprints_do_not_crash(tmp_path):
    root = one_run(tmp_path / "dumps")
    name = os.path.join(os.fsencode(root / "run"), b"r\xe9sultats.json")  # Latin-1 bytes: not UTF-8
    with open(name, "wb") as handle:
        handle.write(VLLM_RESULT.read_bytes())
    batch = collect_all([str(root)], links_into=[])
    (row,) = [f for f in batch.files if f.status == "skipped"]
    assert row.detected_format == "name not UTF-8"
    assert row.source.endswith("run/r\\xe9sultats.json") and row.source.encode("utf-8")
    assert "is not valid UTF-8: rename it to read it" in row.note
    dumps_fingerprint([str(root)], links_into=[])
    inputs_fingerprint(Inputs(dumps=[str(root)], allow_links_into=[]), [], _no_fetch)


def test_a_warehouse_inside_a_dumps_folder_is_never_read_as_dumps(tmp_path):
    root = one_run(tmp_path / "dumps")
    layout = WarehouseLayout(root / "warehouse")
    layout.parquet_dir.mkdir(parents=True)
    layout.lock_path.write_text("pid 1")
    assert layout.lock_path.name == WAREHOUSE_MARKER
    shutil.copy(VLLM_RESULT, layout.parquet_dir / "looks_like_a_dump.json")
    (layout.dir / "serving.duckdb").write_bytes(b"DUCK" * 100)
    batch = collect_all([str(root)], links_into=[])
    assert skipped(batch) == {
        "warehouse": ("warehouse folder", f"holds {WAREHOUSE_MARKER}: a benchbill warehouse, never read as input")
    }
    assert not any("looks_like_a_dump" in f.source or f.source.endswith("serving.duckdb") for f in batch.files)
    assert dumps_fingerprint([str(root)], links_into=[]) == dumps_fingerprint(
        [str(one_run(tmp_path / "clean"))], links_into=[]
    )
    assert not [p for p in walk_files(root) if "warehouse" in p.parts]
