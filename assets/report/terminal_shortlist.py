"""The shortlist `benchbill run` prints, per profile: its decision lines folded to the terminal's width, then one
row per config; at a narrow terminal the table leaves out the columns a reader needs least (every one with
`--wide`) and cuts long names, never a number."""

from __future__ import annotations

from collections.abc import Sequence

from assets.core.inert import inert
from assets.report.textformat import (
    TEXT,
    align_rows,
    column_widths,
    cut_to_width,
    number_list,
    range_text,
    reference_tokens_per_s_per_accel,
    shows_quality,
    terminal_width,
    wrapped,
)

TOP_CONFIGS = 5  # configs per profile the terminal shows; `benchbill run --all` shows every one
NEEDED = 0  # a column's place in the order of leaving out (TERMINAL_COLUMNS) when it is never left out
COST_PER_REQUEST = ("cost_per_request_usd_low", "cost_per_request_usd_high")  # needed where no bill is monthly
VENDORS = ("nvidia-", "amd-", "intel-", "google-")  # dropped from accelerator ids when the table is too wide

Column = tuple[str, str | tuple[str, ...], str, int]  # an entry of TERMINAL_COLUMNS

# The terminal shortlist, one row per config: (title, key of the config row, number kind or TEXT, the order in which
# the column is left out when the table is wider than the terminal: 1 first; NEEDED never). What a reader needs to
# decide stays: the config and its run, the price class, the billed band, replicas and the monthly bill at our
# volume (or, for a profile that states no volume, the cost per 1,000 requests: a column no row has a value in is
# left out whatever the width, as the quality column when no profile states a quality requirement).
TERMINAL_COLUMNS: list[Column] = [
    ("#", "rank", TEXT, NEEDED),
    ("config", "config", TEXT, NEEDED),
    ("run", "run", TEXT, NEEDED),
    ("prec", "precision", TEXT, 4),
    ("MLPerf\ntok/s/acc", "mlperf_reference_tokens_per_s_per_accel", "tokens", 1),
    ("delivered\n/ MLPerf", ("delivered_fraction_low", "delivered_fraction_high"), "fraction", 2),
    ("price\nclass", "price_class", TEXT, NEEDED),
    ("$/acc-\nhour", ("usd_per_accelerator_hour_low", "usd_per_accelerator_hour_high"), "usd_per_hour", 5),
    ("billed\nreq/s", ("billed_requests_per_s_low", "billed_requests_per_s_high"), "rate", NEEDED),
    ("$ per 1k\nrequests", COST_PER_REQUEST, "usd_per_1k_requests", 7),
    (
        "$ per 1M\nout tokens",
        ("cost_per_million_output_tokens_usd_low", "cost_per_million_output_tokens_usd_high"),
        "usd_per_1m_tokens",
        3,
    ),
    ("replicas", ("replicas_low", "replicas_high"), "count", NEEDED),
    ("USD a\nmonth", ("monthly_usd_low", "monthly_usd_high"), "usd_per_month", NEEDED),
    ("quality", "quality_status", TEXT, 8),
    ("caveats", "caveat_refs", TEXT, 6),
]
# The columns whose cells may be cut to fit (names, never numbers), each to at least this many characters: a config
# `8x h200-sxm~`, a run `vllm+batc~` (`projected` whole), a price class `capacity~` (`on_demand` whole).
NAME_LEAST = {"config": 12, "config_short": 12, "run": 10, "price_class": 9}
_SPREAD = (  # columns taken across the providers of one price class: (column, min or max)
    ("usd_per_accelerator_hour_low", "usd_per_accelerator_hour", min),
    ("usd_per_accelerator_hour_high", "usd_per_accelerator_hour", max),
    ("cost_per_request_usd_low", "cost_per_request_usd_low", min),
    ("cost_per_request_usd_high", "cost_per_request_usd_high", max),
    ("cost_per_million_output_tokens_usd_low", "cost_per_million_output_tokens_usd_low", min),
    ("cost_per_million_output_tokens_usd_high", "cost_per_million_output_tokens_usd_high", max),
    ("replicas_low", "replicas_low", min),
    ("replicas_high", "replicas_high", max),
    ("monthly_usd_low", "monthly_usd_low", min),
    ("monthly_usd_high", "monthly_usd_high", max),
)
PLAN_COLUMNS = ("replicas_low", "replicas_high", "monthly_usd_low", "monthly_usd_high")  # from the capacity plan


