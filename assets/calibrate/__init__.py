"""The calibrated engine model: per config, continuous batching fitted on its own load levels, with its error.

An iteration-level model of a continuously batching server (a token budget per step, a cap on running sequences,
chunked prefill), fitted on the config's own load levels, with its held-out error (docs/calibrated-model.md).

levels            configs (the one config key) and their load levels, read from the observed tables
traffic           arrivals (a rate with an inter-arrival CV, a closed loop, a client cap, a trace) and token lengths
engine, summary   the simulator, and a simulated level summarised like observed.load_points
runtime_defaults  what a runtime's defaults and a run's stated settings fix of the model
fit               calibration of one config; validate: leave one level out, leave one workload out
tables            calibrated.engine_models and calibrated.validation; error_table: the docs' held-out error table
workload          requirement.workload: each profile's lengths and arrivals resolved once, which every table reads
project           our traffic through a fitted config: replay at a rate, the latency curve, delivered at SLO, band
our_traffic       calibrated.latency_curve and calibrated.delivered_at_slo for every profile x config
"""
