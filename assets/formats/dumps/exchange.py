"""What a dump reader is handed and what it gives: the file (`Dump`), one load level measured once
(`Measurement`) with its per-request records (a frame, or a `RequestScan` DuckDB reads in place), and
the file's measurements and problems (`Parsed`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

PERCENTILE_LABELS = ("p50", "p90", "p95", "p99")
MEASURES = ("ttft", "tpot", "itl", "e2e")


# The per-request columns every parser yields (tpot_ms is added centrally, in SQL: assets.request_records).
REQUEST_SCHEMA: dict[str, pl.DataType] = {
    "request_index": pl.Int64(),
    "phase": pl.String(),
    "status": pl.String(),
    "start_offset_s": pl.Float64(),
    "start_time_unix_s": pl.Float64(),
    "input_tokens": pl.Int64(),
    "output_tokens": pl.Int64(),
    "ttft_ms": pl.Float64(),
    "e2e_ms": pl.Float64(),
    "error": pl.String(),
}


REQUEST_COLUMNS = list(REQUEST_SCHEMA)


# Prompt and response texts, where a dump has them: kept apart from the request columns and stored
# (observed.request_texts) only when the run asks for it (`--store-texts`).
TEXT_COLUMNS = ("prompt_text", "response_text")


# Plausible per-request values: outside these a value is broken or written in another unit (a start
# time in ms or ns, a latency in us), never a measurement. Upper ends are exclusive.
REQUEST_RANGES: dict[str, tuple[float, float]] = {
    "start_offset_s": (0.0, 1e7),  # within ~116 days of the first request
    "start_time_unix_s": (0.0, 1e10),  # Unix seconds (1e12 would be ms, 1e18 ns)
    "input_tokens": (0, 1e8),
    "output_tokens": (0, 1e8),
    "ttft_ms": (0.0, 1e8),  # under ~28 hours
    "e2e_ms": (0.0, 1e8),
    "offered_rate_per_s": (0.0, 1e7),  # the load level a generic row was measured at
    "concurrency": (0.0, 1e7),
}


MAX_REQUEST_COUNT = 1e12  # a count of requests or tokens above this is a broken value


class FormatProblem(ValueError):
    """A file of a recognised format whose content cannot be used; the message is the reason."""


# What a RequestScan's SELECT yields, one row per request (the generic columns, numbers as the file has
# them: `checked_scan_sql` checks and types them).
SCAN_COLUMNS = (
    "ordinal",
    "phase",
    "status",
    "start_s",
    "input_tokens",
    "output_tokens",
    "ttft_ms",
    "e2e_ms",
    "error",
    "offered_rate_per_s",
    "concurrency",
)


# The scan's other numbers, in the order they are checked (after start_s): whether each is a count.
SCAN_NUMBERS = {
    "input_tokens": True,
    "output_tokens": True,
    "ttft_ms": False,
    "e2e_ms": False,
    "offered_rate_per_s": False,
    "concurrency": False,
}


@dataclass
class Dump:
    """One file as the registry hands it to recognisers: name, bytes, and the decoded content
    (a JSON value, a list of JSON values for JSON lines, or None). A file too large to hold
    (`partial`) carries only its first bytes (`data`), its last bytes (`tail`) and its `path`;
    for JSON lines, `payload` then holds the complete lines of that head."""

    name: str
    data: bytes
    payload: Any = None
    json_lines: bool = False
    path: str | None = None
    partial: bool = False
    tail: bytes | None = None

    @property
    def text_head(self) -> str:
        return self.data[:4096].decode("utf-8-sig", errors="replace")

    @property
    def last_bytes(self) -> bytes:
        return self.tail if self.tail is not None else self.data[-8:]

    def beside(self, file_name: str) -> bool:
        """Whether a file named `file_name` lies in this file's folder on disk (False when the file was handed
        without its place on disk, e.g. an archive member)."""
        return self.path is not None and (Path(self.path).parent / file_name).is_file()


@dataclass(frozen=True)
class RequestScan:
    """Per-request records that DuckDB reads from a file where it lies (never as Python objects).

    `select` is a SELECT over the file yielding SCAN_COLUMNS; `tolerant_select` the same with every
    value read as text, for a file DuckDB cannot read with the types it inferred or was told (a word in
    a number column far down a CSV): its values are then checked row by row like any other.
    `level_columns` names the file's own load-level columns (generic files: rows are grouped into load
    levels by them). `data` holds the bytes of a file that is not on disk (an archive member; read from
    a temporary copy, then stored in the warehouse). `start_column` says what start_s is (Unix seconds,
    or seconds from any origin), `start_units_per_s` its unit (1e9: epoch ns). A row is named
    `row_word` `ordinal + row_offset` (a CSV's first row is line 2). `read_once`: a row equal to an earlier
    one in every column is a copy, quarantined and read once; `cut_last_row`: the file does not end with
    a newline, so its last row may be cut short and is quarantined. `text_select`: the prompt and
    response texts by ordinal, where the file has them (read only when a run stores texts)."""

    path: str
    select: str
    level_columns: tuple[str, ...] = ()
    data: bytes | None = None
    tolerant_select: str | None = None
    start_column: str = "start_time_unix_s"
    start_units_per_s: float = 1.0
    row_word: str = "row"
    row_offset: int = 0
    read_once: bool = False
    cut_last_row: bool = False
    text_select: str | None = None

    def row_name(self, ordinal: int) -> str:
        return f"{self.row_word} {ordinal + self.row_offset}"

    def select_for(self, tolerant: bool) -> str:
        """The SELECT that reads the file: the tolerant one (every value as text) when asked and there is one."""
        return self.tolerant_select if tolerant and self.tolerant_select else self.select


# The load generator's own settings, per tool and as each tool spells them (`Measurement.workload` keys): what sets or
# bounds the load level and how much of it was measured, never the config nor the workload. Files of one folder (one
# run.yaml, one tool) that differ only here are one sweep: one run, one delivered band, one load level per distinct
# level. The one place that says which settings these are (`load_generator_settings`); each key has a role:
#   LEVEL   the level itself (read into Measurement.offered_rate_per_s / concurrency, listed so that it never counts
#           as a workload where a reader also states it);
#   CAP     a cap on requests in flight at an offered rate (vLLM's and SGLang's `--max-concurrency`, which sweep
#           scripts scale with the rate): recorded on each load point (`max_concurrency`); files at one rate whose
#           caps differ are not repeats, so a sweep where that happens is kept apart by cap, as the label says;
#   SAMPLE  how much was measured (prompt or request count, duration, LoadGen's run length): files at one level that
#           differ only here are repeats of it;
#   SEED    the seed of the sampled prompts or arrivals: likewise repeats.
# Burstiness, the dataset, length targets and the arrival process are the workload, not these: they separate runs.
LEVEL, CAP, SAMPLE, SEED = "level", "cap", "sample size", "seed"
_BENCH_SERVING = {"request_rate": LEVEL, "max_concurrency": CAP, "num_prompts": SAMPLE, "seed": SEED}
_AIPERF = {
    "concurrency": LEVEL,
    "request_rate": LEVEL,
    "requests": SAMPLE,
    "request_count": SAMPLE,
    "num_prompts": SAMPLE,
    "duration_s": SAMPLE,
    "random_seed": SEED,
}
LOAD_GENERATOR_SETTINGS: dict[str, dict[str, str]] = {
    "vllm": _BENCH_SERVING,
    "sglang": _BENCH_SERVING,
    "guidellm": {"rate": LEVEL, "max_requests": SAMPLE, "max_seconds": SAMPLE, "random_seed": SEED},
    "aiperf": _AIPERF,
    "genai-perf": _AIPERF,
    "llmperf": {"num_concurrent_requests": LEVEL, "max_num_completed_requests": SAMPLE, "timeout": SAMPLE},
    "inference-perf": {"rate": LEVEL, "duration": SAMPLE},
    "llm-d-benchmark": {  # the converted tool's settings as the report's embedded configuration spells them
        "request_rate": LEVEL,
        "max_concurrency": CAP,
        "num_prompts": SAMPLE,
        "duration": SAMPLE,
    },
    "mlperf-loadgen": {
        "target_qps": LEVEL,
        "min_duration_ms": SAMPLE,
        "max_duration_ms": SAMPLE,
        "min_query_count": SAMPLE,
        "max_query_count": SAMPLE,
    },
    # trtllm-bench writes no level setting (trtllm_bench.level); its request count is the sample size
    "trtllm-bench": {"concurrency": LEVEL, "num_requests": SAMPLE},
    "generic": {},
}
# A tool the table does not name (a reader added later): its sample sizes by their common spellings, nothing else.
_ANY_TOOL = {
    k: SAMPLE
    for k in ("num_prompts", "requests", "request_count", "num_requests", "max_requests", "max_seconds", "duration_s")
}


def load_generator_settings(tool: str) -> dict[str, str]:
    """The load generator's own settings of `tool` (key as the tool spells it -> role: LEVEL, CAP, SAMPLE, SEED)."""
    return LOAD_GENERATOR_SETTINGS.get(tool, _ANY_TOOL)


# Every sample-size key of every tool (what SAMPLE_SIZE_KEYS always meant: recorded, never an identity).
SAMPLE_SIZE_KEYS = frozenset(
    k for settings in [*LOAD_GENERATOR_SETTINGS.values(), _ANY_TOOL] for k, role in settings.items() if role == SAMPLE
)


def load_cap(tool: str, workload: dict[str, Any]) -> float | None:
    """The concurrency cap a measurement's workload states at its offered rate (the tool's CAP setting), as a number;
    None when there is none or it is not a finite non-negative number."""
    for key, role in load_generator_settings(tool).items():
        if role == CAP and workload.get(key) is not None:
            try:
                value = float(workload[key])
            except (TypeError, ValueError):
                return None
            return value if 0 <= value < float("inf") else None
    return None


@dataclass
class Measurement:
    """One load level measured once, as one file (or one entry of a file) reports it."""

    location: str
    load_kind: str | None = None  # "rate" | "concurrency"; None: take it from run.yaml
    offered_rate_per_s: float | None = None
    concurrency: float | None = None
    values: dict[str, Any] = field(default_factory=dict)  # load-point columns the tool reported
    tool_metrics: list[tuple[str, str, float, str]] = field(default_factory=list)  # metric, statistic, value, unit
    requests: pl.DataFrame | RequestScan | None = None
    merge_key: str | None = None  # same key in one folder = one measurement (stage file + its requests)
    merge_up: int = 0  # the key is scoped this many folders up (LLMPerf's summary/ and individual/ siblings: 1)
    # What was measured besides the load, as the file (or its name, or its sweep folder) states it: dataset,
    # input/output length targets or distribution, prompt count, tool settings. Measurements that differ here
    # are different workloads, never repeats of one load level (keys and values as the tool spells them).
    workload: dict[str, Any] = field(default_factory=dict)  # load_generator_settings: recorded, never an identity
    # Server settings the file or its sweep folder states (vllm bench sweep `SERVE--` parameters, a server
    # name and version in the file): measurements that differ here are different configs (separate runs).
    server_settings: dict[str, Any] = field(default_factory=dict)


@dataclass
class Parsed:
    kind: str
    tool: str
    definitions: str
    measurements: list[Measurement] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (location, reason): quarantined
    note: str = ""
    tool_version: str | None = None  # as the file states it (None: the file does not say)
