"""Column definitions several tables share: latency percentiles, throughput bands, the calibrated band, model keys."""

from typing import Any

import pandera.polars as pa

LATENCY_MEANINGS = {
    "ttft": "time to first token (request sent to first output token)",
    "tpot": "time per output token ((E2E - TTFT) / (output tokens - 1))",
    "itl": "inter-token latency (gap between consecutive tokens)",
    "e2e": "end-to-end latency (request sent to last token)",
}


def latency_field(metric: str, percentile: str) -> Any:
    return pa.Field(
        nullable=True,
        ge=0,
        lt=1e8,
        description=(f"{percentile} of the {LATENCY_MEANINGS[metric]} over successful requests, in ms."),
    )


def max_concurrency_field(more: str = "") -> Any:
    """The load generator's concurrency cap at an offered rate (observed.measurements, observed.load_points)."""
    return pa.Field(
        nullable=True,
        ge=0,
        lt=1e7,
        description=(
            "Cap on requests in flight the load generator kept at this offered rate (vLLM's and SGLang's"
            f" max_concurrency), requests; a sweep may scale it with the rate{more}. NULL: uncapped, or a concurrency"
            " level (its load is `concurrency`)."
        ),
    )


def calibrated_band_field(end: str) -> Any:
    """A run's config's calibrated band on our traffic, carried beside the measured band (marts.config_shortlist,
    marts.capacity_plan); `end` is low or high."""
    return pa.Field(
        nullable=True,
        ge=0,
        description=(
            "The run's config's calibrated band on our traffic (calibrated.delivered_at_slo, where it may bill), "
            f"{end} end, requests/s; costs and bills rest on it where billed_basis is calibrated."
        ),
    )


def measured_band_field(end: str) -> Any:
    """The band a run sustained as measured (cost.cost_per_request, the marts); `end` is low or high."""
    return pa.Field(
        nullable=True,
        ge=0,
        description=(
            f"Requests/s the run sustained within the SLO as measured (observed.delivered_at_slo), {end} end; empty "
            "for a projected config (no run of ours) and for a run no load point of which meets the SLO as measured."
        ),
    )


def billed_band_field(end: str, what: str = "Requests/s") -> Any:
    """The band the bill rests on (its basis decided once, in cost.cost_per_request); `end` is low or high."""
    cost = "low cost" if end == "high" else "high cost"
    return pa.Field(
        nullable=True,
        ge=0,
        description=(
            f"{what} the bill rests on (the billed_basis band: measured, calibrated or projected), {end} end (the "
            f"{cost}); costs and replicas use it, never the measured band where the two differ. Empty where the row "
            "has no price."
        ),
    )


def billed_basis_field() -> Any:
    """Which band the bill rests on (decided once, in cost.cost_per_request)."""
    return pa.Field(
        nullable=True,
        isin=["measured", "calibrated", "projected"],
        description=(
            "The band costs and replicas rest on (billed_requests_per_s_low/high): measured (the run's band as "
            "measured), calibrated (its config's band on our traffic, where the engine model bills as delivered and "
            "either the run's files do not measure what the SLO bounds or its token means differ from ours by more "
            "than 25% or its arrival CV by more than 0.5) or projected (MLPerf x a fraction); empty where the row "
            "has no price."
        ),
    )


def billed_basis_reason_field() -> Any:
    """Why the bill rests on that band, in words."""
    return pa.Field(
        nullable=True,
        description=(
            "Why the bill rests on that band: for a calibrated one its own error (band_rel_error) and the engine "
            "model's held-out median and worst, then which bound the files lack or which token means or arrival CV "
            "differ from ours, by how much."
        ),
    )


def calibrated_band_error_field(empty: str = "unless billed_basis is calibrated") -> Any:
    """The calibrated band's own error (what the decision quotes first); `empty` says when there is none."""
    return pa.Field(
        nullable=True,
        ge=0,
        description=(
            "The calibrated band's own relative error (calibrated.delivered_at_slo.band_rel_error: the band is the "
            f"model's rate / and x (1 + it)); empty {empty}."
        ),
    )


def calibrated_error_field(which: str) -> Any:
    """The engine model's held-out error that goes with a calibrated band; `which` is median or worst."""
    return pa.Field(
        nullable=True,
        ge=0,
        description=f"The engine model's {which} held-out |relative error| (the calibrated band's).",
    )


class LatencyPercentiles(pa.DataFrameModel):
    """Our p50-p99 TTFT, TPOT, ITL and E2E in ms (shared by observed.measurements and load_points)."""

    ttft_p50_ms: float = latency_field("ttft", "p50")
    ttft_p90_ms: float = latency_field("ttft", "p90")
    ttft_p95_ms: float = latency_field("ttft", "p95")
    ttft_p99_ms: float = latency_field("ttft", "p99")
    tpot_p50_ms: float = latency_field("tpot", "p50")
    tpot_p90_ms: float = latency_field("tpot", "p90")
    tpot_p95_ms: float = latency_field("tpot", "p95")
    tpot_p99_ms: float = latency_field("tpot", "p99")
    itl_p50_ms: float = latency_field("itl", "p50")
    itl_p90_ms: float = latency_field("itl", "p90")
    itl_p95_ms: float = latency_field("itl", "p95")
    itl_p99_ms: float = latency_field("itl", "p99")
    e2e_p50_ms: float = latency_field("e2e", "p50")
    e2e_p90_ms: float = latency_field("e2e", "p90")
    e2e_p95_ms: float = latency_field("e2e", "p95")
    e2e_p99_ms: float = latency_field("e2e", "p99")


def band_field(end: str, what: str) -> Any:
    bound = (
        "highest load point meeting every bound"
        if end == "low"
        else "SLO crossing interpolated towards the first failing load point"
    )
    return pa.Field(nullable=True, ge=0, description=f"{what} delivered at the SLO, {end} end ({bound}).")


def model_key_field() -> Any:
    """The model's key, what a calibrated table pairs on (canonical.model_key)."""
    return pa.Field(
        description=(
            "The model's key, what profiles, runs and configs pair on (canonical.model_key): its canonical id where "
            "an alias table knows it, else its name without organisation and quantisation words."
        )
    )


def calibrated_model_id_field() -> Any:
    """A calibrated table's canonical model id: empty for a model no alias table knows (model_key pairs it)."""
    return pa.Field(
        nullable=True, description="Canonical model id; empty for a model no alias table knows (model_key pairs it)."
    )
