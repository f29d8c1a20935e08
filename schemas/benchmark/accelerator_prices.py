"""benchmark.accelerator_prices: dated accelerator-hour prices, each with its source."""

import datetime

import pandera.polars as pa

from schemas.vocab import PRICE_CLASSES


class AcceleratorPrices(pa.DataFrameModel):
    """One dated price of one accelerator-hour, by price class and provider, with its source."""

    accelerator_raw: str = pa.Field(description="Accelerator as written in the prices CSV (any alias).")
    accelerator_id: str = pa.Field(
        nullable=True,
        description=(
            "Canonical accelerator id; empty when the alias table does not know the name (the price cannot join)."
        ),
    )
    accelerator_known: bool = pa.Field(description="True when accelerator_raw matched a canonical accelerator.")
    price_class: str = pa.Field(
        isin=PRICE_CLASSES, description=("on_demand, reserved, spot, capacity_block, tco_model or on_prem_amortised.")
    )
    usd_per_accelerator_hour: float = pa.Field(gt=0, lt=1000, description="US dollars per accelerator-hour.")
    price_provider: str = pa.Field(
        description="Who charges the price (cloud, region, or TCO model): the CSV's provider column."
    )
    price_source: str = pa.Field(description="Where the price was published (the CSV's source column).")
    price_as_of: datetime.date = pa.Field(description="Date the price was observed (the CSV's as_of column).")
    source: str = pa.Field(description="Prices CSV file the row was read from.")
    source_row: int = pa.Field(ge=0, description="Data row of the CSV (0-based; line = source_row + 2).")
    evidence: str = pa.Field(isin=["benchmark"], description="Evidence class of the row: benchmark.")

    class Config:
        strict = True
        coerce = True
        unique = ["accelerator_raw", "price_class", "price_provider", "price_as_of"]
