"""One name per thing across the published warehouse: every table (its pandera model), every analytics view and
every `benchbill sql` query names one thing one way, with its unit in the name."""

import re

import duckdb
import pytest

from assets.warehouse.sqlfiles import MACROS, check_sql_files, read_sql, table_sql_files
from schemas import model_for
from tests.support.published_columns import (
    all_models,
    empty_warehouse,
    published_columns,
    query_columns,
    table_columns,
    view_columns,
)

# A name on the left names the thing the warehouse calls by the name on the right: no published column may carry it.
ONE_NAME = {
    "accelerator": "accelerator_id",
    "model": "model_id",
    "rank": "rank_in_profile",
    "held_out": "heldout",
    "held_out_kind": "heldout_kind",
    "sent_rate_per_s": "sent_requests_per_s",
    "provider": "price_provider",
    "as_of": "price_as_of",
    "total_accelerators": "accelerator_count",
    "mean_input_tokens": "input_tokens_mean",
    "mean_output_tokens": "output_tokens_mean",
    "delivered_fraction_prior_lo": "delivered_fraction_prior_low",
    "delivered_fraction_prior_hi": "delivered_fraction_prior_high",
    "usd_per_1m_output_tokens_low": "cost_per_million_output_tokens_usd_low",
    "usd_per_1m_output_tokens_high": "cost_per_million_output_tokens_usd_high",
    "usd_per_1k_requests_low": "cost_per_thousand_requests_usd_low",
    "usd_per_1k_requests_high": "cost_per_thousand_requests_usd_high",
}

# Where the distinction is real the other name stays, and the column's description says what it holds instead.
NOT_THE_SAME_THING = {
    # the base model a quality figure is matched on: the canonical id where an alias table knows the model, else
    # its key (requirement.profiles.model_key), so that an evaluation of a model nobody aliased still counts
    "model": {
        "observed.quality",
        "marts.quality_gate",
        "analytics.quality",
    },
}

# Spellings of one word or unit, by pattern: the one the warehouse uses is on the right.
ONE_SPELLING = [
    (re.compile(r"_lo$|_hi$"), "band ends are _low and _high"),
    (re.compile(r"_req_per_s|_reqs_per_s"), "a rate of requests is _requests_per_s"),
    (re.compile(r"held_out"), "heldout"),
    (re.compile(r"(cost|usd)_per_1[km]_"), "a cost is per_million_ / per_thousand_"),
    (re.compile(r"^usd_per_(?!accelerator_hour$)"), "a cost is cost_..._usd (usd_per_accelerator_hour is a price)"),
]


def test_the_published_warehouse_is_read_whole():
    """The relations the names are checked on: every table, view and query (a helper that read none would pass)."""
    assert len(table_columns()) >= 40 and len(view_columns()) >= 25 and len(query_columns()) >= 5
    assert "accelerator_id" in table_columns()["marts.config_shortlist"]
    assert "cost_per_million_output_tokens_usd_low" in query_columns()["queries/shortlist"]


def test_no_published_column_carries_a_second_name_of_one_thing():
    offenders = [
        f"{relation}.{column}: call it {ONE_NAME[column]}"
        for relation, columns in published_columns().items()
        for column in columns
        if column in ONE_NAME and relation not in NOT_THE_SAME_THING.get(column, set())
    ]
    assert offenders == []


def test_no_published_column_spells_a_word_or_a_unit_the_other_way():
    offenders = [
        f"{relation}.{column}: {rule}"
        for relation, columns in published_columns().items()
        for column in columns
        for pattern, rule in ONE_SPELLING
        if pattern.search(column)
    ]
    assert offenders == []


@pytest.mark.parametrize("table", sorted(t for t in NOT_THE_SAME_THING["model"] if not t.startswith("analytics.")))
def test_a_model_column_that_is_not_the_canonical_id_says_so(table):
    description = model_for(table).to_schema().columns["model"].description
    assert "model_key" in description and "canonical id" in description, description


def test_every_relation_naming_a_configs_accelerator_names_it_accelerator_id():
    """A config is an accelerator, how many of them, a model...: wherever a count of accelerators is published,
    the accelerator beside it is accelerator_id (never accelerator), so that any two views join on it."""
    with_count = {r: c for r, c in published_columns().items() if "accelerator_count" in c}
    assert len(with_count) >= 10
    assert [r for r, columns in with_count.items() if "accelerator_id" not in columns] == []


def test_every_sql_built_table_selects_its_models_columns():
    """A table built by SQL (sql/<schema>/<table>.sql), bound over empty tables made from the models, returns its
    model's columns: a column renamed in the model and not in a SELECT that builds or reads it fails here."""
    conn = empty_warehouse()
    conn.execute(read_sql(MACROS))
    specs = table_sql_files()
    assert len(specs) >= 15
    problems = []
    for spec in specs:
        try:
            got = {row[0] for row in conn.execute(f"DESCRIBE {read_sql(spec.relative)}").fetchall()}
        except duckdb.Error as exc:
            problems.append(f"{spec.relative}: does not bind: {str(exc).splitlines()[0]}")
            continue
        want = set(table_columns()[spec.table])
        if got != want:
            problems.append(f"{spec.relative}: selects {sorted(got - want)} beyond, lacks {sorted(want - got)}")
    assert problems == []


def test_every_models_unique_key_names_its_columns():
    """A renamed column renamed in a model's `unique` key too (pandera checks the key only when rows arrive)."""
    keys = {model.__module__: getattr(model.Config, "unique", None) or [] for model in all_models()}
    assert sum(1 for key in keys.values() if key) >= 10
    problems = [
        f"{module}: unique {key} names {sorted(set(key) - set(table_columns()[module.removeprefix('schemas.')]))}"
        for module, key in keys.items()
        if not set(key) <= set(table_columns()[module.removeprefix("schemas.")])
    ]
    assert problems == []


def test_every_check_binds_over_the_models_tables():
    """A check (sql/checks/) reading a renamed column fails here, not in a run; a check that reads the serving file
    (`attach: published`) is left to the runs that attach one."""
    conn = empty_warehouse()
    conn.execute(read_sql(MACROS))
    checks = [check for check in check_sql_files() if not check.attach_published]
    assert len(checks) >= 15
    problems = []
    for check in checks:
        try:
            conn.execute(f"DESCRIBE {read_sql(check.relative)}")
        except duckdb.Error as exc:
            problems.append(f"{check.relative}: does not bind: {str(exc).splitlines()[0]}")
    assert problems == []
