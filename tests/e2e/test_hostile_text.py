"""Hostile text through the whole command: run.yaml labels holding an escape sequence that sets the terminal's title
and clears its screen, and a right-to-left override (`lbl-invoice\\u202egpj.exe` displays as `...exe.jpg`), and a
price provider holding colour and C1 control sequences, in a dumps folder whose own name holds a right-to-left
override (named in the run's progress lines). `benchbill run`'s shortlist and progress lines and `benchbill sql`'s
tables show them escaped (`\\x1b`, `\\u202e`), report.html holds no raw control or bidirectional character, and
`--format json` keeps the raw value."""

import io
import json
import sys

import pytest

from assets.core.paths import DEFAULT_PRICES
from pipelines.cli import main
from tests.support.data import V51_TABLE, WORKED_RUN_YAML, make_dumps
from tests.unit.test_inert_text import PROVIDER, REVERSED, TITLE_AND_CLEAR, no_raw

LABELS = {"vllm": TITLE_AND_CLEAR, "vllm+batch_size": REVERSED}
SHOWN = {TITLE_AND_CLEAR: "lbl\\x1b]0;pwned\\x07\\x1b[2J", REVERSED: "lbl-invoice\\u202egpj.exe"}


def command(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdout", out)
        patch.setattr(sys, "stderr", err)
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


# Its own warehouse: hostile labels, folder name and provider are its inputs, and it reads the run's own output.
@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile-text")
    dumps = make_dumps(root / f"dumps-{REVERSED}")
    for variant, label in LABELS.items():  # a double-quoted YAML string: \u001b is ESC
        (dumps / variant / "run.yaml").write_text(WORKED_RUN_YAML + f"label: {json.dumps(label)}\n")
    prices = root / "prices.csv"
    hostile = f"NVIDIA H100 80GB HBM3,on_demand,1.11,{PROVIDER},made up for a test,2026-01-01\n"
    prices.write_text(DEFAULT_PRICES.read_text() + hostile, encoding="utf-8")
    warehouse = root / "warehouse"
    args = ["--mlperf", str(V51_TABLE), "--dumps", str(dumps), "--prices", str(prices), "--warehouse", str(warehouse)]
    return warehouse, command("run", *args)


def test_the_run_prints_hostile_labels_escaped(run):
    _warehouse, (code, out, err) = run
    assert code == 0, err
    assert no_raw(out) and no_raw(err)
    for label, shown in SHOWN.items():
        assert shown in out, label
    assert f"dumps-{SHOWN[REVERSED]}: vllm: " in err  # the folder's name in the progress lines


def test_sql_tables_show_them_escaped_and_json_keeps_them(run):
    warehouse, _printed = run
    sql = "SELECT run_label FROM analytics.runs ORDER BY run_label"
    code, out, err = command("sql", sql, "--warehouse", str(warehouse))
    assert code == 0, err
    assert no_raw(out) and all(shown in out for shown in SHOWN.values())
    code, out, _err = command("sql", sql, "--format", "json", "--warehouse", str(warehouse))
    assert sorted(r["run_label"] for r in json.loads(out)) == sorted(LABELS.values())
    providers = "SELECT DISTINCT price_provider FROM analytics.accelerator_prices ORDER BY 1"
    code, out, err = command("sql", providers, "--warehouse", str(warehouse))
    assert code == 0, err
    assert no_raw(out) and "Evil\\x1b[31mCloud\\x9b2J" in out


def test_the_report_holds_no_raw_control_or_bidi_character(run):
    warehouse, _printed = run
    html = (warehouse / "report.html").read_text(encoding="utf-8")
    assert no_raw(html)
    assert all(shown in html for shown in SHOWN.values())
    assert "Evil\\x1b[31mCloud\\x9b2J" in html  # the cheapest H100 price's provider
