"""Small warehouse tables for the SQL specs, written as the assets write them: runs and their load points, profiles,
MLPerf references, prices, calibrated bands, and the SQL tables built from them in the order the assets build them."""

import datetime
import json

import polars as pl

from assets.calibrate.workload import write_workload
from assets.warehouse.sqlfiles import run_sql_file
from assets.warehouse.validate import frame_from_rows
from assets.warehouse.write import write_table
from schemas.benchmark.accelerator_prices import AcceleratorPrices
from schemas.benchmark.mlperf_profile_reference import MlperfProfileReference
from schemas.benchmark.mlperf_reference import MlperfReference
from schemas.benchmark.prices_in_force import PricesInForce
from schemas.calibrated.delivered_at_slo import DeliveredAtSlo as CalibratedDelivered
from schemas.observed.delivered_at_slo import DeliveredAtSlo
from schemas.observed.load_point_measures import LoadPointMeasures
from schemas.observed.load_points import LoadPoints
from schemas.observed.measurements import Measurements
from schemas.observed.request_percentiles import RequestPercentiles
from schemas.observed.request_stats import RequestStats
from schemas.observed.runs import Runs
from schemas.projected.delivered_at_slo import ProjectedDeliveredAtSlo
from schemas.projected.measured_fractions import MeasuredFractions
from schemas.requirement.profiles import Profiles
from schemas.requirement.slo_bounds import SloBounds
from schemas.requirement.traffic_shape import TrafficShape

H100 = "nvidia-h100-sxm-80gb"
LLAMA = "llama-3.1-8b-instruct"


def run_row(run_id, model=LLAMA, accelerator=H100, count=1):
    return {
        "run_id": run_id,
        "run_label": run_id,
        "tool": "t",
        "tool_version": None,
        "accelerator_raw": "x",
        "accelerator_id": accelerator,
        "accelerator_known": accelerator is not None,
        "accelerator_count": count,
        "model_raw": "m",
        "model_id": model,
        "model_known": model is not None,
        "model_key": model or "m",
        "precision_raw": "bf16",
        "precision": "bf16",
        "precision_known": True,
        "precision_source": "run.yaml",
        "weight_bits": 16,
        "activation_bits": None,
        "precision_scheme": "bf16",
        "precision_note": None,
        "runtime": "vLLM",
        "runtime_version": "0.11.0",
        "runtime_settings": None,
        "arrival": "constant",
        "load_kind": "rate",
        "plan_id": None,
        "load_points": 0,
        "repeats_max": 1,
        "requests": 0,
        "formats": "f",
        "workload": None,
        "sidecar": "s",
        "report_dir": "d",
        "source_sha256": "x",
        "evidence": "observed",
    }


def point(run_id, index, rate, ttft, tpot=10.0, error_rate=0.0, repeat=0):
    """A measurement (one repeat of one load level) as a tool would report it."""
    row = {c: None for c in Measurements.to_schema().columns}
    failed = round(100 * error_rate)
    row.update(
        run_id=run_id,
        load_index=index,
        repeat_index=repeat,
        load_kind="rate",
        offered_rate_per_s=rate,
        achieved_requests_per_s=rate,
        requests_sent=100,
        requests_ok=100 - failed,
        requests_failed=failed,
        ttft_p95_ms=ttft,
        tpot_p95_ms=tpot,
        output_tokens_per_s=rate * 50,
        input_tokens_per_s=rate * 200,
        total_tokens_per_s=rate * 250,
        input_tokens_mean=200.0,
        output_tokens_mean=50.0,
        has_requests=False,
        tool_definitions="d",
        source="s",
        source_sha256="x",
        location="l",
        evidence="observed",
    )
    return row


def stated_mean(mean):
    """requirement.profiles' statement of a side given by its old `*_tokens_mean` key (lognormal, CV 1 assumed)."""
    return json.dumps({"kind": "lognormal", "mean": mean, "cv": 1.0, "cv_assumed": True})


def profile_rows(name="p", model=LLAMA, ttft=1000.0, tpot=50.0, error_rate=0.01, prior=(0.5, 0.8)):
    profile = {
        "profile": name,
        "model_raw": model,
        "model_id": model,
        "model_known": True,
        "model_key": model,
        "delivered_fraction_prior_low": prior[0],
        "delivered_fraction_prior_high": prior[1],
        "error_rate_max": error_rate,
        "input_tokens_stated": None,
        "output_tokens_stated": stated_mean(50.0),
        "lengths_file": None,
        "arrival_cv": None,
        "traffic_log": None,
        "requests_per_day": None,
        "mean_requests_per_s": None,
        "peak_to_mean": None,
        "peak_window_s": 60.0,
        "min_replicas": 1,
        "baseline_run_label": None,
        "slo_text": "t",
        "source": "s",
        "evidence": "requirement",
    }
    bounds = [
        {"profile": name, "measure": "ttft_p95_ms", "bound": ttft},
        {"profile": name, "measure": "tpot_p95_ms", "bound": tpot},
        {"profile": name, "measure": "error_rate", "bound": error_rate},
    ]
    return [profile], bounds


