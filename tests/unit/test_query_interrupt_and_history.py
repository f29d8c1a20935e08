"""Ctrl-C during a running query drops that query: `benchbill sql` says so in one line and exits 130, `benchbill
shell` says so and goes back to its prompt. The shell keeps its history only in a regular file of its own: a FIFO,
a link or another user's file as `~/.benchbill_history` turns history off, said once, and is left as it was."""

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from pipelines import shell_history
from tests.support.data import REPO_ROOT

# A query that runs for hours: every query below is stopped by Ctrl-C long before it ends.
ENDLESS = "SELECT count(*) AS pairs FROM range(1000000000) a, range(1000000000) b"
BOUND_S = 120  # how long a test waits for the command before it fails (never a timing assertion)


@pytest.fixture
def warehouse(tmp_path) -> Path:
    """A small serving file: one table."""
    folder = tmp_path / "warehouse"
    folder.mkdir()
    with duckdb.connect(str(folder / "serving.duckdb")) as conn:
        conn.execute("CREATE SCHEMA analytics; CREATE TABLE analytics.shortlist AS SELECT 'h100' AS accelerator_id")
    return folder


def benchbill(*argv: str, home: Path, **streams) -> subprocess.Popen:
    """`benchbill ARGV` in a child that gets Ctrl-C (SIGINT) as from a terminal, with HOME at `home`."""
    return subprocess.Popen(
        [sys.executable, "-m", "pipelines.cli", *argv],
        cwd=REPO_ROOT,
        env={**os.environ, "HOME": str(home), "NO_COLOR": "1"},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # a test runner may ignore it
        **streams,
    )


def wait_until_querying(child: subprocess.Popen, serving: Path) -> None:
    """Until the child holds the serving file open (its query runs right after), then a second more."""
    deadline = time.monotonic() + BOUND_S
    fds = Path(f"/proc/{child.pid}/fd")
    while not any(os.path.realpath(fd) == str(serving.resolve()) for fd in fds.iterdir()):
        assert child.poll() is None and time.monotonic() < deadline, "the command never opened the serving file"
        time.sleep(0.1)
    time.sleep(1)


def ctrl_c(child: subprocess.Popen) -> tuple[bytes, bytes]:
    """Press Ctrl-C once the query runs; again should it have landed just before (the child busy elsewhere on a
    loaded machine); the child's output once it ends."""
    deadline = time.monotonic() + BOUND_S
    while True:
        child.send_signal(signal.SIGINT)
        try:
            return child.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            assert time.monotonic() < deadline, "Ctrl-C never stopped the query"


def test_ctrl_c_during_a_sql_query_stops_it_with_one_line_and_exit_130(warehouse, tmp_path):
    child = benchbill(
        "sql", ENDLESS, "--warehouse", str(warehouse), home=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    wait_until_querying(child, warehouse / "serving.duckdb")
    out, err = ctrl_c(child)
    assert child.returncode == 130
    assert err.decode().splitlines() == [
        "benchbill sql: interrupted (Ctrl-C): the running query was stopped; nothing was printed"
    ]
    assert out == b""


def test_ctrl_c_during_a_shell_query_drops_it_and_the_shell_goes_on(warehouse, tmp_path):
    typed = tmp_path / "typed.sql"
    typed.write_text(f"{ENDLESS};\nSELECT accelerator_id FROM analytics.shortlist;\n")
    with typed.open("rb") as stdin:
        child = benchbill(
            "shell",
            "--warehouse",
            str(warehouse),
            home=tmp_path,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    wait_until_querying(child, warehouse / "serving.duckdb")
    out, err = ctrl_c(child)
    assert child.returncode == 0, err
    assert "^C interrupted (Ctrl-C): the running query was stopped" in err.decode()
    assert "Traceback" not in err.decode()
    assert "pairs" not in out.decode() and "h100" in out.decode()  # the next statement ran


def shell_on_a_terminal(warehouse: Path, home: Path, typed: str) -> str:
    """What `benchbill shell` shows on a terminal (a pseudo-terminal) when `typed` is typed at its first prompt."""
    leader, follower = pty.openpty()
    child = benchbill(
        "shell", "--warehouse", str(warehouse), home=home, stdin=follower, stdout=follower, stderr=follower
    )
    os.close(follower)
    shown, typed_yet = b"", False
    deadline = time.monotonic() + BOUND_S
    try:
        while child.poll() is None:
            assert time.monotonic() < deadline, f"the shell showed no prompt: {shown!r}"
            if select.select([leader], [], [], 0.2)[0]:
                try:
                    shown += os.read(leader, 65536)
                except OSError:  # the child closed the terminal
                    break
            if not typed_yet and b"benchbill> " in shown:
                os.write(leader, typed.encode())
                typed_yet = True
        child.wait(timeout=BOUND_S)
    finally:
        os.close(leader)
        if child.poll() is None:
            child.kill()
    return shown.decode(errors="replace")


def test_a_fifo_as_the_history_file_turns_history_off_and_never_blocks_the_prompt(warehouse, tmp_path):
    os.mkfifo(tmp_path / ".benchbill_history")
    shown = shell_on_a_terminal(warehouse, tmp_path, ".quit\n")
    assert shown.count("history off") == 1
    assert "is a named pipe (FIFO), not a regular file" in shown and "benchbill> " in shown


def test_a_link_as_the_history_file_leaves_its_target_whole(warehouse, tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("".join(f"line {n}\n" for n in range(1500)))
    (tmp_path / ".benchbill_history").symlink_to(target)
    shown = shell_on_a_terminal(warehouse, tmp_path, "SELECT 1;\n.quit\n")
    assert shown.count("history off") == 1 and "is a symbolic link" in shown
    assert target.read_text() == "".join(f"line {n}\n" for n in range(1500))


def test_history_is_kept_in_a_regular_file_of_ones_own(warehouse, tmp_path):
    shown = shell_on_a_terminal(warehouse, tmp_path, "SELECT 42 AS answer;\n.quit\n")
    assert "history off" not in shown and "42" in shown
    assert "SELECT 42 AS answer;" in (tmp_path / ".benchbill_history").read_text()


def test_only_a_regular_file_with_one_name_is_a_history_file(tmp_path):
    regular, hard = tmp_path / "history", tmp_path / "hard"
    regular.write_text("SELECT 1;\n")
    assert shell_history.history_refusal(regular) is None
    assert shell_history.history_refusal(tmp_path / "none yet") is None
    os.link(regular, hard)
    assert "another name shares" in (shell_history.history_refusal(hard) or "")
    assert "not a regular file" in (shell_history.history_refusal(tmp_path) or "")
