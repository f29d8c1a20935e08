"""A bad file costs itself, never the build: a dumps folder of good runs plus every kind of bad file seen so far
publishes the good runs exactly as without the bad files; each bad file is listed with what it is or why it could
not be read, a run left with nothing readable is quarantined as a whole, and the run exits 0 with a line counting
the files skipped and quarantined.

trtllm-bench's report JSON and console report are read (tests/integration/test_public_trtllm_bench.py); what is
left of TensorRT-LLM's outputs is made here in its real layout: `../shared/data/dumps/public/` holds no
gptManagerBenchmark `*_util.csv` nor a trtllm-bench console log (its README lists both as not represented), so a
utilisation file is written as gptManagerBenchmark writes it (a Python dict printed, not CSV) and a console log as
trtllm-bench prints it, cut before its figures (TensorRT-LLM log lines, then its `PERFORMANCE OVERVIEW` header)."""

import json

import duckdb

from pipelines.cli import main
from tests.support.data import FIXTURES, V51_TABLE, WORKED_RUN_YAML, make_dumps

# gptManagerBenchmark's utilisation samples: a Python dict written with print(), single quotes.
GPT_MANAGER_UTIL = (
    b"{'timestamp': [0.0, 0.5, 1.0], 'gpu_util': [87.0, 91.5, 90.0], 'mem_util': [41.0, 43.0, 42.5], "
    b"'mem_used_gb': [71.2, 71.4, 71.4]}\n"
)
# trtllm-bench's console output cut before its figures: logger lines, then its report blocks' headers.
TRTLLM_CONSOLE = b"""[TensorRT-LLM] TensorRT-LLM version: 0.17.0
[12/04/2026-10:00:00] [TRT-LLM] [I] Preparing to run throughput benchmark...

===========================================================
= ENGINE DETAILS
===========================================================
Model:                  meta-llama/Llama-3.1-8B
TensorRT-LLM Version:   0.17.0
Dtype:                  bfloat16

===========================================================
= PERFORMANCE OVERVIEW
===========================================================
"""
VLLM_RESULT = FIXTURES / "vllm" / "openai-4.0qps-Llama-3.1-8B-Instruct-20260901-120000.json"
VLLM_RUN_YAML = WORKED_RUN_YAML + "label: vllm-cut\n"

# name -> (bytes or a real file, what audit.source_files says: status, and a part of the note or the quarantine reason)
BAD_FILES = {
    "vllm/llama_8b_util.csv": (GPT_MANAGER_UTIL, "skipped", "a TensorRT-LLM gptManagerBenchmark utilisation file"),
    "vllm/result_llama_8b_bs64.txt": (
        TRTLLM_CONSOLE,
        "skipped",
        "a trtllm-bench console report without its performance figures",
    ),
    "vllm/garbage.bin": (bytes(range(256)) * 16, "skipped", "not a dump format this version reads"),
    "vllm/empty.json": (b"", "skipped", "empty file (0 bytes)"),
    "vllm/notes-latin1.txt": (
        "Durchsatz gemessen: 12 Anfragen/s, Größe ok\n".encode("latin-1"),
        "skipped",
        "not a dump format this version reads",
    ),
    "vllm/unknown-shape.json": (
        b'{"colour": "red", "speed": 3}',
        "skipped",
        'format this version reads (JSON with keys "colour"',
    ),
    # a stage file cut short, in a folder beside the run's results (a link into ../shared), under its run.yaml
    "vllm/damaged/stage_9_lifecycle_metrics.json": (None, "quarantined", "invalid JSON"),
    "vllm-cut/result.json": (None, "quarantined", "invalid JSON"),  # the only file of its run, cut short
}


