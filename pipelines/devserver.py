"""`make dev` and `make stop`: the Dagster webserver and daemon (`dg dev`) in a process group of their own,
stopped as a whole (Ctrl-C, SIGTERM, or `make stop` from another terminal), so no process outlives the stop.

    python -m pipelines.devserver start [--host H] [--port N]   (foreground; DAGSTER_HOME must be set)
    python -m pipelines.devserver stop

The group's id is written to $DAGSTER_HOME/dev.pid while it runs. A stop interrupts `dg dev` (its own shutdown
ends the webserver, the daemon and the code server), then after GRACE_S sends SIGTERM to whatever of the group is
left (the runs they launched), then SIGKILL. The launcher also stops the group when make, which started it, is
gone.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

GRACE_S = 20.0
PID_FILE = "dev.pid"


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of process group `pgid`, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so split after the last ')'
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry.name))
    return sorted(found)


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        pass


def _wait_until_gone(pgid: int, until: float) -> bool:
    while time.monotonic() < until:
        if not group_members(pgid):
            return True
        time.sleep(0.2)
    return not group_members(pgid)


def stop_group(pgid: int, grace_s: float = GRACE_S, say=print) -> list[int]:
    """Stop the group led by `pgid` (`dg dev`): SIGINT to the leader, whose shutdown stops the webserver, the
    daemon and the code server; after `grace_s`, SIGTERM to every process left (a run in progress records its
    interruption), then SIGKILL five seconds later. Returns the pids that had to be killed."""
    started = time.monotonic()
    members = group_members(pgid)
    if not members:
        return []
    say(f"stopping Dagster (process group {pgid}, {len(members)} processes)")
    try:
        os.kill(pgid, signal.SIGINT)
    except ProcessLookupError:
        pass
    if _wait_until_gone(pgid, started + grace_s):
        say(f"stopped in {time.monotonic() - started:.1f} s")
        return []
    say(f"still running after {grace_s:.0f} s: {group_members(pgid)}; sending SIGTERM")
    _signal_group(pgid, signal.SIGTERM)
    if _wait_until_gone(pgid, time.monotonic() + 5):
        say(f"stopped in {time.monotonic() - started:.1f} s")
        return []
    killed = group_members(pgid)
    say(f"killing {killed}")
    _signal_group(pgid, signal.SIGKILL)
    _wait_until_gone(pgid, time.monotonic() + 5)
    return killed


def _default_interrupts() -> None:
    """In the child: Ctrl-C and SIGTERM handled (a launcher started in the background has SIGINT ignored, and
    an ignored SIGINT is inherited; `dg dev` then ignores SIGTERM too, since it maps SIGTERM to SIGINT's handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # after exec, Python turns it into KeyboardInterrupt
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def dagster_home() -> Path:
    home = os.environ.get("DAGSTER_HOME")
    if not home:
        raise SystemExit("DAGSTER_HOME is not set: run `make dev` / `make stop`, or set it to the instance folder")
    return Path(home)


def start(host: str, port: int) -> int:
    """Run `dg dev` in its own process group until it ends or is stopped; its exit status."""
    pid_file = dagster_home() / PID_FILE
    if pid_file.exists():
        running = int(pid_file.read_text().strip() or 0)
        if running and group_members(running):
            print(f"Dagster is already running (process group {running}, {pid_file}); stop it with `make stop`")
            return 1
    dg = shutil.which("dg", path=str(Path(sys.executable).parent)) or "dg"
    # dg warns when the active virtual environment is not the project's: the launcher's interpreter is the project's
    env = os.environ | {"VIRTUAL_ENV": sys.prefix}
    child = subprocess.Popen(
        [dg, "dev", "--host", host, "--port", str(port)],
        start_new_session=True,
        preexec_fn=_default_interrupts,
        env=env,
    )
    pid_file.write_text(f"{child.pid}\n")
    launcher_parent = os.getppid()
    stopping = False

    def on_signal(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    print(f"Dagster UI on http://{host}:{port} (process group {child.pid}); stop: Ctrl-C or `make stop`", flush=True)
    try:
        while child.poll() is None and not stopping:
            if os.getppid() != launcher_parent:  # make was killed without passing the signal on
                break
            time.sleep(0.5)
    finally:
        stop_group(child.pid)
        child.wait()
        if pid_file.exists() and pid_file.read_text().strip() == str(child.pid):
            pid_file.unlink()
    return 0 if stopping else (child.returncode or 0)


def stop() -> int:
    """Stop the group `start` recorded; 0 when nothing is left running."""
    pid_file = dagster_home() / PID_FILE
    if not pid_file.exists():
        print(f"nothing to stop: no {pid_file} (Dagster was not started with `make dev`, or has stopped)")
        return 0
    pgid = int(pid_file.read_text().strip())
    stop_group(pgid)
    pid_file.unlink(missing_ok=True)
    left = group_members(pgid)
    if left:
        print(f"processes of group {pgid} still running: {left}")
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipelines.devserver", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    starting = commands.add_parser("start", help="run the webserver and daemon in the foreground")
    starting.add_argument("--host", default="127.0.0.1")
    starting.add_argument("--port", type=int, default=3000)
    commands.add_parser("stop", help="stop what `start` runs, from another terminal")
    args = parser.parse_args(argv)
    return start(args.host, args.port) if args.command == "start" else stop()


if __name__ == "__main__":
    sys.exit(main())
