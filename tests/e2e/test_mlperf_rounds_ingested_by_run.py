"""`benchbill run` ingests every round its inputs hold, in every format."""

import duckdb
import pytest

from pipelines.cli import main
from tests.support.data import DATA, V41_TABLE, V51_TABLE

V51_TREES = DATA / "mlperf" / "submissions" / "v5.1"
V41_TREES = DATA / "mlperf" / "submissions" / "v4.1"


# --- benchbill run over several rounds and formats ----------------------------------------


def test_benchbill_run_ingests_every_round_its_inputs_hold(tmp_path, capsys):
    warehouse = tmp_path / "warehouse"
    args = [
        "run",
        "--mlperf",
        str(V41_TABLE),
        "--mlperf",
        str(V51_TABLE),
        "--mlperf",
        str(V41_TREES),
        "--mlperf",
        str(V51_TREES),
        "--warehouse",
        str(warehouse),
    ]
    assert main(args) == 0
    with duckdb.connect(str(warehouse / "serving.duckdb"), read_only=True) as conn:
        counts = dict(conn.execute("SELECT round, count(*) FROM benchmark.mlperf_results GROUP BY ALL").fetchall())
        conditions = conn.execute(
            "SELECT count(*) FROM benchmark.mlperf_run_conditions r JOIN benchmark.mlperf_results m USING (result_key)"
        ).fetchone()
        disagreements = conn.execute("SELECT count(*) FROM benchmark.mlperf_source_disagreements").fetchone()
        h200 = conn.execute("""
            SELECT round, previous_round, speedup_vs_previous, best_value / previous_value
            FROM benchmark.mlperf_round_over_round
            WHERE accelerator_id = 'nvidia-b200-sxm-180gb' AND mlperf_model = 'llama2-70b-99' AND scenario = 'Offline'
        """).fetchall()
        llm_units = conn.execute(
            "SELECT count(*) FROM benchmark.mlperf_results WHERE regexp_matches(mlperf_model, "
            "'^(llama|mixtral|deepseek|gpt-oss|gptj)') AND scenario IN ('Offline','Server','Interactive') "
            "AND result_unit <> 'tokens/s'"
        ).fetchone()
    assert counts == {"v4.1": 937, "v5.1": 1448}
    assert conditions == (27,) and disagreements == (0,)
    assert llm_units == (0,)
    assert h200 and all(r[2] is None or r[2] == pytest.approx(r[3]) for r in h200)
    assert "MLPerf round v4.1" in capsys.readouterr().err
