"""benchmark.accelerator_prices: dated accelerator-hour prices, each with its source."""

import datetime

import pandera.polars as pa

PRICE_CLASSES = ["on_demand", "reserved", "spot", "capacity_block", "tco_model", "on_prem_amortised"]


class AcceleratorPrices(pa.DataFrameModel):
    accelerator_raw: str
    accelerator_id: str = pa.Field(nullable=True)
    accelerator_known: bool
    price_class: str = pa.Field(isin=PRICE_CLASSES)
    usd_per_accelerator_hour: float = pa.Field(gt=0, lt=1000)
    provider: str
    price_source: str
    as_of: datetime.date
    source: str
    source_row: int = pa.Field(ge=0)
    evidence: str = pa.Field(isin=["benchmark"])

    class Config:
        strict = True
        coerce = True
        unique = ["accelerator_raw", "price_class", "provider", "as_of"]
