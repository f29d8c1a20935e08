"""calibrated.engine_models: per config, the engine model fitted on its own load levels, and its measured error."""

import pandera.polars as pa

from schemas.columns import calibrated_model_id_field, model_key_field
from schemas.vocab import CALIBRATION_STATUSES, SCHEDULING_FAMILIES


class EngineModels(pa.DataFrameModel):
    """One row per config (everything but the workload and the load generator's settings): the iteration-level
    engine model fitted on every load level of the config's runs (observed.runs, observed.load_points), the
    levels and workloads it was fitted on, its fit error and its held-out error (calibrated.validation), and
    whether it may be used (status)."""

    config_key: str = pa.Field(
        unique=True,
        description=(
            "The config's key: a digest of accelerator, count, model, precision, runtime, its version and the "
            "engine settings (assets/calibrate/levels.py config_key)."
        ),
    )
    config_label: str = pa.Field(description="The config in words: model, count x accelerator, precision, runtime.")
    accelerator_id: str = pa.Field(description="Canonical accelerator id (as written where unknown).")
    accelerator_count: int = pa.Field(ge=1, description="Accelerators serving the model.")
    model_id: str = calibrated_model_id_field()
    model_key: str = model_key_field()
    precision: str = pa.Field(nullable=True, description="Canonical weight precision; empty when unknown.")
    runtime: str = pa.Field(description="Serving runtime (e.g. vLLM).")
    runtime_version: str = pa.Field(nullable=True, description="Version of the serving runtime.")
    engine_settings: str = pa.Field(
        description="The runtime settings that set the engine (observed.runs.runtime_settings without names), JSON."
    )
    run_labels: str = pa.Field(description="The runs of the config (observed.runs.run_label), JSON list.")
    workloads: int = pa.Field(ge=0, description="Workloads measured (same settings and token means within 25%).")
    workloads_fitted: str = pa.Field(description="The workloads, JSON list (settings and token means).")
    load_levels: int = pa.Field(
        ge=0,
        description=(
            "Effective load levels usable for fitting (a concurrency above the prompts sent is all of them at once; "
            "levels with more than 5% failed requests, and levels not served, left out), over all workloads."
        ),
    )
    load_levels_fitted: str = pa.Field(description="The levels fitted on, JSON list of 'workload | load'.")
    saturated_levels: int = pa.Field(ge=0, description="Fitted levels where the server, not the tool, set the rate.")
    metrics_measured: str = pa.Field(
        description=(
            "The latency percentiles (ttft_p50_ms ... e2e_p99_ms) some usable level measured, JSON list: a profile "
            "bound on another percentile cannot be judged on this config."
        )
    )
    measured_tokens_per_s_max: float = pa.Field(
        nullable=True,
        gt=0,
        description="The most prompt + answer tokens/s any level of the config was measured to complete.",
    )
    status: str = pa.Field(
        isin=CALIBRATION_STATUSES,
        description=(
            "fitted: usable; too_few_levels: under 4 load levels, the error cannot be measured; unreliable: median "
            "held-out error on p95 TTFT below the knee over 25%, or a held-out workload's delivered-at-SLO off by "
            "over 25%; not_calibrated: the model could not be fitted on this config, or no level of it served "
            "anything (status_reason says why): it never bills."
        ),
    )
    status_reason: str = pa.Field(nullable=True, description="Why the status, in words; empty when fitted.")
    scheduling: str = pa.Field(
        nullable=True,
        isin=SCHEDULING_FAMILIES,
        description=(
            "mixed: prefill chunks ride in the decode steps (vLLM v1); separate: a step prefills or decodes "
            "(SGLang). Empty when nothing was fitted."
        ),
    )
    chunked_prefill: bool = pa.Field(nullable=True, description="A prompt longer than the step budget is split.")
    replicas: int = pa.Field(nullable=True, ge=1, description="Data-parallel engine copies behind round-robin.")
    step_b0_ms: float = pa.Field(nullable=True, ge=0, description="Fixed cost of an engine step, ms.")
    step_b1_ms_per_prefill_token: float = pa.Field(
        nullable=True, ge=0, description="Step cost per prompt (prefill) token in the step, ms."
    )
    step_b2_ms_per_decode_token: float = pa.Field(
        nullable=True, ge=0, description="Step cost per decoding sequence (one decode token each) in the step, ms."
    )
    step_b3_ms_per_prefill_token_per_1k_context: float = pa.Field(
        nullable=True,
        ge=0,
        description="Step cost per prompt token per 1,000 tokens of context before it (attention), ms.",
    )
    request_overhead_ms: float = pa.Field(
        nullable=True, ge=0, description="Per-request time outside the engine (HTTP, tokenisation), added to TTFT, ms."
    )
    token_budget_per_step: float = pa.Field(
        nullable=True, ge=1, description="Most prompt + decode tokens one step runs (max_num_batched_tokens)."
    )
    max_running_sequences: float = pa.Field(
        nullable=True, ge=1, description="Cap on sequences running at once, per replica (max_num_seqs)."
    )
    kv_cache_tokens: float = pa.Field(
        nullable=True, ge=1, description="Prompt + answer tokens the KV cache holds per replica; empty: never binds."
    )
    fit_rel_error_median: float = pa.Field(
        nullable=True,
        ge=0,
        description="Median |predicted / measured - 1| over the fitted levels' p50 TTFT, p50 TPOT and achieved rate.",
    )
    fit_rel_error_worst: float = pa.Field(nullable=True, ge=0, description="Worst of the same, on the fitted levels.")
    heldout_rel_error_median: float = pa.Field(
        nullable=True, ge=0, description="Median |relative error| of the scored rows of calibrated.validation."
    )
    heldout_rel_error_worst: float = pa.Field(nullable=True, ge=0, description="Worst of the same.")
    heldout_ttft_p95_below_knee_rel_error_median: float = pa.Field(
        nullable=True,
        ge=0,
        description="Median held-out (level left out) |relative error| of p95 TTFT below the knee; empty: none.",
    )
    heldout_delivered_at_slo_rel_error_worst: float = pa.Field(
        nullable=True,
        ge=0,
        description="Worst |relative error| of a held-out workload's delivered-at-SLO rate; empty: not measurable.",
    )
    fit_notes: str = pa.Field(
        nullable=True,
        description=(
            "The levels left out as not served (under half of the requests sent completed), then what the fit fixed, "
            "fitted or could not identify."
        ),
    )
    evidence: str = pa.Field(isin=["calibrated"], description="Evidence class of the row: calibrated.")

    class Config:
        strict = True
        coerce = True
