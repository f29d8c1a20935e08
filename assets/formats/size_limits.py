"""The one table of how large a file may be for a reader that holds it whole in memory (a JSON document decoded,
a CSV or console log read into rows): a file above its format's limit is refused before it is parsed, with its
name, its size and the limit, and costs only itself (quarantined). Formats read in place by DuckDB (per-request
records) stream and have no limit here; every file read whole is also under the input limit of
`assets.inputs.files.MAX_LOCAL_FILE_BYTES`.

The limits are tens of times the largest real file of each format seen (docs/inputs-dumps.md): a per-level summary
has one row per load level, an lm-eval results file a few megabytes of scores and settings, a console log a few
reports in its log lines; a JSON result with every request's token times (vLLM `--save-detailed`) is the large
case the default allows for.
"""

from __future__ import annotations

from assets.core.errors import IngestError
from assets.formats.dumps import generic_levels, trtllm_bench
from assets.formats.quality import generic_csv, lm_eval

MIB = 1024 * 1024
DEFAULT_WHOLE_READ_BYTES = 512 * MIB  # any other format read whole (a JSON document, a text report)

# format (as `audit.source_files.detected_format` names it; lm-eval: its harness) -> the largest file read whole
WHOLE_READ_LIMIT_BYTES: dict[str, int] = {
    generic_levels.LEVELS_CSV: 64 * MIB,
    lm_eval.HARNESS: 64 * MIB,  # its results files, either version (recognised from a large file's head)
    generic_csv.QUALITY_CSV: 64 * MIB,
    trtllm_bench.CONSOLE: 256 * MIB,
    trtllm_bench.CONSOLE_BESIDE_JSON: 256 * MIB,
    trtllm_bench.REPORT_JSON: 64 * MIB,
}


def whole_read_limit(kind: str) -> int:
    """The largest file of format `kind` read whole, in bytes."""
    return WHOLE_READ_LIMIT_BYTES.get(kind, DEFAULT_WHOLE_READ_BYTES)


def check_whole_read(name: str, size: int | None, kind: str) -> None:
    """IngestError naming the file, its size and the limit when a file of format `kind` is too large to read whole."""
    limit = whole_read_limit(kind)
    if size is not None and size > limit:
        raise IngestError(
            f"{name}: {size:,} bytes, above the {limit:,}-byte limit for a {kind} read whole "
            "(docs/inputs-dumps.md, size limits): not read; split it or keep only what the format holds"
        )