def load(conn, runs, points, profiles=None, bounds=None):
    """Write runs, measurements (tool aggregates only: no request records) and profiles, then build the SQL
    tables in order."""
    profiles, bounds = (profiles, bounds) if profiles else profile_rows()
    write_table(conn, "observed.runs", frame_from_rows(runs, Runs), Runs)
    write_table(
        conn,
        "observed.measurements",
        pl.DataFrame(
            points,
            schema_overrides={
                c: pl.Float64 for c in Measurements.to_schema().columns if c.endswith(("_ms", "_per_s", "_tokens"))
            },
        ),
        Measurements,
    )
    write_table(conn, "observed.request_stats", frame_from_rows([], RequestStats), RequestStats)
    write_table(conn, "calibrated.delivered_at_slo", frame_from_rows([], CalibratedDelivered), CalibratedDelivered)
    write_table(conn, "observed.request_percentiles", frame_from_rows([], RequestPercentiles), RequestPercentiles)
    write_table(conn, "requirement.traffic_shape", frame_from_rows([], TrafficShape), TrafficShape)
    write_table(conn, "requirement.profiles", pl.DataFrame(profiles), Profiles)
    write_table(conn, "requirement.slo_bounds", pl.DataFrame(bounds), SloBounds)
    write_workload(conn)
    write_table(
        conn, "observed.load_point_measures", run_sql_file(conn, "observed/load_point_measures.sql"), LoadPointMeasures
    )
    write_table(conn, "observed.load_points", run_sql_file(conn, "observed/load_points.sql"), LoadPoints)


def delivered(conn):
    frame = run_sql_file(conn, "observed/delivered_at_slo.sql")
    write_table(conn, "observed.delivered_at_slo", frame, DeliveredAtSlo)
    return {r["run_id"]: r for r in frame.iter_rows(named=True)}


def reference_row(accelerator, per_accel=1000.0, total=8):
    return {
        "accelerator_id": accelerator,
        "model_id": LLAMA,
        "round": "v5.1",
        "division": "closed",
        "submitter": "S",
        "platform": "P",
        "system_name": "Sys",
        "mlperf_model": "llama3.1-8b",
        "accuracy_target": None,
        "availability": "available",
        "precision": "fp8",
        "software": "vLLM 0.10.0",
        "runtime": "vLLM",
        "runtime_version": "0.10.0",
        "accelerator_count": total,
        "server_result_key": f"k-{accelerator}",
        "server_tokens_per_s_per_accel": per_accel,
        "offline_result_key": None,
        "offline_tokens_per_s_per_accel": None,
        "interactive_result_key": None,
        "interactive_tokens_per_s_per_accel": None,
        "output_tokens_per_sample": None,
        "dataset": "d",
        "source": "f",
        "details_url": None,
        "evidence": "benchmark",
    }


def write_references(conn, rows):
    """benchmark.mlperf_reference from `rows`, and the scenario each profile is compared with."""
    write_table(conn, "benchmark.mlperf_reference", pl.DataFrame(rows), MlperfReference)
    frame = run_sql_file(conn, "benchmark/mlperf_profile_reference.sql")
    write_table(conn, "benchmark.mlperf_profile_reference", frame, MlperfProfileReference)


def project(conn):
    """requirement.workload, projected.measured_fractions, then projected.delivered_at_slo, as the assets build them;
    the projected rows (requirement.traffic_shape empty, no traffic log, unless the test wrote one)."""
    if not conn.execute(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = 'requirement' AND table_name = 'traffic_shape'"
    ).fetchall():
        no_log = {name: column.dtype.type for name, column in TrafficShape.to_schema().columns.items()}
        write_table(conn, "requirement.traffic_shape", pl.DataFrame([], schema=no_log), TrafficShape)
    write_workload(conn)  # the profiles as the test last wrote them, resolved
    write_table(
        conn, "projected.measured_fractions", run_sql_file(conn, "projected/measured_fractions.sql"), MeasuredFractions
    )
    projected = run_sql_file(conn, "projected/delivered_at_slo.sql")
    write_table(conn, "projected.delivered_at_slo", projected, ProjectedDeliveredAtSlo)
    return projected


def prices(*rows):
    return pl.DataFrame(
        [
            {
                "accelerator_raw": a,
                "accelerator_id": a,
                "accelerator_known": True,
                "price_class": c,
                "usd_per_accelerator_hour": usd,
                "price_provider": "P",
                "price_source": "s",
                "price_as_of": datetime.date(2026, 1, d),
                "source": "f",
                "source_row": i,
                "evidence": "benchmark",
            }
            for i, (a, c, usd, d) in enumerate(rows)
        ]
    )


def write_prices(conn, *rows):
    """benchmark.accelerator_prices from `rows` (accelerator, class, USD, day of January), then the prices in force
    as the asset builds them."""
    write_table(conn, "benchmark.accelerator_prices", prices(*rows), AcceleratorPrices)
    in_force = run_sql_file(conn, "benchmark/prices_in_force.sql")
    write_table(conn, "benchmark.prices_in_force", in_force, PricesInForce)
    return in_force


def calibrated_band(run_label, low, high, input_tokens, output_tokens):
    row = {column: None for column in CalibratedDelivered.to_schema().columns}
    row.update(
        profile="p", model_id=LLAMA, model_key=LLAMA, config_key=f"cfg-{run_label}", config_label=run_label,
        accelerator_id=H100, accelerator_count=1, runtime="vLLM", run_labels=f'["{run_label}"]', config_status="fitted",
        status="delivered", slo_text="ttft_p95_ms <= 1000", band_rel_error=0.1, evidence="calibrated", bills=True,
        delivered_requests_per_s_low=low, delivered_requests_per_s_high=high, heldout_rel_error_median=0.1,
        heldout_rel_error_worst=0.3, input_tokens_mean=input_tokens, output_tokens_mean=output_tokens,
    )  # fmt: skip
    return row


def write_calibrated(conn, *rows):
    """calibrated.delivered_at_slo from rows such as calibrated_band's."""
    schema = {name: column.dtype.type for name, column in CalibratedDelivered.to_schema().columns.items()}
    write_table(conn, "calibrated.delivered_at_slo", pl.DataFrame(list(rows), schema=schema), CalibratedDelivered)
