"""A fit is paid once: a config's calibration is stored in the warehouse with the fingerprint of what it was fitted
on, reused while that is unchanged (the same rows as the fit gave), refitted when its evidence or the model changes,
and refitted (said) when its stored entry is damaged or unreadable, never trusted; a run says which configs it
refitted, and reads per-request records only for the configs it refits."""

import dataclasses
import json

import duckdb
import pytest

from assets.calibrate import fit_store, tables
from assets.calibrate.fit_store import FitStore, evidence_fingerprint
from assets.calibrate.levels import read_configs
from assets.calibrate.record_lengths import level_lengths, with_record_lengths
from assets.calibrate.tables import Calibration, calibrate_config, model_row, validation_row
from tests.unit.test_calibrate_bounds import _synthetic
from tests.unit.test_calibrate_unserved_levels import POINT_COLUMNS, RUN_COLUMNS, point, run


@pytest.fixture(scope="module")
def config():
    return _synthetic((1, 5, 10, 20, 30))


@pytest.fixture(scope="module")
def fitted(config) -> Calibration:
    return calibrate_config(config)


def _rows(c: Calibration) -> tuple[dict, list[dict]]:
    return model_row(c), [validation_row(r, c.config.model) for r in c.rows]


class Counting:
    """A compute that gives `result` and counts its calls."""

    def __init__(self, result: Calibration) -> None:
        self.result, self.calls = result, 0

    def __call__(self) -> Calibration:
        self.calls += 1
        return self.result


def test_a_stored_fit_is_reused_while_its_evidence_is_unchanged_with_the_same_rows(tmp_path, config, fitted):
    compute = Counting(fitted)
    first = FitStore(tmp_path / "fits")
    assert first.calibration(config, compute) is fitted and compute.calls == 1
    again = FitStore(tmp_path / "fits")
    reused = again.calibration(config, compute)
    assert again.holds(config) and compute.calls == 1  # not fitted again
    assert _rows(reused) == _rows(fitted)
    assert reused.fit is not None and fitted.fit is not None and reused.fit.params == fitted.fit.params
    assert again.summary() == (
        "engine models: all 1 configs' stored fits reused (their evidence unchanged), none refitted"
    )


def test_a_changed_level_or_a_new_model_version_refits(tmp_path, config, fitted, monkeypatch):
    compute = Counting(fitted)
    FitStore(tmp_path / "fits").calibration(config, compute)
    changed = dataclasses.replace(config, levels=[dataclasses.replace(lv) for lv in config.levels])
    changed.levels[2].measured = {**changed.levels[2].measured, "ttft_p50_ms": 999.0}
    assert evidence_fingerprint(changed) != evidence_fingerprint(config)
    said: list[str] = []
    store = FitStore(tmp_path / "fits", said.append)
    store.calibration(changed, compute)
    assert compute.calls == 2
    assert said == ["synthetic: fitted again: its evidence or the model changed since its stored fit"]
    assert store.summary() == "engine models: 1 of 1 configs refitted (synthetic), 0 stored fits reused"
    monkeypatch.setattr(fit_store, "FIT_MODEL_VERSION", "a later model")
    FitStore(tmp_path / "fits").calibration(changed, compute)
    assert compute.calls == 3


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda text: text.replace('"status": "fitted"', '"status": "fited"'), "is damaged (its content is not"),
        (lambda text: text[: len(text) // 2], "cannot be read (JSONDecodeError"),
        (lambda text: json.dumps({**json.loads(text), "calibration": {"rows": []}}), "is damaged"),
        (lambda text: "[]", "cannot be read (TypeError"),
    ],
)
def test_a_damaged_stored_fit_is_refitted_said_never_trusted(tmp_path, config, fitted, damage, said):
    compute = Counting(fitted)
    FitStore(tmp_path / "fits").calibration(config, compute)
    stored = tmp_path / "fits" / f"{config.key}.json"
    stored.write_text(damage(stored.read_text()))
    told: list[str] = []
    result = FitStore(tmp_path / "fits", told.append).calibration(config, compute)
    assert compute.calls == 2 and result is fitted
    assert len(told) == 1 and said in told[0]
    assert told[0].startswith(f"synthetic: fitted again: its stored fit {stored}")
    assert _rows(FitStore(tmp_path / "fits").calibration(config, compute)) == _rows(fitted)  # written again, whole
    assert compute.calls == 2


def test_a_fit_that_raised_is_not_stored_and_configs_gone_and_killed_writes_are_removed(tmp_path, config, fitted):
    failed = Calibration(config, None, [], "not_calibrated", "the model could not be fitted", failed=True)
    store = FitStore(tmp_path / "fits")
    store.calibration(config, Counting(failed))
    assert not (tmp_path / "fits").exists() or not list((tmp_path / "fits").iterdir())
    store.calibration(config, Counting(fitted))
    (tmp_path / "fits" / "cfg-gone.json").write_text("{}")
    (tmp_path / "fits" / f".{config.key}.json.4242.partial").write_text('{"store_version"')  # a killed write
    store.keep_only([config])
    assert sorted(p.name for p in (tmp_path / "fits").iterdir()) == [f"{config.key}.json"]


