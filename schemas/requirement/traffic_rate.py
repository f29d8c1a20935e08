"""requirement.traffic_rate: our traffic's rate over time, from a production request log."""

import pandera.polars as pa


class TrafficRate(pa.DataFrameModel):
    """Requests per window over the log (the rate over time)."""

    profile: str = pa.Field(description="Profile whose traffic log this is.")
    window_start_s: float = pa.Field(ge=0, description="Start of the window, s after the first request.")
    requests: int = pa.Field(ge=0, description="Requests sent in the window.")
    rate_per_s: float = pa.Field(ge=0, description="requests / window length, requests/s.")

    class Config:
        strict = True
        coerce = True
        unique = ["profile", "window_start_s"]
