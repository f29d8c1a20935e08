"""calibrated.cost_sensitivity: what the token mix and the bursts cost, per profile x config x variant x price."""

import datetime

import pandera.polars as pa

from schemas.columns import calibrated_model_id_field, model_key_field
from schemas.vocab import COST_SENSITIVITY_STATUSES, COST_SENSITIVITY_VARIANTS

_COST = "US dollars per {what} ({end}): usd_per_request / usd_per_million_tokens of sql/macros.sql on the {rate}."
_ENDS = {"low": "the band's high rate", "high": "the band's low rate"}


class CostSensitivity(pa.DataFrameModel):
    """One row per profile x config (whose calibrated.delivered_at_slo band bills) x variant x price: the profile's
    traffic at our mix, with prompts or answers halved and doubled, and (where our arrivals are not Poisson) at
    Poisson arrivals; each variant's delivered rate re-derived by the config's engine model (its SLO rate over our
    mix's, both by the same bisection, times our mix's band, so it carries the same held-out error), priced with the
    cost arithmetic of cost.cost_per_request and the monthly bill of marts.capacity_plan (sql/macros.sql). A config
    that does not bill, a variant that misses the SLO even at light load, an accelerator without a price: one row
    saying so in status and status_reason."""

    profile: str = pa.Field(description="The workload profile (requirement.profiles).")
    config_key: str = pa.Field(description="The config (calibrated.engine_models.config_key).")
    config_label: str = pa.Field(description="The config in words: model, count x accelerator, precision, runtime.")
    run_labels: str = pa.Field(description="The runs the config's model was fitted on (observed.runs.run_label), JSON.")
    model_id: str = calibrated_model_id_field()
    model_key: str = model_key_field()
    accelerator_id: str = pa.Field(description="Canonical accelerator id (as written where unknown).")
    accelerator_count: int = pa.Field(ge=1, description="Accelerators serving the model.")
    variant: str = pa.Field(
        isin=COST_SENSITIVITY_VARIANTS,
        description=(
            "our_mix: the profile's traffic as it is; prompts_x0.5 / prompts_x2 / answers_x0.5 / answers_x2: every "
            "prompt / answer length halved or doubled, arrivals unchanged; poisson_arrivals: the same token mix at "
            "inter-arrival CV 1."
        ),
    )
    status: str = pa.Field(
        isin=COST_SENSITIVITY_STATUSES,
        description=(
            "priced: the costs below; lower_bound: priced on a rate that is at least the low end (no high rate, no "
            "low cost); misses_slo: the variant misses the SLO even at light load; same_arrivals: our arrivals are "
            "already Poisson (no bursts to price); no_price: no price for the accelerator; not_priced: the config's "
            "calibrated band does not bill (status_reason says why)."
        ),
    )
    status_reason: str = pa.Field(nullable=True, description="What could not be priced and why, in words.")
    input_tokens_mean: float = pa.Field(nullable=True, gt=0, description="Mean prompt tokens of the variant.")
    output_tokens_mean: float = pa.Field(nullable=True, gt=0, description="Mean answer tokens of the variant.")
    interarrival_cv: float = pa.Field(nullable=True, ge=0, description="Inter-arrival CV of the variant's arrivals.")
    rate_ratio: float = pa.Field(
        nullable=True, gt=0, description="The variant's SLO rate over our mix's, both found by the same bisection."
    )
    rate_found: str = pa.Field(
        nullable=True,
        description="How the variant's SLO rate was found: crossing, every rate meets, lightest rate misses.",
    )
    delivered_requests_per_s_low: float = pa.Field(
        nullable=True, ge=0, description="Low end of the variant's delivered rate: our mix's band low x rate_ratio."
    )
    delivered_requests_per_s_high: float = pa.Field(
        nullable=True, ge=0, description="High end: our mix's band high x rate_ratio (empty for a lower bound)."
    )
    band_rel_error: float = pa.Field(
        nullable=True, ge=0, description="The held-out error the band carries (calibrated.delivered_at_slo)."
    )
    band_basis: str = pa.Field(nullable=True, description="Which held-out error the band carries, in words.")
    heldout_rel_error_median: float = pa.Field(nullable=True, ge=0, description="The model's median held-out error.")
    heldout_rel_error_worst: float = pa.Field(nullable=True, ge=0, description="The model's worst held-out error.")
    prefill_share: float = pa.Field(
        nullable=True,
        ge=0,
        le=1,
        description="Share of the accelerator's busy time in prefill (the rest: decode) at the variant's SLO rate.",
    )
    price_class: str = pa.Field(nullable=True, description="Price class (e.g. on_demand) of the price applied.")
    price_provider: str = pa.Field(nullable=True, description="Provider of the price applied.")
    usd_per_accelerator_hour: float = pa.Field(nullable=True, gt=0, description="The price applied, USD per hour.")
    price_as_of: datetime.date = pa.Field(nullable=True, description="Date of the price applied.")
    cost_per_request_usd_low: float = pa.Field(
        nullable=True, ge=0, description=_COST.format(what="request", end="low", rate=_ENDS["low"])
    )
    cost_per_request_usd_high: float = pa.Field(
        nullable=True, ge=0, description=_COST.format(what="request", end="high", rate=_ENDS["high"])
    )
    cost_per_million_output_tokens_usd_low: float = pa.Field(
        nullable=True, ge=0, description=_COST.format(what="1M output tokens", end="low", rate=_ENDS["low"])
    )
    cost_per_million_output_tokens_usd_high: float = pa.Field(
        nullable=True, ge=0, description=_COST.format(what="1M output tokens", end="high", rate=_ENDS["high"])
    )
    cost_per_request_change_low: float = pa.Field(
        nullable=True,
        description="cost_per_request_usd_low over our mix's cost at the model's own rate, minus 1 (0.35: +35%).",
    )
    cost_per_request_change_high: float = pa.Field(
        nullable=True, description="cost_per_request_usd_high over our mix's cost at the model's own rate, minus 1."
    )
    mean_requests_per_s: float = pa.Field(nullable=True, ge=0, description="The profile's mean rate (capacity plan).")
    peak_requests_per_s: float = pa.Field(nullable=True, ge=0, description="The profile's peak rate (capacity plan).")
    monthly_usd_low: float = pa.Field(
        nullable=True, ge=0, description="Static monthly bill at the peak on the band's high rate (capacity plan's)."
    )
    monthly_usd_high: float = pa.Field(
        nullable=True, ge=0, description="Static monthly bill at the peak on the band's low rate (capacity plan's)."
    )
    bursts_monthly_usd_low: float = pa.Field(
        nullable=True,
        description="poisson_arrivals rows: what our bursts cost a month over Poisson arrivals, low end.",
    )
    bursts_monthly_usd_high: float = pa.Field(
        nullable=True,
        description="poisson_arrivals rows: what our bursts cost a month over Poisson arrivals, high end.",
    )
    traffic_basis: str = pa.Field(nullable=True, description="Where the variant's traffic came from, in words.")
    evidence: str = pa.Field(isin=["calibrated"], description="Evidence class: calibrated on our traffic.")
