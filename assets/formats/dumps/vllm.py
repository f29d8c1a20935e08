"""vLLM `vllm bench serve` results (and the older `benchmarks/benchmark_serving.py`).

Shapes read: one JSON object (`--save-result`); several objects on their own lines
(`--append-result`); with `--save-detailed`, per-request arrays `input_lens`, `output_lens`,
`ttfts` (s), `itls` (s), `latencies` (s), `start_times` (monotonic s), `errors` ("" = success);
old spellings (`"request_goodput:"` with a trailing colon, no `failed`); `request_rate` written as
the string "inf" (closed loop when `max_concurrency` is set); `--metadata` values as strings; the
InferenceX copy that writes seconds without `_ms` (`median_ttft`, `p99_tpot`, ...). A
`vllm bench sweep serve_sla` tree is a set of ordinary results (`<var>=<v>/run=<i>.json`: the
runs of one value are repeats of one load level) plus `summary.json` / `SLA--*.json` (lists of
those same results) and `summary.csv`, which are recognised and not read twice.

A `vllm bench sweep serve` tree holds `SERVE--<k>=<v>-...-BENCH--<k>=<v>-.../run=<i>.json` (the tool
also writes those overrides, and `run_number`, into each run's JSON); `warmup.json` beside them is a
warm-up run (`run_number` -1), recognised and not read.

What was measured besides the load (`Measurement.workload`): `num_prompts`, `burstiness`, `backend`,
`endpoint_type`, `label`, ramp-up settings, `max_concurrency` where the offered rate is the load axis, the
`BENCH--` overrides of a sweep folder and `--metadata` keys naming the workload (`input_len`, ..., a `seed`);
`num_prompts`, `max_concurrency` and `seed` are the load generator's own settings
(`assets.formats.dumps.exchange.LOAD_GENERATOR_SETTINGS`), never telling runs apart but for caps at one rate. vLLM
does not write the dataset or the length targets, so where the file NAME states them they are taken from
it: `<server>-<input>-<output>[-<variant>].json` and `<server>-sharegpt[-<variant>].json` (simon-mo/
R1-Benchmark: `vllm-1000-2000.json` -> input_len 1000, output_len 2000) and `...-itkns-<input>-otkns-
<output>-...` (aurotripathy/vllm-bench). Server settings (`Measurement.server_settings`): `model_id`, the
`SERVE--` overrides, the other `--metadata` keys (nerdalert's `framework`, `gpu`, `deployment`, ...), and
the server such a file name states (`vllm-`, `sgl-`, `trt-` prefix; `-ep` suffix = expert parallel).
No generation of the result states the version of vLLM (`tool_version` stays None).

Failures: `failed` where the file has it; otherwise `num_prompts - completed` (every prompt is sent), said
in the file's note. With per-request arrays a request with no error text but `output_lens` 0 and `ttfts`
0.0 is what vLLM writes for an unsuccessful request whose error has no text (it also writes 0 for a
success that produced no token): when (requests - `completed`) says the tool counted exactly those (and
the requests with error text) as not completed they are errors, otherwise they stay successes with 0
output tokens (the request pass excludes them from the latency percentiles). Nothing is dropped here.

vLLM's TTFT, TPOT ((E2E - TTFT)/(output tokens - 1) per request), ITL (every gap pooled) and E2EL
are ours; its percentiles are numpy's linear interpolation over successful requests.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import PurePath
from typing import Any

from assets.formats.dumps.bench_serving import SGLANG_KEYS, detailed_requests, flat_stats, load_level
from assets.formats.dumps.exchange import Dump, FormatProblem, Measurement, Parsed
from assets.formats.dumps.values import count, empty_point, number, repeated

TOOL = "vllm"
RESULT = "vllm bench serve result"
RESULT_LINES = "vllm bench serve results (appended JSON lines)"
RESULT_SECONDS = "vllm-derived summary in seconds (InferenceX)"
SWEEP_SUMMARY = "vllm bench sweep summary (list of the run=N results beside it)"
SWEEP_CSV = "vllm bench sweep summary.csv"
SWEEP_WARMUP = "vllm bench sweep warm-up run (warmup.json, run_number -1)"
FORMATS = (RESULT, RESULT_LINES, RESULT_SECONDS, SWEEP_SUMMARY, SWEEP_CSV, SWEEP_WARMUP)
SKIPPED = {
    SWEEP_SUMMARY: "the same results as the run=N.json files beside it; read from those",
    SWEEP_CSV: "the same results as the run=N.json files of the sweep; read from those",
    SWEEP_WARMUP: "a warm-up run of the sweep (run_number -1): not a measurement",
}
READ_IN_PLACE = frozenset[str]()

DEFINITIONS = (
    "vLLM bench serve: TTFT = send to first token; TPOT = (E2E - TTFT) / (output tokens - 1) per request (ours); "
    "ITL = every inter-token gap pooled (ours); E2EL = send to last token; request_goodput = good requests / "
    "duration at the offered load; percentiles by numpy (linear) over successful requests; ms"
)
DEFINITIONS_SECONDS = DEFINITIONS.replace("; ms", "; written in seconds without _ms (InferenceX copy), converted to ms")

_STAT = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el)(_ms)?$")
_OURS = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2el": "e2e"}


# The keys `vllm bench serve` (and benchmark_serving.py before it) writes itself, in every generation;
# any other top-level key is a `--metadata` pair or a sweep override (`vllm bench sweep` adds them).
RESULT_KEYS = frozenset(
    {
        "date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts", "best_of",
        "use_beam_search", "request_rate", "burstiness", "max_concurrency", "duration", "completed", "failed",
        "total_input_tokens", "total_output_tokens", "request_throughput", "request_goodput", "request_goodput:",
        "output_throughput", "total_token_throughput", "input_throughput", "max_output_tokens_per_s",
        "max_concurrent_requests", "rtfx", "input_lens", "output_lens", "ttfts", "itls", "latencies",
        "queue_times", "start_times", "generated_texts", "errors", "ramp_up_strategy", "ramp_up_start_rps",
        "ramp_up_end_rps", "rps_change_events", "run_number",
    }
)  # fmt: skip
# Statistic keys of any metric (`p99_client_queue_time_ms`, `probe_p99_e2el_ms`, `spec_decode_*`): the tool's own.
_TOOL_KEY = re.compile(r"^((mean|median|std|p\d+(\.\d+)?)_\w+|probe_\w+|spec_decode_\w+)$")
# Tool settings of the result that say what was measured (the workload), as the tool spells them.
WORKLOAD_KEYS = ("num_prompts", "burstiness", "backend", "endpoint_type", "label", "ramp_up_strategy",
                 "ramp_up_start_rps", "ramp_up_end_rps")  # fmt: skip
# A `--metadata` key naming the workload (the rest describe the server or the deployment); a server word wins
# (`max_model_len` is the server's, `input_len` the workload's).
_WORKLOAD_WORD = re.compile(
    r"len|length|dataset|prompt|isl|osl|input|output|concurren|rate|burst|ratio|prefix|seed", re.I
)
_SERVER_WORD = re.compile(
    r"model|max_num|gpu|replica|deploy|framework|server|engine|parallel|quant|dtype|kv_|cache", re.I
)
# Lengths and datasets a file NAME states (see the module docstring): vLLM does not write them.
_NAMED_LENGTHS = re.compile(r"(?:^|-)itkns-(?P<input>\d+)-otkns-(?P<output>\d+)(?:-|\.json$)")
_NAMED_SERVER = re.compile(
    r"^(?P<server>vllm|sgl|sglang|trt)-(?:(?P<input>\d+)-(?P<output>\d+)|(?P<dataset>sharegpt))(?:-(?P<variant>[a-z0-9]*))?\.json$"
)
_VARIANTS = {"ep": ("expert_parallel", True)}  # file-name suffix -> server setting (simon-mo/R1-Benchmark)


def _is_result(obj: Any) -> bool:
    if not isinstance(obj, dict) or "request_throughput" not in obj or "duration" not in obj:
        return False
    if SGLANG_KEYS & obj.keys():
        return False
    return any(_STAT.match(k) for k in obj) or "burstiness" in obj


def _in_seconds(obj: dict) -> bool:
    matched = [m for m in (_STAT.match(k) for k in obj) if m]
    return bool(matched) and not any(m.group(3) for m in matched)


def _is_warmup(dump: Dump) -> bool:
    return PurePath(dump.name).name == "warmup.json" and dump.payload.get("run_number") == -1


def recognise(dump: Dump) -> str | None:
    payload = dump.payload
    if dump.json_lines:
        return RESULT_LINES if payload and all(_is_result(p) for p in payload) else None
    if isinstance(payload, list):
        return SWEEP_SUMMARY if payload and all(_is_result(p) for p in payload) else None
    if _is_result(payload):
        if _is_warmup(dump):
            return SWEEP_WARMUP
        return RESULT_SECONDS if _in_seconds(payload) else RESULT
    if (
        dump.name.endswith("summary.csv")
        and "request_throughput" in dump.text_head.split("\n", 1)[0]
        and "duration" in dump.text_head.split("\n", 1)[0]
    ):
        return SWEEP_CSV
    return None


def parse(dump: Dump, kind: str) -> Parsed:
    parsed = Parsed(kind=kind, tool=TOOL, definitions=DEFINITIONS_SECONDS if kind == RESULT_SECONDS else DEFINITIONS)
    objects = dump.payload if kind == RESULT_LINES else [dump.payload]
    copies = repeated(objects)
    inferred: list[str] = []
    for i, obj in enumerate(objects):
        location = f"line {i + 1}" if kind == RESULT_LINES else "result"
        if i in copies:
            parsed.problems.append((location, f"the same result as line {copies[i] + 1} (every key equal): read once"))
            continue
        try:
            measurement = result_measurement(obj, location, seconds=_in_seconds(obj))
        except FormatProblem as problem:
            parsed.problems.append((location, str(problem)))
            continue
        measurement.workload.update(named_workload(dump.name))
        measurement.server_settings.update(named_server(dump.name))
        serve, bench = sweep_overrides(dump.name, obj)
        for key in serve:  # the folder says where an override belongs, whatever its name suggests
            measurement.workload.pop(key, None)
        for key in bench:
            measurement.server_settings.pop(key, None)
        measurement.server_settings.update(serve)
        measurement.workload.update(bench)
        parsed.measurements.append(measurement)
        if "failed" not in obj and measurement.values["requests_failed"] is not None:
            inferred.append(f"{location}: {measurement.values['requests_failed']}")
    if inferred:
        parsed.note = (
            "no `failed` key: failed requests inferred as num_prompts - completed (" + "; ".join(inferred) + ")"
        )
    return parsed


def named_workload(path: str) -> dict[str, Any]:
    """Input/output length targets or the dataset a file NAME states (vLLM writes neither)."""
    name = PurePath(path).name
    match = _NAMED_LENGTHS.search(name) or _NAMED_SERVER.match(name)
    if match is None:
        return {}
    if match.groupdict().get("dataset"):
        return {"dataset_name": match.group("dataset")}
    return {"input_len": int(match.group("input")), "output_len": int(match.group("output"))}


def named_server(path: str) -> dict[str, Any]:
    """The server a file NAME states: `vllm-`/`sgl-`/`trt-` prefix, `-ep` suffix (expert parallel)."""
    match = _NAMED_SERVER.match(PurePath(path).name)
    if match is None:
        return {}
    settings: dict[str, Any] = {"server": match.group("server")}
    variant = match.group("variant")
    if variant:
        key, value = _VARIANTS.get(variant, ("variant", variant))
        settings[key] = value
    return settings


_SWEEP_PAIR = re.compile(r"(?:^|-)([A-Za-z_][A-Za-z0-9_.]*)=")


def sweep_overrides(path: str, obj: dict) -> tuple[dict[str, Any], dict[str, Any]]:
    """(server settings, workload) of a `vllm bench sweep` result from its `SERVE--...-BENCH--...` folder:
    the keys the folder names, with the values the tool wrote into the result (typed), else the folder's text."""
    folder = next((p for p in reversed(PurePath(path).parts[:-1]) if p.startswith(("SERVE--", "BENCH--"))), None)
    if folder is None:
        return {}, {}
    serve_text, _, bench_text = folder.partition("-BENCH-")
    if folder.startswith("BENCH--"):
        serve_text, bench_text = "", folder[len("BENCH-") :]
    return _overrides(serve_text.removeprefix("SERVE--"), obj), _overrides(bench_text.removeprefix("-"), obj)