def test_a_run_refits_only_the_configs_whose_evidence_changed_and_says_which(tmp_path, monkeypatch):
    """calibrate_all with the warehouse's store: the second run with one config's levels changed refits that one."""
    first, second = _synthetic((1, 5, 10, 20)), _synthetic((2, 6, 12, 24))
    second = dataclasses.replace(second, key="cfg-second", label="second config")
    fitted: list[str] = []

    def calibrate_config(cfg, log=None):
        fitted.append(cfg.label)
        return Calibration(cfg, None, [], "too_few_levels", "a stand-in for the fit")

    monkeypatch.setattr(tables, "calibrate_config", calibrate_config)
    monkeypatch.setattr(tables, "read_configs", lambda conn, record_lengths=True: [first, second])
    tables.calibrate_all(None, store=FitStore(tmp_path / "fits"))  # type: ignore[arg-type]
    assert fitted == ["synthetic", "second config"]
    second.levels[0].measured = {**second.levels[0].measured, "tpot_p50_ms": 50.0}
    said: list[str] = []
    tables.calibrate_all(None, said.append, FitStore(tmp_path / "fits"))  # type: ignore[arg-type]
    assert fitted == ["synthetic", "second config", "second config"]
    assert said[-1] == "engine models: 1 of 2 configs refitted (second config), 1 stored fits reused"
    assert any(line.startswith("synthetic: too_few_levels (4 levels, stored fit reused") for line in said)


@pytest.fixture()
def with_records() -> duckdb.DuckDBPyConnection:
    """One config of five levels, each with 40 per-request records of varied lengths and their sources."""
    conn = duckdb.connect()
    conn.execute("CREATE SCHEMA observed")
    conn.execute(f"CREATE TABLE observed.runs AS SELECT * FROM (VALUES {run('rec', 'h100')}) AS t({RUN_COLUMNS})")
    points = [point("rec", i, rate, rate * 0.98, 40, 40) for i, rate in enumerate((1.0, 2.0, 4.0, 8.0, 16.0))]
    conn.execute(
        f"CREATE TABLE observed.load_points AS SELECT * FROM (VALUES {', '.join(points)}) AS t({POINT_COLUMNS})"
    )
    conn.execute(
        "CREATE TABLE observed.requests AS SELECT 'rec' AS run_id, level AS load_index, 100 + 7 * i + level AS "
        "input_tokens, 40 + i % 9 AS output_tokens, 'ok' AS status, 'measure' AS phase "
        "FROM range(5) AS l(level), range(40) AS r(i)"
    )
    conn.execute(
        "CREATE TABLE observed.request_sources AS SELECT 'rec' AS run_id, level AS load_index, 0 AS repeat_index, "
        "'level-' || level || '.parquet' AS source, 'sha-' || level AS source_sha256, 'stored in the warehouse: "
        "records/x.parquet' AS reader, 'all rows' AS location, 'level-' || level AS source_key, 40 AS requests, "
        "0 AS rows_quarantined FROM range(5) AS l(level)"
    )
    return conn


def test_a_run_with_stored_fits_reads_no_record_and_a_refit_reads_the_same_lengths(with_records, tmp_path):
    """Read without its records' lengths, a config says which records its levels have; the lengths read for a refit
    are those a full read gives; changed records (another checksum) change the fingerprint."""
    (full,) = read_configs(with_records)
    with_records.execute("ALTER TABLE observed.requests RENAME TO requests_away")  # nothing may read them now
    (light,) = read_configs(with_records, record_lengths=False)
    assert all(lv.records_key and lv.has_records for lv in light.levels)
    assert [lv.inp.kind for lv in light.levels] == ["fixed"] * 5  # the means, until the lengths are read
    with_records.execute("ALTER TABLE observed.requests_away RENAME TO requests")
    store = FitStore(tmp_path / "fits")
    assert not store.holds(light)
    read = with_record_lengths(light, level_lengths(with_records, [light.levels[0].run_id]))
    assert [(lv.inp, lv.out) for lv in read.levels] == [(lv.inp, lv.out) for lv in full.levels]
    assert [lv.inp.kind for lv in read.levels] == ["empirical"] * 5
    fingerprint = evidence_fingerprint(light)
    with_records.execute("UPDATE observed.request_sources SET source_sha256 = 'edited' WHERE load_index = 3")
    (edited,) = read_configs(with_records, record_lengths=False)
    assert evidence_fingerprint(edited) != fingerprint


def test_a_run_with_no_config_of_ours_says_so_rather_than_counting_zero_fits(tmp_path):
    assert FitStore(tmp_path / "fits").summary() == "engine models: no run of ours to fit"