def with_capacity(rows: list[dict], capacity: list[dict]) -> list[dict]:
    """Shortlist rows with the replicas and monthly bill at our volume of their config x price
    (analytics.capacity_plan rows, matched on profile, config, price class and provider); none where the profile
    states no volume."""
    plan = {(c["profile"], c["config_key"], c["price_class"], c["price_provider"]): c for c in capacity}
    matched = []
    for row in rows:
        found = plan.get((row["profile"], row["config_key"], row.get("price_class"), row.get("price_provider")), {})
        matched.append({**row, **{column: found.get(column) for column in PLAN_COLUMNS}})
    return matched


def config_rows(rows: list[dict], every_price_class: bool = False) -> list[dict]:
    """Shortlist rows (one per config x price, in rank order) as one row per config at its first-ranked price
    class, or per config x price class: costs, prices, replicas and bills as the range across that class's
    providers."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        key = (row["profile"], row["config_key"])
        cheapest_class = groups.get(key, [row])[0].get("price_class")
        if every_price_class:
            groups.setdefault((*key, row.get("price_class")), []).append(row)
        elif row.get("price_class") == cheapest_class:
            groups.setdefault(key, []).append(row)
    merged = []
    for members in groups.values():
        first = dict(members[0])
        for column, source, pick in _SPREAD:
            known = [m[source] for m in members if m.get(source) is not None]
            first[column] = pick(known) if known else None
        first["price_providers"] = [m["price_provider"] for m in members if m.get("price_provider")]
        accelerator = first.get("accelerator_id") or "(unknown accelerator)"
        first["config"] = f"{first['accelerator_count']}x {accelerator}"
        short = next((accelerator[len(v) :] for v in VENDORS if accelerator.startswith(v)), accelerator)
        first["config_short"] = f"{first['accelerator_count']}x {short}"
        first["mlperf_reference_tokens_per_s_per_accel"] = reference_tokens_per_s_per_accel(first)
        first["run"] = first.get("run_label") or first["evidence"]
        first["caveat_list"] = list(
            dict.fromkeys(c.strip() for m in members for c in (m.get("caveats") or "").split("; ") if c.strip())
        )
        merged.append(first)
    return merged


def terminal_cell(row: dict, source: str | tuple[str, ...], kind: str) -> str:
    """One cell of the terminal shortlist: words (made inert), a number, or a compact `low-high` range."""
    if kind == TEXT:  # made inert here, so that a cut counts the escaped text
        value = row.get(source) if isinstance(source, str) else None
        return "-" if value is None else inert(str(value))
    columns = source if isinstance(source, tuple) else (source,)
    return range_text(row.get(columns[0]), row.get(columns[-1]), kind, dash="-")


def _least(column: Column) -> int | None:
    """How narrow a column's cells may be cut (NAME_LEAST), None for a column never cut."""
    return NAME_LEAST.get(column[1]) if isinstance(column[1], str) else None


def _width(columns: Sequence[Column], rows: list[dict], cut: bool = False) -> int:
    """The width of the rows' table in `columns`, with every name cut as far as it may be when `cut`."""
    body = [[terminal_cell(r, source, kind) for _t, source, kind, _o in columns] for r in rows]
    widths = column_widths([title for title, *_ in columns], body)
    least = [_least(c) for c in columns]
    return sum(min(w, m) if cut and m is not None else w for w, m in zip(widths, least)) + 2 * (len(columns) - 1)


def fitted_table(columns: Sequence[Column], rows: list[dict], width: int | None) -> tuple[list[str], list[str]]:
    """(lines, titles left out): the rows' table, every column with a value when `width` is None; else, when it is
    wider than `width`, accelerator ids without their vendor and the columns needed least left out (in the order
    TERMINAL_COLUMNS gives) until it fits with names cut to NAME_LEAST, then names cut (ending `~`) only as far as
    needed. Numbers are never cut."""
    kept = [c for c in columns if any(terminal_cell(r, c[1], c[2]) != "-" for r in rows) or c[1] in ("rank", "config")]
    left_out: list[str] = []
    if width is not None and _width(kept, rows) > width:
        kept = [(t, "config_short", k, o) if s == "config" else (t, s, k, o) for t, s, k, o in kept]
    billed_monthly = any(s == PLAN_COLUMNS[2:] for _t, s, _k, _o in kept)
    while width is not None and _width(kept, rows, cut=True) > width:
        # without a monthly bill, the cost per request is the figure a reader needs
        optional = [c for c in kept if c[3] != NEEDED and (billed_monthly or c[1] != COST_PER_REQUEST)]
        if not optional:
            break
        dropped = min(optional, key=lambda c: c[3])
        kept.remove(dropped)
        left_out.append(dropped[0].replace("-\n", "-").replace("\n", " "))
    header = [title for title, *_ in kept]
    body = [[terminal_cell(r, source, kind) for _t, source, kind, _o in kept] for r in rows]
    if width is not None:
        cut_to_width(header, body, width, [_least(c) for c in kept])
    return align_rows(header, body, [kind != TEXT for _t, _s, kind, _o in kept]), left_out