def _bad_files(dumps, with_bad: bool):
    """The good runs (the two real inference-perf sweeps), and with `with_bad` every bad file beside them."""
    make_dumps(dumps)
    if not with_bad:
        return
    stage = (dumps / "vllm" / "results" / "stage_0_lifecycle_metrics.json").read_bytes()
    (dumps / "vllm-cut").mkdir()
    (dumps / "vllm-cut" / "run.yaml").write_text(VLLM_RUN_YAML)
    for name, (data, _status, _note) in BAD_FILES.items():
        path = dumps / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith("stage_9_lifecycle_metrics.json"):
            data = stage[: len(stage) // 2]
        elif name == "vllm-cut/result.json":
            data = VLLM_RESULT.read_bytes()[: VLLM_RESULT.stat().st_size // 2]
        path.write_bytes(data)


def _publish(root, with_bad: bool, capsys):
    dumps = root / "dumps"
    _bad_files(dumps, with_bad)
    warehouse = root / "warehouse"
    args = ["run", "--mlperf", str(V51_TABLE), "--dumps", str(dumps), "--warehouse", str(warehouse)]
    code = main(args)
    return code, capsys.readouterr(), warehouse


def _tables(warehouse):
    """The published observed and mart tables a good run feeds, run by run (paths made relative)."""
    with duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True) as conn:
        out = {}
        for table in ("observed.runs", "observed.load_points", "observed.delivered_at_slo", "marts.config_shortlist"):
            rows = conn.execute(f"SELECT * FROM {table}").fetchall()
            columns = [d[0] for d in conn.description]
            text = json.dumps([dict(zip(columns, r)) for r in rows], default=str, sort_keys=True)
            out[table] = sorted(json.loads(text.replace(str(warehouse.parent), "ROOT")), key=json.dumps)
        files = conn.execute(
            "SELECT source, status, coalesce(note, '') FROM audit.source_files "
            "WHERE table_name = 'observed.measurements'"
        ).fetchall()
        quarantine = conn.execute("SELECT source, location, reason FROM audit.quarantine").fetchall()
    return out, files, quarantine


def test_bad_files_cost_themselves_and_the_good_runs_publish_as_without_them(tmp_path_factory, capsys):
    # a short folder: the listed path must fit the 160 columns of a line also below an xdist worker's folder
    root = tmp_path_factory.mktemp("bd")
    code, said, warehouse = _publish(root / "bad", True, capsys)
    assert code == 0, said.err[-3000:]
    clean_code, clean_said, clean = _publish(root / "clean", False, capsys)
    assert clean_code == 0, clean_said.err[-3000:]

    tables, files, quarantine = _tables(warehouse)
    clean_tables, _files, _quarantine = _tables(clean)
    assert tables["observed.runs"] and tables["marts.config_shortlist"]
    for table, rows in clean_tables.items():
        assert [json.dumps(r).replace("/bad/", "/x/") for r in tables[table]] == [
            json.dumps(r).replace("/clean/", "/x/") for r in rows
        ], table

    listed = {source.split("/dumps/", 1)[1]: (status, note) for source, status, note in files}
    reasons = {source.split("/dumps/", 1)[1]: reason for source, _location, reason in quarantine}
    for name, (_data, status, said_about_it) in BAD_FILES.items():
        assert listed[name][0] == status, (name, listed[name])
        if status == "skipped":
            assert said_about_it in listed[name][1] and listed[name][1], (name, listed[name])
        else:
            assert said_about_it in reasons[name], (name, reasons.get(name))
    # the run left with nothing readable is quarantined as a whole, said; the good run keeps its levels
    assert "the run is quarantined as a whole" in reasons["vllm-cut/run.yaml"]

    lines = said.out.splitlines()
    assert "dump files no reader reads, skipped (audit.source_files): 6" in lines
    assert (
        "  "
        + str(warehouse.parent / "dumps/vllm/llama_8b_util.csv")
        + (": a TensorRT-LLM gptManagerBenchmark utilisation file: not read")
        in lines
    )
    assert (
        "dump files not in the published set: 6 skipped (no reader reads them), 2 quarantined "
        "(analytics.quarantine); every other file and run is published"
    ) in lines
    assert "quarantined files and runs (analytics.quarantine): 3" in lines
    assert "invalid JSON at line 1 column 2" not in said.err
