"""The words a column may hold, each list defined once: the readers that produce the values and the pandera
models that check them import them from here."""

# observed.requests: a request's phase and outcome.
PHASES = ["measure", "warmup", "cooldown"]
STATUSES = ["ok", "error", "incomplete", "cancelled"]
# observed.runs: the arrival pattern run.yaml states, and how load levels are set.
ARRIVALS = ["constant", "poisson", "gamma", "concurrency", "trace"]
LOAD_KINDS = ["rate", "concurrency"]
# observed.runs: where a run's precision comes from (run.yaml wins; the model name when run.yaml states none).
PRECISION_SOURCES = ["run.yaml", "model name"]
# observed.quality: where an evaluation's precision comes from, strongest first.
QUALITY_PRECISION_SOURCES = [
    "run.yaml",
    "quality CSV",
    "quantisation argument",
    "model name",
    "dtype argument",
    "loaded dtype",
    "checkpoint (models.csv)",
]
# marts.quality_gate: what a profile's quality requirement says of a model at a precision.
QUALITY_STATUSES = ["meets", "fails", "inconclusive", "untested", "not_required"]
# requirement.quality_bounds: the kinds of bound a profile may set on a task's metric.
QUALITY_BOUND_KINDS = ["min", "max", "min_relative", "max_relative"]
# benchmark.accelerator_prices
PRICE_CLASSES = ["on_demand", "reserved", "spot", "capacity_block", "tco_model", "on_prem_amortised"]
# benchmark.mlperf_results: LoadGen scenarios and the units results are published in (after correction).
SCENARIOS = ["Offline", "Server", "Interactive", "SingleStream", "MultiStream"]
UNITS = ["tokens/s", "samples/s", "queries/s", "tasks/s", "streams", "ms", "s"]

CALIBRATION_STATUSES = ["fitted", "too_few_levels", "unreliable", "not_calibrated"]  # calibrated.engine_models.status
SCHEDULING_FAMILIES = ["mixed", "separate"]  # how the engine model puts prefill and decode in its steps
HELD_OUT_KINDS = ["level", "workload"]  # calibrated.validation.heldout_kind
DELIVERED_SOURCES = [
    "observed",
    "calibrated",
]  # projected.measured_fractions.source: whose delivered-at-SLO band measured the gap
# calibrated.delivered_at_slo.status: what our traffic through a config's engine model gives at a profile's SLO
CALIBRATED_DELIVERY_STATUSES = [
    "delivered",
    "lower_bound",
    "misses_slo",
    "not_judged",
    "no_traffic",
    "not_calibrated",
]

# calibrated.cost_sensitivity: the variants of our traffic priced, and what each row's status says
COST_SENSITIVITY_VARIANTS = ["our_mix", "prompts_x0.5", "prompts_x2", "answers_x0.5", "answers_x2", "poisson_arrivals"]
COST_SENSITIVITY_STATUSES = ["priced", "lower_bound", "misses_slo", "same_arrivals", "no_price", "not_priced"]
# marts.measurement_plan: why a config is in a profile's plan, most decisive first.
PLAN_REASONS = ["decision_at_risk", "may_beat_recommended", "model_unreliable", "workload_differs"]
# marts.measurement_plan: a plan whose measurements have not come back is open; measured once a run names it.
PLAN_STATUSES = ["open", "measured"]
# calibrated.prospective_validation: where a level's prediction comes from.
PREDICTION_BASES = ["plan level", "frozen model"]
