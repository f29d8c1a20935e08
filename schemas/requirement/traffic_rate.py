"""requirement.traffic_rate: our traffic's rate over time, from a production request log."""

import pandera.polars as pa


class TrafficRate(pa.DataFrameModel):
    """Requests per window over the log (the rate over time): tumbling windows of the profile's
    peak_window_s, aligned to the log's first request; a last window shorter than that is left out."""

    profile: str = pa.Field(description="Profile whose traffic log this is.")
    window_start_s: float = pa.Field(ge=0, description="Start of the window, s after the first request.")
    requests: int = pa.Field(ge=0, description="Requests sent in the window.")
    rate_per_s: float = pa.Field(ge=0, description="requests / peak_window_s, requests/s (the log as it is).")
    scaled_rate_per_s: float = pa.Field(
        ge=0,
        description=(
            "rate_per_s scaled to our volume: x requests_per_day / 86400 / (mean window rate); "
            "rate_per_s without workload.requests_per_day."
        ),
    )

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "window_start_s"]
