"""requirement.workload: each profile's workload resolved once (lengths and arrivals), read by every evidence
class."""

import pandera.polars as pa

LENGTH_KINDS = ("fixed", "lognormal", "percentiles", "empirical_log", "empirical_file")
SOURCES = ("log", "log_and_stated", "lengths_file", "stated", "none")


class Workload(pa.DataFrameModel):
    """One row per profile: where its workload comes from, its prompt and answer length distributions, its arrival
    process and volume, and its basis in words (assets/calibrate/workload.py)."""

    profile: str = pa.Field(unique=True, description="Profile (requirement.profiles).")
    source: str = pa.Field(
        isin=list(SOURCES),
        description=(
            "Where the workload comes from: log (the traffic log's arrivals and lengths), log_and_stated (the log's "
            "arrivals, stated lengths where it has none), lengths_file (a lengths-only file, stated or assumed "
            "arrivals), stated (lengths and arrivals stated), none (no lengths known)."
        ),
    )
    traffic_log: str = pa.Field(nullable=True, description="The traffic log read (workload.traffic_log), if any.")
    lengths_file: str = pa.Field(nullable=True, description="The lengths-only file read (workload.lengths_file).")
    input_tokens_kind: str = pa.Field(
        nullable=True,
        isin=list(LENGTH_KINDS),
        description=(
            "Form of the prompt lengths: fixed, lognormal or percentiles (stated), empirical_log (the traffic log's "
            "own), empirical_file (a lengths file's own); empty: no prompt lengths known."
        ),
    )
    input_tokens_mean: float = pa.Field(nullable=True, ge=0, description="Mean prompt tokens per request.")
    input_tokens_p50: float = pa.Field(nullable=True, ge=0, description="Median prompt tokens per request.")
    input_tokens_p90: float = pa.Field(nullable=True, ge=0, description="p90 of prompt tokens per request.")
    input_tokens_p99: float = pa.Field(nullable=True, ge=0, description="p99 of prompt tokens per request.")
    input_tokens_cv: float = pa.Field(
        nullable=True, ge=0, description="Coefficient of variation of prompt tokens per request (std / mean)."
    )
    input_tokens_max: float = pa.Field(
        nullable=True,
        ge=0,
        description=(
            "Longest prompt: the log's or file's largest, a fixed length, the percentiles' tail cap (10 x p99); "
            "empty for lognormal (unbounded)."
        ),
    )
    output_tokens_kind: str = pa.Field(
        nullable=True,
        isin=list(LENGTH_KINDS),
        description=(
            "Form of the answer lengths: fixed, lognormal or percentiles (stated), empirical_log (the traffic log's "
            "own), empirical_file (a lengths file's own); empty: no answer lengths known."
        ),
    )
    output_tokens_mean: float = pa.Field(nullable=True, ge=0, description="Mean answer tokens per request.")
    output_tokens_p50: float = pa.Field(nullable=True, ge=0, description="Median answer tokens per request.")
    output_tokens_p90: float = pa.Field(nullable=True, ge=0, description="p90 of answer tokens per request.")
    output_tokens_p99: float = pa.Field(nullable=True, ge=0, description="p99 of answer tokens per request.")
    output_tokens_cv: float = pa.Field(
        nullable=True, ge=0, description="Coefficient of variation of answer tokens per request (std / mean)."
    )
    output_tokens_max: float = pa.Field(
        nullable=True,
        ge=0,
        description=(
            "Longest answer: the log's or file's largest, a fixed length, the percentiles' tail cap (10 x p99); "
            "empty for lognormal (unbounded)."
        ),
    )
    arrival_source: str = pa.Field(
        isin=["log", "stated", "assumed"],
        description="Where the arrival CV comes from: the log, stated (workload.arrival_cv), assumed (Poisson).",
    )
    arrival_cv: float = pa.Field(
        nullable=True,
        ge=0,
        description=(
            "Inter-arrival coefficient of variation: the log's, or stated (0 evenly spaced, 1 Poisson, above 1 "
            "bursty); empty: not stated (Poisson assumed where arrivals are simulated, not compared with runs)."
        ),
    )
    requests_per_day: float = pa.Field(nullable=True, gt=0, description="Our stated daily volume, if any.")
    mean_requests_per_s: float = pa.Field(
        nullable=True, gt=0, description="Our mean rate: the log's windows scaled to our volume, else stated."
    )
    peak_requests_per_s: float = pa.Field(
        nullable=True, gt=0, description="Our peak rate: the log's highest scaled window, else mean x peak_to_mean."
    )
    peak_to_mean: float = pa.Field(nullable=True, ge=0, description="Peak over mean rate (the log's, or stated).")
    peak_window_s: float = pa.Field(gt=0, description="The window the peak is taken over, s.")
    rate_windows: int = pa.Field(
        nullable=True, ge=1, description="The log's whole windows (requirement.traffic_rate); empty without a log."
    )
    lengths_basis: str = pa.Field(description="Where the lengths come from and which form, in words.")
    arrivals_basis: str = pa.Field(description="Where the arrivals and volume come from, in words.")
    basis: str = pa.Field(description="The workload in words: `lengths: ...; arrivals: ...`.")
    evidence: str = pa.Field(isin=["requirement"], description="Evidence class of the row: requirement.")

    class Config:
        strict = True
        coerce = True
