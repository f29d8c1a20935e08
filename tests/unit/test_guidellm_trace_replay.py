"""GuideLLM's trace replay (0.8's `replay` profile, strategy `trace`: the plan's files use it) read from the recorded
GuideLLM fixture with its strategy changed to the one a replay writes: a rate level whose rate the report does not
state (its levels are told apart by their folder)."""

import json
import re

from tests.support.data import FIXTURES
from tests.support.observed import parse


def test_a_guidellm_trace_replay_is_a_rate_level_whose_rate_the_report_does_not_state(tmp_path):
    report = json.loads((FIXTURES / "guidellm/benchmarks.json").read_text())
    for bench in report["benchmarks"]:  # as GuideLLM 0.8 writes a `replay` profile's benchmark
        bench["config"]["strategy"] = {"type_": "trace", "time_scale": 1.0, "schedule_turn": "timestamp"}
    (tmp_path / "benchmarks.json").write_text(json.dumps(report))
    csv_text = (FIXTURES / "guidellm/benchmarks.csv").read_text()
    (tmp_path / "benchmarks.csv").write_text(re.sub(r"constant@\d+\.\d+", "trace@1.00", csv_text))
    for name in ("benchmarks.json", "benchmarks.csv"):
        measured = parse(tmp_path / name).measurements
        assert [(m.load_kind, m.offered_rate_per_s, m.concurrency) for m in measured] == [("rate", None, None)] * 2
