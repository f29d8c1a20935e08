"""`benchbill plan --profile NAME [--output DIR]`: a profile's measurement plan, read from the published serving file
(read-only), and, with --output, a copy of each of its plan folders (`<warehouse>/plans/<plan_id>/`)."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from assets.report.plan_text import format_plan, no_plan_text, unknown_profile_text
from assets.report.report_data import PLAN_TABLE, PlanData, profiles_billed, read_plan_data
from assets.report.textformat import wrapped
from assets.resources import Warehouse
from assets.warehouse.layout import WarehouseLayout
from assets.warehouse.lock import WarehouseProblem
from assets.warehouse.published_set import pipeline_member
from pipelines.progress import say
from pipelines.published_output import open_published


def plan(args: argparse.Namespace) -> int:
    """Print the profile's plan; copy its folders to --output. 1 with the reason when there is nothing to read."""
    warehouse = Warehouse(dir=args.warehouse)
    layout, serving = warehouse.layout, warehouse.serving_path
    output = Path(args.output) if args.output else None
    refused = _refused_output(layout, output)
    if refused is not None:
        say(f"benchbill plan: refused: {refused}")
        return 1
    if not serving.exists():
        say(
            f"benchbill plan: {serving}: no published serving file; run `benchbill run` first (or pass --warehouse DIR)"
        )
        return 1
    try:
        conn = open_published(serving)
    except WarehouseProblem as problem:
        say(f"benchbill plan: {problem}")
        return 1
    try:
        plans = read_plan_data(conn, args.profile)
        profiles, billed = profiles_billed(conn)
    finally:
        conn.close()
    if not plans.published:
        say(
            f"benchbill plan: {serving} holds no {PLAN_TABLE}: it was published by an earlier benchbill; run "
            "`benchbill run` to publish it again with this version"
        )
        return 1
    if args.profile not in profiles:
        say(f"benchbill plan: {unknown_profile_text(args.profile, list(profiles), serving)}")
        return 1
    if not plans.rows.get(args.profile):
        print("\n".join(wrapped(no_plan_text(profiles[args.profile], args.profile in billed), hanging="    ")))
        return 0
    print(format_plan(args.profile, plans, layout.dir.resolve()))
    return 0 if output is None else _copy_plans(layout, plans, args.profile, output)


def _refused_output(layout: WarehouseLayout, output: Path | None) -> str | None:
    """Why --output cannot take the copies (a file, or a folder inside the warehouse); None when it can."""
    if output is None:
        return None
    member = pipeline_member(layout, output)
    if member is not None:
        return f"--output {output} is {member}, inside the warehouse folder {layout.dir}; copy the plans elsewhere"
    if output.exists() and not output.is_dir():
        return f"--output {output} is a file; it takes the folder the plan folders are copied into"
    return None


def _copy_plans(layout: WarehouseLayout, plans: PlanData, profile: str, output: Path) -> int:
    """Copy each of the profile's plan folders to `output/<plan_id>/`, saying where; 1 when one is missing."""
    missing = []
    folder = layout.dir.resolve()
    for row in plans.rows[profile]:
        source = (folder / row["plan_folder"]).resolve()
        if not source.is_relative_to(folder) or Path(row["plan_id"]).name != row["plan_id"] or not source.is_dir():
            missing.append(f"{row['plan_id']} ({source}: expected its folder in the warehouse)")
            continue
        target = output / row["plan_id"]
        shutil.copytree(source, target, dirs_exist_ok=True)
        copied = sum(1 for p in target.rglob("*") if p.is_file())
        print("\n".join(wrapped(f"copied {source}/ to {target.resolve()}/ ({copied} files)", hanging="    ")))
    if missing:
        say(
            f"benchbill plan: {len(missing)} plan folder(s) not found, not copied: {'; '.join(missing)}; "
            "`benchbill run` writes them again"
        )
        return 1
    return 0
