"""A measurement plan as the rest of the package sees it: its levels (our traffic at each rate, with the prediction
made now) and what its files need to know. `StoredPlan` is what `plans/<plan_id>/plan.json` holds (store.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

# The metrics a level's prediction gives, as calibrated.latency_curve names them, and the achieved rate.
PREDICTED_METRICS = (
    "ttft_p50_ms",
    "ttft_p95_ms",
    "ttft_p99_ms",
    "tpot_p50_ms",
    "tpot_p95_ms",
    "tpot_p99_ms",
    "e2e_p50_ms",
    "e2e_p95_ms",
    "e2e_p99_ms",
    "achieved_requests_per_s",
)


@dataclass(frozen=True)
class PlanLevel:
    """One load level of a plan: our traffic at `requests_per_s` (arrival offsets from 0 in s, sorted; lengths in
    tokens, at least 1), `rate_multiple` of the predicted delivered rate (None: no prediction to scale from), and the
    prediction made now (PREDICTED_METRICS -> value; None: the config has no engine model)."""

    level: int
    rate_multiple: float | None
    requests_per_s: float
    arrival_offsets_s: np.ndarray
    input_tokens: np.ndarray
    output_tokens: np.ndarray
    predicted: dict[str, float | None] | None = None

    @property
    def requests(self) -> int:
        return len(self.arrival_offsets_s)

    @property
    def duration_s(self) -> float:
        return float(self.arrival_offsets_s[-1]) if len(self.arrival_offsets_s) else 0.0


@dataclass(frozen=True)
class PlanFiles:
    """What a plan's files need: its id and profile, the config in words and as run.yaml keys (only what is known,
    plus `plan: <plan_id>`), the name the server serves the model under (None: unknown, left for the team to
    fill), where our traffic comes from (in words), why the plan exists (the plan row's words) and its levels."""

    plan_id: str
    profile: str
    config_label: str
    run_yaml: dict[str, Any]
    model_name: str | None
    traffic_basis: str
    why: str
    levels: list[PlanLevel] = field(default_factory=list)
