"""The asset checks (sql/checks/<schema>/<table>__<check>.sql) on a small DuckDB: each selects exactly the rows it is
about and passes over good ones (a check that selects nothing whatever the data would never fail a run)."""

import duckdb
import pytest

from assets.sql_tables import check_outcome
from assets.warehouse import sqldoc, sqlfiles
from assets.warehouse.sqlfiles import check_sql_files, read_sql, table_sql_files

# check -> (the tables it reads, holding good rows and offending ones; what its first column gives for each
# offending row)
CASES = {
    "benchmark/mlperf_results__per_accelerator_consistent": (
        """
        CREATE TABLE benchmark.mlperf_results AS SELECT * FROM (VALUES
            ('ok', 800.0, 100.0, 8, 'throughput'), ('off', 800.0, 90.0, 8, 'throughput'),
            ('latency', 5.0, NULL, 8, 'latency'), ('cpu only', 10.0, NULL, 0, 'throughput'))
            AS t(result_key, result_value, result_per_accelerator, accelerator_count, metric_kind)""",
        ["off"],
    ),
    "benchmark/mlperf_results__one_row_per_result": (
        """
        CREATE TABLE benchmark.mlperf_results AS SELECT * FROM (VALUES
            ('v5.1', 'closed', 'datacenter', 'A', 'box', 'llama3.1-8b', 'Server'),
            ('v5.1', 'closed', 'datacenter', 'A', 'box', 'llama3.1-8b', 'Server'),
            ('v5.1', 'closed', 'datacenter', 'A', 'box', 'llama3.1-8b', 'Offline'))
            AS t(round, division, suite, submitter, platform, used_model, scenario)""",
        ["v5.1"],
    ),
    "benchmark/mlperf_results__flags_state_their_reason": (
        """
        CREATE TABLE benchmark.mlperf_results AS SELECT * FROM (VALUES
            ('ok', true, NULL, true, NULL),
            ('flagged with reasons', false, 'system name states 4x', false, 'test submissions'),
            ('implausible without a reason', false, NULL, true, NULL),
            ('plausible with a reason', true, 'stale reason', true, NULL),
            ('unofficial without a reason', true, NULL, false, NULL))
            AS t(result_key, plausible, implausible_reason, official, unofficial_reason)""",
        ["implausible without a reason", "plausible with a reason", "unofficial without a reason"],
    ),
    "benchmark/mlperf_results__llm_throughput_in_tokens": (
        """
        CREATE TABLE benchmark.mlperf_results AS SELECT * FROM (VALUES
            ('llama tokens', 'llama3.1-8b', 'Server', 'v5.1', 'tokens/s', 'Queries/s'),
            ('llama samples', 'llama2-70b-99', 'Offline', 'v4.1', 'samples/s', 'Samples/s'),
            ('v4.0 llama2 server', 'llama2-70b-99', 'Server', 'v4.0', 'queries/s', 'Queries/s'),
            ('resnet', 'resnet', 'Offline', 'v5.1', 'samples/s', 'Samples/s'))
            AS t(result_key, mlperf_model, scenario, round, result_unit, result_unit_raw)""",
        ["llama samples"],
    ),
    "observed/delivered_at_slo__band_ordered": (
        """
        CREATE TABLE observed.delivered_at_slo AS SELECT * FROM (VALUES
            ('ok', 'r', 'r1', 2, 10.0, 12.0, 500.0, 600.0),
            ('upside down', 'r', 'r2', 2, 12.0, 10.0, 600.0, 500.0),
            ('above the failing point', 'r', 'r3', 2, 10.0, 20.0, 500.0, 1000.0),
            ('no failing point', 'r', 'r4', NULL, 10.0, 20.0, 500.0, 1000.0),
            ('tokens upside down', 'r', 'r5', NULL, 10.0, 12.0, 600.0, 500.0))
            AS t(profile, run_label, run_id, failing_load_index, delivered_requests_per_s_low,
                 delivered_requests_per_s_high, delivered_output_tokens_per_s_low, delivered_output_tokens_per_s_high);
        CREATE TABLE observed.load_points AS SELECT * FROM (VALUES ('r1', 2, 15.0), ('r2', 2, 15.0), ('r3', 2, 15.0))
            AS t(run_id, load_index, achieved_requests_per_s_max)""",
        ["upside down", "above the failing point", "tokens upside down"],
    ),
    "cost/cost_per_request__band_ordered": (
        """
        CREATE TABLE cost.cost_per_request AS SELECT * FROM (VALUES
            ('ok', 'a', 'on_demand', 'P', 1.0, 2.0, 10.0, 20.0),
            ('upside down', 'b', 'on_demand', 'P', 2.0, 1.0, 10.0, 20.0),
            ('tokens upside down', 'c', 'on_demand', 'P', 1.0, 2.0, 20.0, 10.0))
            AS t(profile, config_key, price_class, price_provider, cost_per_request_usd_low, cost_per_request_usd_high,
                 cost_per_million_output_tokens_usd_low, cost_per_million_output_tokens_usd_high)""",
        ["upside down", "tokens upside down"],
    ),
    "marts/capacity_plan__bands_ordered": (
        """
        CREATE TABLE marts.capacity_plan AS SELECT * FROM (VALUES
            ('ok', 'a', 'on_demand', 'P', 1, 2, 100.0, 200.0, 0.4, 0.5, 1.0, 2.0, 80.0, 150.0, -10.0, 20.0, 1),
            ('floored', 'f', 'on_demand', 'P', 1, 1, 100.0, 100.0, 0.4, 0.5, 1.0, 1.0, 300.0, 300.0, 0.0, 0.0, 3),
            ('replicas upside down', 'b', 'on_demand', 'P', 3, 2,
                100.0, 200.0, 0.4, 0.5, 1.0, 2.0, 80.0, 150.0, 0.0, 1.0, 1),
            ('autoscaled above static', 'c', 'on_demand', 'P', 1, 2,
                100.0, 200.0, 0.4, 0.5, 1.0, 2.0, 80.0, 250.0, 0.0, 1.0, 1),
            ('saving upside down', 'd', 'on_demand', 'P', 1, 2,
                100.0, 200.0, 0.4, 0.5, 1.0, 2.0, 80.0, 150.0, 5.0, 1.0, 1))
            AS t(profile, config_key, price_class, price_provider, replicas_low, replicas_high, monthly_usd_low,
                 monthly_usd_high, utilisation_low, utilisation_high, effective_cost_per_request_usd_low,
                 effective_cost_per_request_usd_high, autoscaled_monthly_usd_low, autoscaled_monthly_usd_high,
                 monthly_saving_usd_low, monthly_saving_usd_high, min_replicas)""",
        ["replicas upside down", "autoscaled above static", "saving upside down"],
    ),
    "observed/load_points__achieved_not_above_offered": (
        """
        CREATE TABLE observed.load_points AS SELECT * FROM (VALUES
            ('ok', 0, 'rate', 10.0, 10.5, 's'), ('too fast', 1, 'rate', 10.0, 12.0, 's'),
            ('closed loop', 2, 'concurrency', 10.0, 50.0, 's'))  -- a closed loop has no offered rate to exceed
            AS t(run_id, load_index, load_kind, offered_rate_per_s, achieved_requests_per_s, source)""",
        ["too fast"],
    ),
    "benchmark/accelerator_prices__known_accelerators": (
        """
        CREATE TABLE benchmark.accelerator_prices AS SELECT * FROM (VALUES
            ('H100-SXM', true, 'on_demand', 'P', 'f'), ('Quantum Flux 9000', false, 'on_demand', 'P', 'f'))
            AS t(accelerator_raw, accelerator_known, price_class, price_provider, source)""",
        ["Quantum Flux 9000"],
    ),
    "marts/config_shortlist__every_profile_listed": (
        """
        CREATE TABLE requirement.profiles AS SELECT * FROM (VALUES ('listed', 'm', true), ('empty', 'm', true),
            ('unknown model', NULL, false)) AS t(profile, model_id, model_known);
        CREATE TABLE marts.config_shortlist AS SELECT 'listed' AS profile""",
        ["empty"],
    ),
    "benchmark/mlperf_results__row_count_per_round": (
        """
        CREATE TABLE benchmark.mlperf_results AS SELECT * FROM (VALUES ('v4.1'), ('v5.1'), ('v5.1'), ('v6.0'))
            AS t(round);
        ATTACH ':memory:' AS published;
        CREATE SCHEMA published.benchmark;
        CREATE TABLE published.benchmark.mlperf_results AS SELECT * FROM (VALUES
            ('v4.1'), ('v5.1'), ('v5.1'), ('v5.1'), ('v3.1')) AS t(round)""",
        ["v3.1", "v5.1"],
    ),
    "calibrated/validation__relative_errors_non_negative": (
        """
        CREATE TABLE calibrated.validation AS SELECT * FROM (VALUES
            ('ok', 'level', 'r=1/s', 'r=1/s', 'ttft_p50_ms', 100.0, 110.0, 0.1),
            ('negative', 'level', 'r=1/s', 'r=1/s', 'ttft_p50_ms', 100.0, 90.0, -0.1),
            ('measured zero', 'level', 'r=1/s', 'r=1/s', 'ttft_p50_ms', 0.0, 90.0, NULL))
            AS t(config_key, heldout_kind, heldout, load, metric, measured, predicted, relative_error)""",
        ["negative", "measured zero"],
    ),
    "calibrated/engine_models__levels_validated": (
        """
        CREATE TABLE calibrated.engine_models AS SELECT * FROM (VALUES
            ('validated', 'a', 7, 'fitted', NULL), ('never held out', 'b', 5, 'fitted', NULL),
            ('one level, said', 'c', 1, 'too_few_levels', 'one load level'),
            ('three levels, unsaid', 'd', 3, 'fitted', NULL),
            ('no level served, said', 'e', 0, 'not_calibrated', 'no load level served anything'),
            ('fit failed on five, said', 'f', 5, 'not_calibrated', 'the model could not be fitted'),
            ('unreliable, unsaid', 'g', 6, 'unreliable', NULL))
            AS t(config_key, config_label, load_levels, status, status_reason);
        CREATE TABLE calibrated.validation AS SELECT * FROM (VALUES ('validated'), ('unreliable, unsaid'))
            AS t(config_key)""",
        ["never held out", "three levels, unsaid", "unreliable, unsaid"],
    ),
    "projected/measured_fractions__learnt_within_range": (
        """
        CREATE TABLE projected.measured_fractions AS SELECT * FROM (VALUES
            ('p', 'learnt', 0.5, 0.8, true, NULL), ('p', 'refused, said', 2.0, 2.0, false, 'fraction 2 - 2 outside'),
            ('p', 'learnt above 1.5', 1.2, 1.6, true, NULL), ('p', 'learnt at zero', 0.0, 0.0, true, NULL),
            ('p', 'learnt upside down', 0.8, 0.5, true, NULL),
            ('p', 'learnt without a fraction', NULL, NULL, true, NULL), ('p', 'refused, unsaid', 0.5, 0.5, false, NULL))
            AS t(profile, run_labels, delivered_fraction_low, delivered_fraction_high, learnt_from,
                 not_learnt_reason)""",
        ["learnt above 1.5", "learnt at zero", "learnt upside down", "learnt without a fraction", "refused, unsaid"],
    ),
    "projected/delivered_at_slo__fraction_as_learnt": (
        """
        CREATE TABLE projected.measured_fractions AS SELECT * FROM (VALUES
            ('learnt', 0.4, 0.6, true), ('learnt', 0.5, 0.9, true), ('learnt', 3.0, 3.0, false),
            ('wrong span', 0.4, 0.6, true), ('wrong count', 0.4, 0.6, true), ('wrong band', 0.4, 0.6, true),
            ('prior kept', 3.0, 3.0, false))
            AS t(profile, delivered_fraction_low, delivered_fraction_high, learnt_from);
        CREATE TABLE projected.delivered_at_slo AS SELECT * FROM (VALUES
            ('learnt', 'b200', 0.4, 0.9, 2, 0.5, 0.8, 1000.0, 8, 3200.0, 7200.0),
            ('wrong span', 'b200', 0.5, 0.6, 1, 0.5, 0.8, 1000.0, 8, 4000.0, 4800.0),
            ('wrong count', 'b200', 0.4, 0.6, 2, 0.5, 0.8, 1000.0, 8, 3200.0, 4800.0),
            ('wrong band', 'b200', 0.4, 0.6, 1, 0.5, 0.8, 1000.0, 8, 3200.0, 4000.0),
            ('prior kept', 'b200', 0.5, 0.8, 0, 0.5, 0.8, 1000.0, 8, 4000.0, 6400.0),
            ('prior ignored', 'b200', 0.4, 0.8, 0, 0.5, 0.8, 1000.0, 8, 3200.0, 6400.0))
            AS t(profile, accelerator_id, delivered_fraction_low, delivered_fraction_high, delivered_fraction_runs,
                 delivered_fraction_prior_low, delivered_fraction_prior_high, reference_tokens_per_s_per_accel,
                 accelerator_count, delivered_output_tokens_per_s_low, delivered_output_tokens_per_s_high)""",
        ["wrong span", "wrong count", "wrong band", "prior ignored"],
    ),
    "calibrated/delivered_at_slo__band_never_a_point": (
        """
        CREATE TABLE calibrated.delivered_at_slo AS SELECT * FROM (VALUES
            ('band', 'delivered', 'fitted', true, 8.0, 12.0, 0.2, NULL),
            ('a point', 'delivered', 'fitted', true, 10.0, 10.0, 0.2, NULL),
            ('lower bound', 'lower_bound', 'fitted', true, 8.0, NULL, 0.2, 'never saturated'),
            ('no error', 'delivered', 'fitted', true, 8.0, 12.0, NULL, NULL),
            ('unsaid', 'no_traffic', 'fitted', false, NULL, NULL, NULL, NULL),
            ('unreliable billing', 'delivered', 'unreliable', true, 8.0, 12.0, 0.2, 'unreliable'))
            AS t(profile, status, config_status, bills, delivered_requests_per_s_low, delivered_requests_per_s_high,
                 band_rel_error, status_reason);
        ALTER TABLE calibrated.delivered_at_slo ADD COLUMN config_key VARCHAR""",
        ["a point", "no error", "unsaid", "unreliable billing"],
    ),
    "calibrated/cost_sensitivity__costs_follow_the_band": (
        """
        CREATE TABLE calibrated.cost_sensitivity AS SELECT * FROM (VALUES
            ('priced', 'prompts_x2', 'priced', 1.0, 2.0, 1.0, 3.0, 0.2, 0.8, NULL, NULL, NULL),
            ('upside down', 'prompts_x2', 'priced', 2.0, 1.0, 1.0, 3.0, 0.2, 0.8, NULL, NULL, NULL),
            ('no error', 'answers_x2', 'priced', 1.0, 2.0, 1.0, 3.0, NULL, 0.5, NULL, NULL, NULL),
            ('our mix off one', 'our_mix', 'priced', 1.0, 2.0, 1.0, 3.0, 0.2, 0.9, NULL, NULL, NULL),
            ('bursts', 'poisson_arrivals', 'priced', 1.0, 2.0, 1.0, 3.0, 0.2, 1.3, 100.0, 300.0, NULL),
            ('bursts elsewhere', 'answers_x0.5', 'priced', 1.0, 2.0, 1.0, 3.0, 0.2, 1.3, 100.0, 300.0, NULL),
            ('lower bound', 'our_mix', 'lower_bound', NULL, 2.0, NULL, 3.0, 0.2, 1.0, NULL, NULL, 'at least'),
            ('lower bound, a variant', 'prompts_x2', 'lower_bound', NULL, 3.0, NULL, 4.0, 0.2, 0.7, NULL, NULL, 'a'),
            ('lower bound unpriced', 'our_mix', 'lower_bound', NULL, NULL, NULL, NULL, 0.2, 1.0, NULL, NULL, 'a'),
            ('lower bound, no price', 'our_mix', 'no_price', NULL, NULL, NULL, NULL, 0.2, 1.0, NULL, NULL, 'no price'),
            ('unsaid', 'our_mix', 'not_priced', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL))
            AS t(profile, variant, status, cost_per_request_usd_low, cost_per_request_usd_high,
                 cost_per_million_output_tokens_usd_low, cost_per_million_output_tokens_usd_high, band_rel_error,
                 rate_ratio, bursts_monthly_usd_low, bursts_monthly_usd_high, status_reason);
        ALTER TABLE calibrated.cost_sensitivity ADD COLUMN config_key VARCHAR;
        ALTER TABLE calibrated.cost_sensitivity ADD COLUMN price_class VARCHAR;
        ALTER TABLE calibrated.cost_sensitivity ADD COLUMN price_provider VARCHAR""",
        ["upside down", "no error", "our mix off one", "bursts elsewhere", "lower bound unpriced", "unsaid"],
    ),
    "calibrated/prospective_validation__errors_follow_prediction_and_measurement": (
        """
        CREATE TABLE calibrated.prospective_validation AS SELECT * FROM (VALUES
            ('judged', 120.0, 100.0, 0.2, 0.2, 0.25, true),
            ('below', 80.0, 100.0, 0.2, -0.2, 0.25, true),
            ('out of the band', 200.0, 100.0, 1.0, 1.0, 0.25, false),
            ('no band', 120.0, 100.0, 0.2, 0.2, NULL, NULL),
            ('nothing predicted', NULL, 100.0, NULL, NULL, 0.25, NULL),
            ('error off', 120.0, 100.0, 0.3, 0.2, 0.25, true),
            ('sign off', 80.0, 100.0, 0.2, 0.2, 0.25, true),
            ('error missing', 120.0, 100.0, NULL, NULL, 0.25, true),
            ('band wrong', 200.0, 100.0, 1.0, 1.0, 0.25, true),
            ('band unsaid', 120.0, 100.0, 0.2, 0.2, 0.25, NULL))
            AS t(plan_id, predicted, measured, relative_error, signed_relative_error, band_rel_error, within_band);
        ALTER TABLE calibrated.prospective_validation ADD COLUMN run_label VARCHAR;
        ALTER TABLE calibrated.prospective_validation ADD COLUMN load VARCHAR;
        ALTER TABLE calibrated.prospective_validation ADD COLUMN metric VARCHAR""",
        ["error off", "sign off", "error missing", "band wrong", "band unsaid"],
    ),
    "calibrated/prospective_validation__scored_rows_compare_something": (
        """
        CREATE TABLE calibrated.prospective_validation AS SELECT * FROM (VALUES
            ('judged', 120.0, 100.0, 0.2, true, NULL),
            ('unjudged, said', 120.0, 100.0, 0.2, false, '30% of requests failed: unjudged'),
            ('scored without an error', NULL, 100.0, NULL, true, NULL),
            ('unjudged, unsaid', 120.0, 100.0, 0.2, false, NULL))
            AS t(plan_id, predicted, measured, relative_error, scored, note);
        ALTER TABLE calibrated.prospective_validation ADD COLUMN run_label VARCHAR;
        ALTER TABLE calibrated.prospective_validation ADD COLUMN load VARCHAR;
        ALTER TABLE calibrated.prospective_validation ADD COLUMN metric VARCHAR""",
        ["scored without an error", "unjudged, unsaid"],
    ),
    "calibrated/latency_curve__grid_to_saturation": (
        # a curve the model never falls behind on ('keeps up to the end': a light or zero-token mix, a sweep whose
        # latencies fall as the load rises) is what the model predicts: its row says lower_bound, the check passes
        """
        CREATE TABLE calibrated.latency_curve AS
        SELECT 'twenty' AS profile, 'c' AS config_key, i AS point_index, 1.0 + i AS requests_per_s
        FROM range(20) AS r(i)
        UNION ALL SELECT 'ten', 'c', i, 1.0 + i FROM range(10) AS r(i)
        UNION ALL SELECT 'keeps up to the end', 'c', i, 1.0 + i FROM range(20) AS r(i)
        UNION ALL SELECT 'short of the probe', 'c', i, 1.0 + i FROM range(20) AS r(i)
        UNION ALL SELECT 'not increasing', 'c', i, CASE WHEN i = 5 THEN 1.0 ELSE 1.0 + i END FROM range(20) AS r(i);
        CREATE TABLE calibrated.delivered_at_slo AS SELECT * FROM (VALUES ('twenty', 'c', 16.0),
            ('ten', 'c', 8.0), ('keeps up to the end', 'c', 16.0), ('short of the probe', 'c', 30.0),
            ('not increasing', 'c', 16.0)) AS t(profile, config_key, saturation_requests_per_s)""",
        ["ten", "short of the probe", "not increasing"],
    ),
}

