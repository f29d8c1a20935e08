"""A warehouse the run cannot use ends in one message naming the path, never a traceback: its lock file
replaced by a link (never followed: the target is not truncated) or a FIFO, a read-only folder, a full
disk, a name that is not UTF-8. What a failed publish leaves beside the serving file is removed."""

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import pytest

from assets.core.faults import ENV
from assets.warehouse import lock
from assets.warehouse.layout import WarehouseLayout
from assets.warehouse.lock import WarehouseProblem
from assets.warehouse.published_set import publish_serving, staging_path
from tests.support.data import REPO_ROOT

NOBODY = 65534


def benchbill(*args: str | bytes, env: dict[str, str] | None = None) -> tuple[int, str]:
    """`benchbill` in its own process, its exit code and stderr; it must not hang."""
    command: list[str | bytes] = [sys.executable, "-m", "pipelines.cli", *args]
    done = subprocess.run(
        command, cwd=REPO_ROOT, env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=120
    )
    return done.returncode, done.stderr


def test_a_lock_file_replaced_by_a_link_is_never_followed_nor_its_target_truncated(tmp_path):
    precious = tmp_path / "precious.txt"
    precious.write_text("an analyst's notes")
    layout = WarehouseLayout(tmp_path / "warehouse")
    layout.dir.mkdir()
    layout.lock_path.symlink_to(precious)
    with pytest.raises(WarehouseProblem, match=r"\.benchbill\.lock: is a symbolic link; .* remove the link"):
        lock.acquire(layout.lock_path, timeout_s=1)
    assert precious.read_text() == "an analyst's notes"


def test_a_fifo_for_a_lock_file_is_refused_at_once(tmp_path):
    layout = WarehouseLayout(tmp_path / "warehouse")
    layout.dir.mkdir()
    os.mkfifo(layout.lock_path)
    signal.alarm(20)  # opening a FIFO for writing could wait for a reader forever
    try:
        with pytest.raises(WarehouseProblem, match=r"a named pipe \(FIFO\) where the warehouse's lock file belongs"):
            lock.acquire(layout.lock_path, timeout_s=1)
    finally:
        signal.alarm(0)


