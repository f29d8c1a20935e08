"""Resources for `make dev` (`dg dev`), the daemon and schedules, read from environment variables.

BENCHBILL_WAREHOUSE  warehouse folder (default ./warehouse)
BENCHBILL_MLPERF     comma-separated round-table paths or URLs (default: the sources file)
BENCHBILL_SOURCES    the MLPerf sources file (default assets/defaults/mlperf_sources.yaml)
BENCHBILL_DUMPS      comma-separated dump folders (default: none)
BENCHBILL_ALLOW_LINKS_INTO  comma-separated folders that links below a dump folder may lead into (default: none,
                     links stay inside the dump folders; a link leading elsewhere is skipped with the reason)
BENCHBILL_PRICES     prices CSV (default: the bundled price table)
BENCHBILL_PROFILES   profiles YAML (default: the bundled example profiles)
BENCHBILL_STORE_TEXTS  1 to keep prompt and response texts of dumps (observed.request_texts); default: never stored
BENCHBILL_LOCK_TIMEOUT_S  seconds a run waits for another run's writer lock before refusing (default 30)
NO_COLOR             set (to anything but empty) for no colour codes, even on a terminal (no-color.org); without a
                     terminal there are none anyway
BENCHBILL_EXECUTOR   the executor of job scan_dump_runs, which reads the dump folders' run partitions: local
                     (default: each run's config chooses in_process or multiprocess), in_process, multiprocess,
                     k8s (a pod per partition: deploy/)
BENCHBILL_RUN_STORE  where run partitions (runs/) and owned per-request records (records/) are kept: empty (default)
                     the warehouse folder; s3://bucket/prefix or gs://bucket/prefix an object store, through fsspec
                     (pip install benchbill[s3] or [gcs]; credentials from the provider's usual environment:
                     AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, GOOGLE_APPLICATION_CREDENTIALS)
BENCHBILL_RUN_STORE_OPTIONS  the store's fsspec storage options as a JSON object, e.g. {"endpoint_url": "http://minio:9000"}
                     (default: none)
BENCHBILL_INPUTS_JSON  the whole Inputs resource as JSON (wins over the variables above; `benchbill run` passes its
                     inputs to the step processes it starts as the job's arguments instead: pipelines/parallel.py)
"""

from __future__ import annotations

import os
from typing import TextIO

from assets.core.paths import DEFAULT_PRICES, DEFAULT_PROFILES, DEFAULT_SOURCES
from assets.resources import Inputs, Warehouse


def _list(name: str) -> list[str]:
    return [part.strip() for part in os.environ.get(name, "").split(",") if part.strip()]


def allow_links_into() -> list[str]:
    return _list("BENCHBILL_ALLOW_LINKS_INTO")


def lock_timeout_s() -> float:
    return float(os.environ.get("BENCHBILL_LOCK_TIMEOUT_S", "30"))


def store_texts() -> bool:
    return os.environ.get("BENCHBILL_STORE_TEXTS", "").strip().lower() in ("1", "true", "yes")


def executor() -> str:
    return os.environ.get("BENCHBILL_EXECUTOR", "local").strip() or "local"


def run_store() -> str:
    return os.environ.get("BENCHBILL_RUN_STORE", "").strip()


def run_store_options() -> str:
    return os.environ.get("BENCHBILL_RUN_STORE_OPTIONS", "").strip()


def warehouse_from_env() -> Warehouse:
    return Warehouse(
        dir=os.environ.get("BENCHBILL_WAREHOUSE", "warehouse"),
        lock_timeout_s=lock_timeout_s(),
        run_store=run_store(),
        run_store_options=run_store_options(),
    )


def inputs_from_env() -> Inputs:
    if os.environ.get("BENCHBILL_INPUTS_JSON"):
        return Inputs.model_validate_json(os.environ["BENCHBILL_INPUTS_JSON"])
    return Inputs(
        mlperf=_list("BENCHBILL_MLPERF"),
        sources_file=os.environ.get("BENCHBILL_SOURCES", str(DEFAULT_SOURCES)),
        dumps=_list("BENCHBILL_DUMPS"),
        prices=os.environ.get("BENCHBILL_PRICES", str(DEFAULT_PRICES)),
        profiles=os.environ.get("BENCHBILL_PROFILES", str(DEFAULT_PROFILES)),
        store_texts=store_texts(),
        allow_links_into=allow_links_into(),
    )


def colour(stream: TextIO) -> bool:
    """Whether `stream` may carry colour codes: a terminal, and NO_COLOR unset or empty."""
    return not os.environ.get("NO_COLOR") and stream.isatty()
