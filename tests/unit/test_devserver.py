"""`make stop` leaves no process of the `make dev` group: the leader is interrupted first, what outlives the grace
period is terminated, then killed (here with a group whose members ignore the polite signals)."""

import subprocess
import sys
import time

from pipelines.devserver import group_members, stop_group

# Each script first restores the default dispositions: an ignored signal is inherited through exec, and a test run
# started in the background (a job of a non-interactive shell, or a process that ignored SIGINT or SIGTERM) would
# otherwise hand its ignored signals to the group and decide the outcome instead of stop_group.
DEFAULTS = """
import signal
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
"""

# A leader that ignores SIGINT and SIGTERM, with two children (one ignoring SIGTERM too): only SIGKILL ends them.
STUBBORN = (
    DEFAULTS
    + """
import signal, subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
deaf = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)"
subprocess.Popen([sys.executable, "-c", deaf])
signal.signal(signal.SIGINT, signal.SIG_IGN)  # after starting the children: an ignored signal is inherited
signal.signal(signal.SIGTERM, signal.SIG_IGN)
time.sleep(120)
"""
)

# A leader that stops on SIGINT and takes its children with it.
POLITE = (
    DEFAULTS
    + """
import subprocess, sys, time
children = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"]) for _ in range(2)]
try:
    time.sleep(120)
except KeyboardInterrupt:
    for child in children:
        child.terminate()
        child.wait()
"""
)


def start_group(script: str) -> subprocess.Popen:
    leader = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    deadline = time.monotonic() + 30
    while len(group_members(leader.pid)) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(group_members(leader.pid)) == 3
    return leader


def test_a_group_that_ignores_interrupts_and_terminate_is_killed_after_the_grace_period():
    leader = start_group(STUBBORN)
    said = []
    killed = stop_group(leader.pid, grace_s=1.0, say=said.append)
    leader.wait(timeout=10)
    assert group_members(leader.pid) == [] and len(killed) == 2  # the leader and the child ignoring SIGTERM
    assert said[0] == f"stopping Dagster (process group {leader.pid}, 3 processes)"


def test_a_group_that_stops_on_interrupt_stops_without_being_killed():
    leader = start_group(POLITE)
    said = []
    assert stop_group(leader.pid, grace_s=20.0, say=said.append) == []
    leader.wait(timeout=10)
    assert group_members(leader.pid) == [] and said[-1].startswith("stopped in ")
