"""benchmark.prices_in_force: the price each cost applies, per accelerator, price class and provider."""

from schemas.benchmark.accelerator_prices import AcceleratorPrices


class PricesInForce(AcceleratorPrices):
    """The newest dated price of each accelerator, price class and provider (the lowest on a tie, then the first
    in its file), from benchmark.accelerator_prices: the one price cost.cost_per_request and
    calibrated.cost_sensitivity apply. Prices of accelerators the alias table does not know are left out."""

    class Config:
        strict = True
        coerce = True
        unique = ["accelerator_id", "price_class", "price_provider"]
