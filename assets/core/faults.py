"""Named fault-injection points, for the tests that kill a run and check that nothing published is lost.

`checkpoint("publish.copied")` does nothing unless the environment variable BENCHBILL_FAULT names
that point (comma-separated names); then the process kills itself with SIGKILL at once: no
`finally`, no rollback, no cleanup, as the OOM killer, a `kill -9` or a power cut would. The
points (the tests kill a run at each and check the serving file and the Parquet export):

write.<schema>.<table>  inside the transaction that replaces a table (or a view), after the new rows are in,
                        before COMMIT (e.g. write.benchmark.mlperf_run_conditions: mid round
                        ingestion, the results already replaced; write.marts.config_shortlist)
publish.copied          the next serving file is complete beside the old one, not yet swapped
parquet.writing         the first table of the next Parquet export is written, the rest not
publish.exported        the next Parquet export and report are complete, nothing of them swapped
publish.swapped         the serving file and the Parquet export are swapped; the report and the publish record not
lock.writing            the writer lock is taken, its holder not yet written into the lock file

`enospc@<point>` instead makes the point fail as a full disk does (OSError ENOSPC, naming the file written there):
the tests of disk-full messages and of the leftovers a failed publish cleans up. `eacces@<point>` makes it fail as
a folder the run may not write does (PermissionError EACCES), whoever runs it (root writes anywhere).
`sigterm@<point>` sends the process SIGTERM there (an operator's `kill`, a container stopping): the tests of the
messages after an interrupt.
"""

import errno
import os
import signal

ENV = "BENCHBILL_FAULT"
DISK_FULL = "enospc@"
ACCESS_DENIED = "eacces@"
TERMINATE = "sigterm@"


def checkpoint(name: str, path: str | os.PathLike[str] | None = None) -> None:
    """Kill this process with SIGKILL if BENCHBILL_FAULT names `name`; raise ENOSPC (about `path`) if it names
    `enospc@name`, EACCES if `eacces@name`; otherwise nothing."""
    wanted = os.environ.get(ENV)
    if not wanted:
        return
    points = wanted.split(",")
    if name in points:
        os.kill(os.getpid(), signal.SIGKILL)
    if TERMINATE + name in points:
        os.kill(os.getpid(), signal.SIGTERM)
    for fault, code in ((DISK_FULL, errno.ENOSPC), (ACCESS_DENIED, errno.EACCES)):
        if fault + name in points:
            raise OSError(code, os.strerror(code), None if path is None else os.fspath(path))
