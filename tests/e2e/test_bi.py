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