# What the calibrated model legitimately gives (a sweep that never saturated: a lower bound, priced at its high cost;
# no level served: not_calibrated, said; a curve the model never falls behind on): rows of the cases above that are
# data, not faults, so every check passes over them (docs/reliability.md counts them).
MODEL_OUTPUTS = {
    "calibrated/cost_sensitivity__costs_follow_the_band": [
        "lower bound",
        "lower bound, a variant",
        "lower bound, no price",
    ],
    "calibrated/delivered_at_slo__band_never_a_point": ["lower bound"],
    "calibrated/engine_models__levels_validated": [
        "one level, said",
        "no level served, said",
        "fit failed on five, said",
    ],
    "calibrated/latency_curve__grid_to_saturation": ["keeps up to the end"],
}


@pytest.mark.parametrize("check", sorted(MODEL_OUTPUTS))
def test_what_the_calibrated_model_legitimately_gives_passes_its_checks(check):
    setup, offending = CASES[check]
    for row in MODEL_OUTPUTS[check]:
        assert f"'{row}'" in setup and row not in offending, row


def test_every_check_file_has_a_case():
    assert {f"{c.path.parent.name}/{c.path.stem}" for c in check_sql_files()} == set(CASES)


@pytest.mark.parametrize("check", sorted(CASES))
def test_a_check_selects_the_offending_rows_and_only_them(check):
    setup, offending = CASES[check]
    conn = duckdb.connect()
    conn.execute(
        "CREATE SCHEMA benchmark; CREATE SCHEMA observed; CREATE SCHEMA cost; CREATE SCHEMA requirement; "
        "CREATE SCHEMA marts; CREATE SCHEMA calibrated; CREATE SCHEMA projected"
    )
    conn.execute(setup)
    assert sorted(row[0] for row in conn.execute(read_sql(f"checks/{check}.sql")).fetchall()) == sorted(offending)


