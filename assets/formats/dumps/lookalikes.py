"""What a file no dump reader reads looks like, where that is recognisable: the listing in `audit.source_files`
says so ("a TensorRT-LLM gptManagerBenchmark utilisation file: not read") instead of a bare "not a dump format".
Nothing here reads a file's numbers: these are names for what is skipped, recognised from the name and the head
(`json_shape`: the first keys of a JSON document no reader knows). Only files no reader recognised get here:
trtllm-bench's report JSON and console report are read (`assets.formats.dumps.trtllm_bench`), so what is named here
is what is left of them (a console log with no report in it, a report JSON or console report without its
performance figures) and TensorRT-LLM's other outputs."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from assets.formats.dumps.generic_levels import KNOWN_COLUMNS, LEVEL_COLUMNS, LEVELS_CSV
from assets.inputs.textinput import json_head

# A Python dict or list written with print() or repr(): single-quoted keys, where JSON needs double quotes.
_PYTHON_REPR = re.compile(rb"^\s*[\[{]\s*'")


def _text(head: bytes) -> str:
    return head[:4096].decode("utf-8", errors="replace")


def _name(name: str) -> str:
    return name.rsplit("/", 1)[-1].lower()


def _gpt_manager_util(name: str, head: bytes) -> bool:
    # gptManagerBenchmark's `*_util.csv`: a Python dict of GPU utilisation samples, not CSV
    return _name(name).endswith("_util.csv") and bool(_PYTHON_REPR.match(head))


def _trtllm_report(name: str, head: bytes) -> bool:
    text = _text(head)
    return "PERFORMANCE OVERVIEW" in text and ("ENGINE DETAILS" in text or "Request Throughput (req/sec)" in text)


def _trtllm_json(name: str, head: bytes) -> bool:
    # trtllm-bench --report_json: engine, world_info, request_info, performance, ... blocks
    value = json_head(head)  # None unless the head begins a JSON object or list
    return isinstance(value, dict) and {"engine", "world_info", "request_info"} <= value.keys()


# A TensorRT-LLM logger line: `[TensorRT-LLM] ...`, or a timestamp then `[TRT-LLM]` (never a mention in prose).
_TRTLLM_LOG_LINE = re.compile(r"^(?:\[TensorRT-LLM\]|\[[0-9/:-]+\] \[TRT-LLM\])", re.MULTILINE)


def _trtllm_log(name: str, head: bytes) -> bool:
    return bool(_TRTLLM_LOG_LINE.search(_text(head)))


def _python_repr(name: str, head: bytes) -> bool:
    return bool(_PYTHON_REPR.match(head))


# In the order they are tried: the first that matches names the file.
LOOKALIKES: list[tuple[Callable[[str, bytes], bool], str]] = [
    (_gpt_manager_util, "a TensorRT-LLM gptManagerBenchmark utilisation file"),
    (_trtllm_report, "a trtllm-bench console report without its performance figures"),
    (_trtllm_json, "a trtllm-bench JSON report without its performance block"),
    (_trtllm_log, "a TensorRT-LLM console log"),
    (_python_repr, "a Python value written with print() or repr() (single quotes), not JSON"),
]


def _generic_levels_missing(head: bytes) -> str | None:
    """A CSV whose header is the generic per-level summary's but for a required column: which one it lacks."""
    first = _text(head).lstrip("\ufeff").split("\n", 1)[0].strip()
    columns = {c.strip().strip('"').lower() for c in first.split(",")} if "," in first else set()
    known = columns & set(KNOWN_COLUMNS)
    if "achieved_requests_per_s" in columns and not columns & set(LEVEL_COLUMNS):
        missing = f"its level column ({' or '.join(LEVEL_COLUMNS)}: the rate or concurrency of each row)"
    elif columns & set(LEVEL_COLUMNS) and len(known) >= 2 and "achieved_requests_per_s" not in columns:
        missing = "its column achieved_requests_per_s (successful requests completed per second)"
    else:
        return None
    return f"a {LEVELS_CSV} without {missing}"


def json_shape(head: bytes) -> str | None:
    """'JSON with keys "a", "b"' (or 'a JSON list'), for a JSON document whose head parses."""
    value = json_head(head)
    if isinstance(value, dict):
        keys = ", ".join(json.dumps(k) for k in list(value)[:5]) + (", ..." if len(value) > 5 else "")
        return f"JSON with keys {keys}" if value else None
    if isinstance(value, list):
        return "a JSON list"
    return None


def looks_like(name: str, head: bytes) -> str | None:
    """What a file that no dump reader reads looks like, in words (None when nothing recognisable)."""
    if not head:
        return None
    return _generic_levels_missing(head) or next(
        (description for matches, description in LOOKALIKES if matches(name, head)), None
    )