def format_shortlist(
    rows: list[dict],
    slo_text: dict[str, str] | None = None,
    show_all: bool = False,
    notes: dict[str, list[str]] | None = None,
    top: int = TOP_CONFIGS,
    width: int | None = None,
    wide: bool = False,
) -> str:
    """The shortlist as plain text folded to `width` (default: the terminal's), per profile: its `notes` (the
    decision at our volume), then the top `top` configs (every config and price class with `show_all`), one row
    each, in rank_in_profile order, in the columns that fit (every one with `wide`); each profile's caveats
    numbered once and referenced by number."""
    width = width or terminal_width()
    empty = [
        line
        for profile, lines in (notes or {}).items()
        if not any(r["profile"] == profile for r in rows)
        for line in ["", *wrapped(f"{profile}: no config", width), *(w for n in lines for w in wrapped(n, width, "  "))]
    ]
    if not rows:
        return "\n".join(
            [
                *wrapped("(the shortlist is empty: no run of ours and no priced MLPerf reference matches a profile)"),
                *empty,
            ]
        )
    by_profile: dict[str, list[dict]] = {}
    for row in config_rows(rows, every_price_class=show_all):
        by_profile.setdefault(row["profile"], []).append(row)
    columns = [c for c in TERMINAL_COLUMNS if c[1] != "quality_status" or shows_quality(rows)]
    out = wrapped(
        ("Every config and price class per profile" if show_all else f"Top {top} configs per profile")
        + ", in the profile's one ranking: the recommended config first (our runs before projections, then the "
        "lowest monthly bill at our volume where the profile states one, else the lowest cost per request); "
        "# is the row's rank_in_profile, as in the report and benchbill sql shortlist"
        + (
            ""
            if show_all
            else "; each config at its first-ranked price class; every config and class: benchbill run --all"
        ),
        width,
    )
    out += wrapped(
        "Price, costs: low-high across the class's providers, accelerators busy at their SLO-limited rate (billed "
        "req/s, the band the costs are priced on; where it is not the band measured as run, a caveat gives both); "
        "replicas and USD a month: at our volume (the capacity plan); each provider: benchbill sql shortlist "
        "--param profile=NAME",
        width,
    )
    for profile, configs in by_profile.items():
        total = len({r["config_key"] for r in configs})
        shown = configs if show_all else configs[:top]
        caveats: dict[str, int] = {}
        for i, row in enumerate(shown):
            row["rank"] = str(row.get("rank_in_profile") or i + 1)
            row["caveat_refs"] = number_list([caveats.setdefault(c, len(caveats) + 1) for c in row["caveat_list"]])
        out.append("")
        scope = f"{total} configs, {len(shown)} rows" if show_all else f"top {len(shown)} of {total} configs"
        out += wrapped(f"{profile}: {scope}; SLO {(slo_text or {}).get(profile) or 'not stated'}", width)
        for note in (notes or {}).get(profile, []):
            out += wrapped(note, width, indent="  ", hanging="  ")
        table, left_out = fitted_table(columns, shown, None if wide else width)
        out += table
        if not show_all and total > len(shown):
            rest = total - len(shown)
            out.append(f"    ... and {rest} more config{'s' if rest > 1 else ''}: benchbill run --all")
        if left_out:
            said = f"more columns (left out at {width} columns: {', '.join(left_out)}): benchbill run --wide"
            out += wrapped(said, width, "    ")
        for text, number in caveats.items():
            out += wrapped(text, width, indent=f"{number:>4}. ", hanging="")
    return "\n".join(out + empty)