def read_only_message(folder: Path) -> str:
    """What taking the lock says in `folder`, made read-only, for a user who may not write it: in a forked child
    that, as root (who writes anywhere), first becomes `nobody`. The child has every module it needs imported
    already, so who may read the checkout (or the interpreter) does not matter."""
    folder.mkdir(mode=0o555)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: reports through the pipe and always exits here
        try:
            os.close(read)
            if os.geteuid() == 0:
                os.setgroups([])
                os.setresgid(NOBODY, NOBODY, NOBODY)
                os.setresuid(NOBODY, NOBODY, NOBODY)
            try:
                lock.acquire(folder / "warehouse" / ".benchbill.lock", timeout_s=1)
                message = "the lock was taken"
            except WarehouseProblem as problem:
                message = str(problem)
            os.write(write, message.encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        message = pipe.read().decode()
    os.waitpid(pid, 0)
    return message


def test_a_read_only_warehouse_is_one_message_naming_the_lock_file(tmp_path):
    """The run's one message, whoever runs the test (`eacces@lock.writing` refuses the lock file as a read-only
    folder does, root included); and it is the message a really read-only folder gives."""
    warehouse = tmp_path / "warehouse"
    code, err = benchbill("run", "--warehouse", str(warehouse), env={ENV: "eacces@lock.writing"})
    assert code == 1 and "Traceback" not in err
    said = next(line.strip() for line in err.splitlines() if ".benchbill.lock" in line)
    assert said == (
        f"{warehouse / '.benchbill.lock'}: cannot be written (Permission denied): the warehouse folder must be "
        "writable by this run; pass another --warehouse, or run as a user who may write there"
    )
    with tempfile.TemporaryDirectory() as top:  # in /tmp: a folder `nobody` may reach
        Path(top).chmod(0o755)
        real = read_only_message(Path(top) / "readonly")
        assert real == said.replace(str(warehouse), str(Path(top) / "readonly" / "warehouse"))


def test_a_full_disk_while_taking_the_lock_is_one_message(tmp_path):
    warehouse = tmp_path / "warehouse"
    code, err = benchbill("run", "--warehouse", str(warehouse), env={ENV: "enospc@lock.writing"})
    assert code == 1 and "Traceback" not in err
    assert f"{warehouse / '.benchbill.lock'}: no space left on the device holding it (the file system mounted at" in err


def test_a_warehouse_name_that_is_not_utf8_is_one_message(tmp_path):
    warehouse = os.path.join(os.fsencode(tmp_path), b"entrep\xf4t")
    code, err = benchbill("run", "--warehouse", warehouse)
    assert code == 1 and "Traceback" not in err
    assert "entrep\\xf4t: the warehouse folder's name is not valid UTF-8" in err


def small_build(path: Path) -> Path:
    with duckdb.connect(str(path)) as conn:
        conn.execute("CREATE SCHEMA marts; CREATE TABLE marts.config_shortlist AS SELECT 1 AS x")
    return path


def test_a_publish_failing_on_a_full_disk_removes_its_copy_and_names_it(tmp_path, monkeypatch):
    layout = WarehouseLayout(tmp_path / "warehouse")
    layout.dir.mkdir()
    build = small_build(layout.build_path)
    layout.serving_path.write_bytes(b"the published file")
    monkeypatch.setenv(ENV, "enospc@publish.copied")
    with pytest.raises(WarehouseProblem, match=r"serving\.duckdb\.next: no space left on the device"):
        publish_serving(build, layout, lambda serving, output, name: 0)
    assert sorted(p.name for p in layout.dir.iterdir()) == ["build.duckdb", "serving.duckdb"]
    assert layout.serving_path.read_bytes() == b"the published file"


def test_a_full_parquet_folder_is_said_of_that_folder_and_its_device_not_the_serving_files(tmp_path, monkeypatch):
    """The Parquet export may be on a volume of its own (mounted at warehouse/parquet): a full disk while it is
    written names the export's file and the file system that holds it."""
    layout = WarehouseLayout(tmp_path / "warehouse")
    layout.dir.mkdir()
    build = small_build(layout.build_path)
    monkeypatch.setenv(ENV, "enospc@parquet.writing")
    with pytest.raises(WarehouseProblem) as refused:
        publish_serving(build, layout, lambda serving, output, name: 0)
    said = str(refused.value)
    assert said.startswith(f"{layout.parquet_dir}/.tmp-") and "marts/config_shortlist.parquet: no space left" in said
    assert "serving.duckdb" not in said
    mount = Path(said.split("the file system mounted at ")[1].split(", ")[0])
    assert layout.parquet_dir.is_relative_to(mount) and os.stat(mount).st_dev == os.stat(layout.parquet_dir).st_dev
    assert sorted(p.name for p in layout.dir.iterdir()) == ["build.duckdb", "parquet"]
    assert list(layout.parquet_dir.rglob("*.parquet")) == []


def test_the_file_system_of_a_path_is_its_mount_point_and_free_space():
    assert lock.file_system_of(Path("/")).startswith("the file system mounted at /, ")
    assert lock.file_system_of(Path("/proc/self/no/such/file")).startswith("the file system mounted at /proc, ")


def test_leftovers_of_a_killed_publish_are_removed_by_the_next_run(tmp_path):
    layout = WarehouseLayout(tmp_path / "warehouse")
    layout.dir.mkdir()
    staging = staging_path(layout.serving_path)
    staging.write_bytes(b"\0" * 4096)
    staging.with_name(staging.name + ".wal").write_bytes(b"\0" * 4096)
    # The run fails early (no such round table), yet it removed them first, under the lock.
    code, err = benchbill("run", "--warehouse", str(layout.dir), "--mlperf", str(tmp_path / "missing.json"))
    assert code == 1
    assert f"removed {staging}, left by a publish that failed or was killed" in err
    assert not staging.exists() and not staging.with_name(staging.name + ".wal").exists()