def test_every_check_names_its_table_and_says_what_it_holds():
    python_built = {"benchmark.mlperf_results", "benchmark.accelerator_prices"}
    python_built |= {"calibrated.engine_models", "calibrated.validation"}
    python_built |= {"calibrated.latency_curve", "calibrated.delivered_at_slo", "calibrated.cost_sensitivity"}
    python_built |= {"calibrated.prospective_validation"}
    tables = {spec.table for spec in table_sql_files()} | python_built
    for check in check_sql_files():
        assert check.table in tables, check.path
        assert check.description and not check.description.startswith(("Rows", "Profiles", "Load points")), check.path


def test_a_check_that_does_not_block_the_publish_can_only_warn_of_it(tmp_path, monkeypatch):
    """A blocking check runs before the publish and stops it (severity error); any other runs beside the publish, so
    its failure is a warning of that publish (severity warn): a header that says otherwise is refused, naming it."""
    assert all((c.severity == "error") == c.blocking for c in check_sql_files())
    (tmp_path / "checks" / "observed").mkdir(parents=True)
    wrong = tmp_path / "checks" / "observed" / "runs__x.sql"
    wrong.write_text("-- Every run is fine.\n--\n-- severity: error\n-- Rows that are not.\nSELECT 1 WHERE false\n")
    monkeypatch.setattr(sqlfiles, "SQL_DIR", tmp_path)
    with pytest.raises(sqldoc.SqlDocProblem, match=rf"{wrong}: expected `-- blocking: true`"):
        check_sql_files()


