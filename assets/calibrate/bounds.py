"""Bounded work per config: at most MAX_LEVELS_PER_FIT load levels in its fit, a time bound on its fit and
validation, and a progress line on a long one.

- Levels: a sweep of hundreds of levels is fitted on MAX_LEVELS_PER_FIT of them: the lightest and the heaviest of
  each workload, and of the rest the midpoints of equal shares along the workload-then-load order (deterministic:
  the same sweep keeps the same levels), said in the fit's notes. The real sweeps seen have at most 30 levels.
- Time: past CONFIG_SECONDS_MAX of CPU time (the process's: a machine shared with other work does not move the
  bound, so a config's result does not depend on the load beside it) the fit keeps the best parameters it has
  (the search stops where it is; caps not yet searched keep the runtime's defaults) and the held-out validation
  stops holding out more levels, said in the fit's notes; the config keeps its model and is `unreliable`
  (assets/calibrate/tables.py: marked, never bills).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from assets.calibrate.levels import Level

MAX_LEVELS_PER_FIT = 40
CONFIG_SECONDS_MAX = 300.0  # CPU seconds of one config's fit and validation (a 500-level sweep, capped: about 40)
PROGRESS_EVERY_S = 30.0  # a long fit says where it is this often


def capped_levels(levels: list[Level], cap: int | None = None) -> tuple[list[Level], str | None]:
    """At most `cap` (MAX_LEVELS_PER_FIT) effective levels of `levels`, in their order, and the note saying which
    were kept (None when all are)."""
    cap = MAX_LEVELS_PER_FIT if cap is None else cap
    groups: dict[tuple[str, Any], list[Level]] = {}
    for lv in sorted(levels, key=lambda lv: (lv.workload_key, lv.load_size, lv.run_id, lv.load_index)):
        groups.setdefault((lv.workload_key, lv.effective_load), []).append(lv)
    if len(groups) <= cap:
        return levels, None
    by_workload: dict[str, list[tuple[str, Any]]] = defaultdict(list)
    for key in groups:
        by_workload[key[0]].append(key)
    ends = {key for keys in by_workload.values() for key in (keys[0], keys[-1])}
    rest = [key for key in groups if key not in ends]
    room = max(0, cap - len(ends))  # below len(rest): the midpoints of `room` equal shares of the rest
    picked = {rest[int((i + 0.5) * len(rest) / room)] for i in range(room)}
    kept = ends | picked
    note = (
        f"{len(groups)} load levels, more than the {cap} a fit takes: fitted and validated on {len(kept)} (the "
        f"lightest and heaviest of each workload, and {len(picked)} of the other {len(rest)} evenly spaced by load)"
    )
    return [lv for lv in levels if (lv.workload_key, lv.effective_load) in kept], note


@dataclass
class FitBudget:
    """The CPU time one config's fit and validation may take (`seconds`, default CONFIG_SECONDS_MAX), with a progress
    line to `log` every PROGRESS_EVERY_S of wall time; `spent` says what was cut short once the bound is met."""

    label: str
    log: Callable[[str], None] | None = None
    seconds: float | None = None
    started: float = field(default_factory=time.monotonic)
    spent: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.seconds = CONFIG_SECONDS_MAX if self.seconds is None else self.seconds
        self._told = self.started
        self._cpu = time.process_time()

    def over(self, doing: str) -> bool:
        """Whether the time bound is met (what was being done said once in `spent`); a progress line meanwhile."""
        now = time.monotonic()
        if self.log is not None and now - self._told >= PROGRESS_EVERY_S:
            self._told = now
            used = time.process_time() - self._cpu
            self.log(f"{self.label}: {doing}, {now - self.started:.0f} s so far ({used:.0f} of {self.seconds:g} s CPU)")
        if time.process_time() - self._cpu < float(self.seconds or 0):
            return False
        if not self.spent:
            self.spent.append(f"time bound of {self.seconds:g} s of CPU per config met while {doing}")
        return True

    def stop(self, what: str) -> None:
        """Say what the time bound left undone."""
        if what not in self.spent:
            self.spent.append(what)

    @property
    def note(self) -> str | None:
        """What the time bound cut short, in words (None when it was not met)."""
        return "; ".join(self.spent) if self.spent else None
