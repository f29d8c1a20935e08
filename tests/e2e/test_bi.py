"""A BI tool reads the serving file the way Superset does (duckdb-engine through SQLAlchemy, a new
read-only connection per query); test_concurrency.py reads it so while two runs publish."""

import sqlalchemy as sa
from sqlalchemy.pool import NullPool


def superset_engine(serving) -> sa.Engine:
    # Superset: SQLALCHEMY URI duckdb:////path/serving.duckdb, engine parameters
    # {"connect_args": {"read_only": true}}; it uses NullPool for analytics databases.
    return sa.create_engine(f"duckdb:///{serving}", connect_args={"read_only": True}, poolclass=NullPool)


def look(engine) -> dict:
    """What a dashboard refresh does: list the views, reflect their columns, query two of them."""
    inspector = sa.inspect(engine)
    views = sorted(inspector.get_view_names(schema="analytics"))
    columns = {view: inspector.get_columns(view, schema="analytics") for view in views}
    shortlist = sa.Table("shortlist", sa.MetaData(), schema="analytics", autoload_with=engine)
    with engine.connect() as conn:
        profiles = conn.execute(sa.select(sa.func.count(sa.distinct(shortlist.c.profile)))).scalar_one()
        points = conn.execute(
            sa.text("SELECT count(*) FROM analytics.load_points WHERE run_label = :label"), {"label": "vllm"}
        ).scalar_one()
    return {"views": views, "columns": columns, "profiles": profiles, "points": points}


def test_superset_reflects_the_analytics_views_with_their_descriptions(published):
    """What a dashboard refresh does, on the published file. (The same reads while two runs publish:
    test_concurrency.py, whose SQLAlchemy readers connect exactly this way.)"""
    before = look(superset_engine(published / "serving.duckdb"))
    assert before["profiles"] == 2 and before["points"] == 7
    assert {"shortlist", "shortlist_sources", "load_points", "mlperf_results", "cost_per_request"} <= set(
        before["views"]
    )
    shortlist_columns = {c["name"]: c for c in before["columns"]["shortlist"]}
    assert shortlist_columns["cost_per_request_usd_low"]["comment"].startswith("US dollars per request, low end")
    assert all(c["comment"] for cols in before["columns"].values() for c in cols)


def test_each_table_and_view_description_reaches_superset_through_the_inspector(published):
    """Superset reads a table's description with the SQLAlchemy inspector's get_table_comment (through
    duckdb-engine): every analytics view and every published table gives the description DuckDB holds."""
    import duckdb

    with duckdb.connect(str(published / "serving.duckdb"), read_only=True) as conn:
        said = conn.execute(
            "SELECT schema_name, table_name, comment FROM duckdb_tables() UNION ALL "
            "SELECT schema_name, view_name, comment FROM duckdb_views() WHERE schema_name = 'analytics'"
        ).fetchall()
    inspector = sa.inspect(superset_engine(published / "serving.duckdb"))
    assert len(said) > 40
    for schema, name, comment in said:
        assert comment and inspector.get_table_comment(name, schema=schema) == {"text": comment}, (schema, name)
    assert inspector.get_table_comment("unknown_names", schema="analytics")["text"].startswith("every raw accelerator")