def test_a_failed_check_names_its_first_rows_and_the_inputs_they_came_from():
    """The rows' run, run label(s) or config lead to the runs' dump folders (observed.runs.report_dir); a column
    naming none, or a table the build has not made yet, names nothing."""
    conn = duckdb.connect()
    conn.execute("CREATE SCHEMA observed; CREATE SCHEMA calibrated")
    conn.execute(
        "CREATE TABLE observed.runs AS SELECT * FROM (VALUES ('r1', 'sweep-a', '/dumps/a'), ('r2', 'sweep-b', "
        "'/dumps/b'), ('r3', 'sweep-c', '/dumps/c')) AS t(run_id, run_label, report_dir)"
    )
    conn.execute("""CREATE TABLE calibrated.engine_models AS SELECT 'cfg-1' AS config_key, '["sweep-a", "sweep-b"]'
        AS run_labels""")
    assert sqlfiles.inputs_of_rows(conn, ["config_key", "variant"], [("cfg-1", "our_mix")]) == ["/dumps/a", "/dumps/b"]
    assert sqlfiles.inputs_of_rows(conn, ["run_labels"], [('["sweep-c"]',)]) == ["/dumps/c"]
    assert sqlfiles.inputs_of_rows(conn, ["run_id", "x"], [("r2", 1), ("r2", 2)]) == ["/dumps/b"]
    assert sqlfiles.inputs_of_rows(conn, ["result_key", "profile"], [("k", "p")]) == []  # no MLPerf table here
    check = next(c for c in check_sql_files() if c.name == "costs_follow_the_band")
    sample = [{"profile": "chat", "config_key": "cfg-1"}, {"profile": "code", "config_key": "cfg-1"}]
    said = check_outcome(check, 7, sample, ["/dumps/a", "/dumps/b"])
    assert said.startswith("failed: 7 rows break it (sql/checks/calibrated/cost_sensitivity__costs_follow_the_band")
    assert said.endswith(
        "; the first 2: profile=chat, config_key=cfg-1 | profile=code, config_key=cfg-1; from /dumps/a, /dumps/b"
    )