def _overrides(text: str, obj: dict) -> dict[str, Any]:
    if not text:
        return {}
    if "=" not in text:  # a named combination (`_benchmark_name`)
        return {"_benchmark_name": text}
    in_file = [k for k in obj if k not in RESULT_KEYS and re.search(rf"(?:^|-){re.escape(k)}=", text)]
    if in_file:
        return {k: obj[k] for k in in_file}
    starts = list(_SWEEP_PAIR.finditer(text))
    return {
        m.group(1): _folder_value(text[m.end() : starts[i + 1].start() if i + 1 < len(starts) else len(text)])
        for i, m in enumerate(starts)
    }


def _folder_value(text: str) -> Any:
    """A folder's `<k>=<v>` value as the JSON the tool was given (`128` -> 128, `True` -> true), else the text."""
    if text in ("True", "False"):  # Python's spelling of a JSON boolean in the folder name
        return text == "True"
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, (int, float)) and math.isfinite(value) else text


def stated_settings(obj: dict, rate: float | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(workload, server settings) the result itself states: its tool settings, `model_id`, and each
    `--metadata` key by what it names (sweep overrides are placed by their folder, `sweep_overrides`)."""
    workload = {k: obj[k] for k in WORKLOAD_KEYS if obj.get(k) is not None}
    if rate is not None and obj.get("max_concurrency") is not None:  # a cap on the offered rate, not the load axis
        workload["max_concurrency"] = obj["max_concurrency"]
    server = {"model_id": obj["model_id"]} if obj.get("model_id") is not None else {}
    for key, value in obj.items():
        if key in RESULT_KEYS or _TOOL_KEY.match(key) or not isinstance(value, (str, int, float, bool)):
            continue
        names_workload = _WORKLOAD_WORD.search(key) and not _SERVER_WORD.search(key)
        (workload if names_workload else server)[key] = value
    return workload, server


def result_measurement(obj: dict, location: str, *, seconds: bool) -> Measurement:
    scale = 1000.0 if seconds else 1.0
    kind, rate, concurrency = load_level(obj, location)
    completed = count(obj.get("completed"), "completed")
    prompts = (
        count(obj["num_prompts"], "num_prompts", allow_string=True) if obj.get("num_prompts") is not None else None
    )
    if obj.get("failed") is not None:
        failed: int | None = count(obj["failed"], "failed")
    elif prompts is not None:  # every prompt is sent: what did not complete failed (said in the file's note)
        if prompts < completed:
            raise FormatProblem(f"completed ({completed}) exceeds num_prompts ({prompts})")
        failed = prompts - completed
    else:
        failed = None
    duration = number(obj.get("duration"), "duration")
    row = empty_point()
    total_in = number(obj.get("total_input_tokens"), "total_input_tokens")
    total_out = number(obj.get("total_output_tokens"), "total_output_tokens")
    input_rate = number(obj.get("input_throughput"), "input_throughput")
    row.update(
        achieved_requests_per_s=number(obj.get("request_throughput"), "request_throughput"),
        requests_ok=completed,
        requests_failed=failed,
        requests_sent=None if failed is None else completed + failed,
        duration_s=duration,
        output_tokens_per_s=number(obj.get("output_throughput"), "output_throughput"),
        total_tokens_per_s=number(obj.get("total_token_throughput"), "total_token_throughput"),
        input_tokens_per_s=input_rate
        if input_rate is not None
        else (total_in / duration if total_in is not None and duration else None),
        input_tokens_mean=total_in / completed if total_in is not None and completed else None,
        output_tokens_mean=total_out / completed if total_out is not None and completed else None,
    )
    metrics = flat_stats(obj, row, _STAT, _OURS, scale)
    for key in ("request_goodput", "request_goodput:"):  # the trailing colon is an old spelling
        goodput = number(obj.get(key), key, allow_string=True)
        if goodput is not None:
            metrics.append(("request_goodput", "value", goodput, "requests/s"))
    if failed is not None and obj.get("failed") is None:
        metrics.append(("requests_failed", "inferred: num_prompts - completed", float(failed), "requests"))
    requests = detailed_requests(obj, completed) if "ttfts" in obj else None
    if requests is not None and failed is None:
        row["requests_failed"] = int((requests["status"] == "error").sum())
        row["requests_sent"] = completed + row["requests_failed"]
    workload, server = stated_settings(obj, rate)
    return Measurement(
        location=location,
        load_kind=kind,
        offered_rate_per_s=rate,
        concurrency=concurrency,
        values=row,
        tool_metrics=metrics,
        requests=requests,
        workload=workload,
        server_settings=server,
    )
