"""requirement.workload rows for the specs of the calibrated replay, resolved by the product's own code
(assets/calibrate/workload.py) from a profile as it would be stated and, with a traffic log, the log's shape as
requirement.traffic_shape holds it."""

import json

from assets.calibrate.workload import resolve
from assets.request_records.traffic_shape import read_traffic_log


def mean_of(mean):
    """A side stated by its old `*_tokens_mean` key (lognormal, CV 1 assumed), as requirement.profiles holds it."""
    return {"kind": "lognormal", "mean": mean, "cv": 1.0, "cv_assumed": True}


CHAT_INPUTS, CHAT_OUTPUTS = mean_of(200.0), mean_of(64.0)


def workload_row(
    inputs=CHAT_INPUTS,
    outputs=CHAT_OUTPUTS,
    traffic_log=None,
    lengths_file=None,
    arrival_cv=None,
    requests_per_day=None,
    mean_requests_per_s=25.0,
    window_s=1.0,
):
    """A profile `chat`'s requirement.workload row (with its model_id): `inputs` / `outputs` the stated sides
    (normalised statements, see assets/config/workload_lengths.py; None: not stated)."""
    profile = {
        "profile": "chat",
        "source": "profiles.yaml",
        "input_tokens_stated": json.dumps(inputs) if inputs else None,
        "output_tokens_stated": json.dumps(outputs) if outputs else None,
        "lengths_file": lengths_file,
        "arrival_cv": arrival_cv,
        "traffic_log": traffic_log,
        "requests_per_day": requests_per_day,
        "mean_requests_per_s": None if traffic_log else mean_requests_per_s,
        "peak_to_mean": None,
        "peak_window_s": window_s,
    }
    shape = None
    if traffic_log:
        shape, _rates, _file = read_traffic_log(traffic_log, window_s, requests_per_day)
        shape |= {"traffic_log": traffic_log}
    return resolve(profile, shape) | {"model_id": "llama-3.1-8b-instruct"}
