"""The peer contender: the same computation as bench/reference.sql written plainly with pandas, as a typical
analysis notebook would (read every file into one DataFrame, filter, group, quantile)."""

import glob
import json
import os

import pandas as pd


def load(data: str) -> pd.DataFrame:
    frames = []
    for path in sorted(glob.glob(f"{data}/h100-vllm/*.parquet")):
        df = pd.read_parquet(path)
        frames.append(df.assign(config="h100-vllm", repeat=path, level=df["offered_rate_per_s"]))
    for path in sorted(glob.glob(f"{data}/l40s-vllm/*.parquet")):
        df = pd.read_parquet(path)
        frames.append(df.assign(config="l40s-vllm", repeat=path, level=df["concurrency"]))
    for path in sorted(glob.glob(f"{data}/h200-sglang/*.csv")):
        df = pd.read_csv(path)
        frames.append(df.assign(config="h200-sglang", repeat=path, level=df["offered_rate_per_s"]))
    for path in sorted(glob.glob(f"{data}/mi300x-vllm/*/profile_export.jsonl")):
        with open(os.path.join(os.path.dirname(path), "profile_export_aiperf.json")) as f:
            rate = json.load(f)["input_config"]["phases"][0]["rate"]
        raw = pd.read_json(path, lines=True)
        meta = pd.json_normalize(raw["metadata"])
        metrics = pd.json_normalize(raw["metrics"])
        frames.append(
            pd.DataFrame(
                {
                    "config": "mi300x-vllm",
                    "repeat": path,
                    "level": rate,
                    "phase": meta["benchmark_phase"].map({"warmup": "warmup"}).fillna("measure"),
                    "status": raw["error"].isna().map({True: "ok", False: "error"}),
                    "start_time_unix_s": meta["request_start_ns"] / 1e9,
                    "ttft_ms": metrics["time_to_first_token.value"],
                    "e2e_ms": metrics["request_latency.value"],
                    "output_tokens": metrics["output_sequence_length.value"],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def compute(data: str) -> pd.DataFrame:
    df = load(data)
    df = df[df["phase"] == "measure"].copy()
    df["tpot_ms"] = (df["e2e_ms"] - df["ttft_ms"]) / (df["output_tokens"] - 1)
    df.loc[df["output_tokens"] < 2, "tpot_ms"] = float("nan")
    df["end_s"] = df["start_time_unix_s"] + df["e2e_ms"].fillna(0) / 1000
    windows = df.groupby(["config", "level", "repeat"]).apply(
        lambda g: (g["status"] == "ok").sum() / (g["end_s"].max() - g["start_time_unix_s"].min())
    )
    achieved = windows.groupby(["config", "level"]).mean().rename("achieved_requests_per_s")
    ok = df[df["status"] == "ok"]
    grouped = ok.groupby(["config", "level"])
    points = grouped.size().rename("requests_ok").to_frame()
    for measure in ("ttft", "tpot", "e2e"):
        for p in (50, 90, 95, 99):
            points[f"{measure}_p{p}_ms"] = grouped[f"{measure}_ms"].quantile(p / 100)
    points = points.join(achieved)
    meets = (points["ttft_p95_ms"] <= 1000) & (points["tpot_p95_ms"] <= 50)
    points["delivered_requests_per_s"] = (
        points["achieved_requests_per_s"].where(meets).groupby("config").transform("max")
    )
    return points.reset_index()
