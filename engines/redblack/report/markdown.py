"""``infinite_games.md`` and the CSV files beside it: the RedBlack report as text."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ...core.fmt import plural, small_pct, value
from ...core.stats import wilson_upper
from ...core.store import write_text
from ...report.common import markdown_table, write_csv
from . import queries as q
from .cost import CostToFinish, cost_line, costs_to_finish, window_checks
from .cost_text import cost_check_section, finish_text, sample_only_text
from .figures import COST_PNG, LENGTHS_PNG, SHARE_PNG
from .gpu import gpu_section
from .published import audit_section, published_check_section

MD, CSV, CYCLES_CSV = "infinite_games.md", "infinite_games.csv", "redblack_cycles.csv"

INTRO = (
    "A deal is infinite when play reaches a state seen before (exact cycle detection, no round "
    "limit). Deals are written as the seed's author does, `P1 P2`, top card first, 0 red, 1 black; "
    "only the canonical deal of each colour-swap pair is listed (player 1's first card red), so "
    "the total is twice the canonical count."
)
# Why most deals of a list called complete were not met by the search itself (found_by = basin)
FOUND_BY_NOTE = (
    "`found_by` says how a deal was found: `exhaustive`, the search met it; `basin`, it lies in the basin "
    "of a cycle the search found, listed by walking that basin backwards. The owner rule stops a deal as soon "
    "as a smaller deal's game passes the same state, so most infinite deals are never played to their cycle: "
    "the complete search proves which cycles exist (each is reached by the smallest deal of its basin) and the "
    "basin walk lists every deal that falls into them, so a complete list holds mostly `basin` deals "
    '(docs/redblack.md, "The owner rule").'
)

# Markdown headings of the status query's columns, in its order
STATUS_COLUMNS = ("k", "list", "deals searched (exhaustive)", "deals sampled", "infinite (canonical)")
STATUS_COLUMNS += ("infinite (total)", "cycles", "found only via basins", "longest finite game (rounds)")

COVERAGE_COLUMNS = ("k", "cards", "canonical deals", "searched", "share", "prefix done", "complete")
COVERAGE_COLUMNS += ("ns per round", "rounds per deal", "ns per deal (windows)", "cost to finish (95 %)")
COVERAGE_COLUMNS += ("cross-check only: rounds × CPU per round (core-hours)",)

CYCLES_TEXT = (
    "{known}. Cycle ids are the cycle's least state modulo colour swap, `LEADER/OTHER`; the period "
    "counts rounds of the labelled game; basin states count every state (any split of the "
    "cards) whose play leads into the cycle or its colour swap, where a basin job walked it (an audited "
    "cycle's basin is walked by the audit, whose deals are counted in `infinite known`)."
)


def write_markdown(con: duckdb.DuckDBPyConnection, outdir: Path) -> list[Path]:
    """``infinite_games.md`` and its two CSV tables."""
    outdir = Path(outdir)
    cycles = q.table(con, q.CYCLES_SQL)
    return [
        write_text(outdir / MD, markdown(con, cycles)),
        write_csv(outdir / CSV, *q.table(con, q.LIST_SQL)),
        write_csv(outdir / CYCLES_CSV, *cycles),
    ]


def markdown(con: duckdb.DuckDBPyConnection, cycles: tuple[list[str], list[tuple]]) -> str:
    out = ["# Infinite RedBlack games", "", INTRO, "", FOUND_BY_NOTE, ""]
    out += headline_section(q.headline(con))
    out += full_deck_section(con)
    out += audit_section(q.audit(con))
    out += published_check_section(q.published_checks(con))
    out += coverage_section(con)
    out += gpu_section(con, costs_to_finish(con))
    out += ["## By size", "", markdown_table(STATUS_COLUMNS, q.table(con, q.STATUS_SQL)[1])]
    out += deals_section(q.infinite_by_k(con), q.status_by_k(con))
    cyc_cols, cyc_rows = cycles
    out += ["## Cycles", "", cycles_text(q.headline(con)), ""]
    out.append(markdown_table(cyc_cols, cyc_rows) if cyc_rows else "No cycles found.\n")
    out += ["## Summary by method", "", markdown_table(*q.table(con, q.SUMMARY_SQL))]
    out += ["## Figures", "", f"![Share of infinite deals by k]({SHARE_PNG})", ""]
    out += [f"![Game length distribution by k]({LENGTHS_PNG})", ""]
    out += [f"![CPU per deal of each cost window]({COST_PNG})", ""]
    return "\n".join(out)


def cycles_text(h: dict) -> str:
    known = f"{plural(h['cycles_known'], 'cycle is', 'cycles are')} known"
    if h["cycles_known"] != h["cycles"]:
        known += f" ({h['cycles']:,} of them reached by a balanced deal)"
    return CYCLES_TEXT.format(known=known[0].upper() + known[1:])


def headline_section(h: dict) -> list[str]:
    out = []
    if h["complete_sizes"]:
        out.append(
            f"* Exhaustive search covered every canonical balanced deal for "
            f"{plural(h['complete_sizes'], 'size')}, k = {h['complete_ranges']} "
            f"({plural(h['complete_deals'], 'deal')}): those lists are **complete**."
        )
    if h["sampled_deals"]:
        out.append(
            f"* Seeded sampling played {plural(h['sampled_deals'], 'deal')} and met "
            f"{value(h['sampled_infinite'])} infinite {'one' if h['sampled_infinite'] == 1 else 'ones'}."
        )
    out.append(
        f"* Known infinite balanced deals: {value(h['infinite_canonical'])} canonical "
        f"({value(h['infinite_total'])} counting colour swaps), at sizes k = "
        f"{h['sizes_list'] or 'none'}, in {plural(h['cycles'], 'cycle')}."
    )
    return out + [""]


# How each known infinite deal was found (redblack_infinite.found_by), in words, in this order.
FOUND_BY = {
    "exhaustive": "met by our exhaustive search",
    "sample": "met by our seeded sampling",
    "basin": "in the basins of cycles our search found",
    "audit": "from the audited list, replayed here",
    "audit basin": "in the basins of the listed deals' cycles, missing from the list",
}


# The same, short, for the full-deck table's last column.
FOUND_BY_SHORT = {
    "exhaustive": "exhaustive search",
    "sample": "sampling",
    "basin": "basin of a cycle found",
    "audit": "audited list",
    "audit basin": "basin of a listed deal's cycle",
}


def found_by_text(deals: list[dict]) -> str:
    """``13 from the audited list, replayed here and 58 in the basins of ...``: the deals by how found."""
    counts = [(sum(d["found_by"] == how for d in deals), words) for how, words in FOUND_BY.items()]
    parts = [f"{n:,} {words}" for n, words in counts if n]
    return parts[0] if len(parts) == 1 else "; ".join(parts[:-1]) + "; and " + parts[-1]


def deals_section(by_k: dict[int, list[dict]], status: dict[int, dict]) -> list[str]:
    """One block per size with known infinite deals, then the sizes with none."""
    out = ["## Infinite deals", ""]
    for k, deals in by_k.items():
        s = status.get(k, {})
        out.append(
            f"### k = {k}: {value(s.get('infinite_canonical'))} canonical, "
            f"{value(s.get('infinite_total'))} in all ({describe_list(s)})"
        )
        out += ["", "```", "# P1 P2  cycle  period  rounds-before-cycle  found-by"]
        out += [
            f"{d['p1']} {d['p2']}  {d['cycle_id']}  {value(d['period'])}  {value(d['rounds_before_cycle'])}  "
            + d["found_by"].replace(" ", "-")
            for d in deals
        ]
        out += ["```", ""]
    none = [k for k in sorted(status) if k not in by_k]
    for kind in ("complete", "partial"):
        ks = [k for k in none if status[k]["list"] == kind]
        if ks:
            why = (
                "(complete: every canonical deal was searched)."
                if kind == "complete"
                else "(" + "; ".join(f"k = {k}: {describe_list(status[k])}" for k in ks) + ")."
            )
            out += [f"No infinite balanced deal is known for k = {', '.join(map(str, ks))} " + why, ""]
    return out


def full_deck_section(con: duckdb.DuckDBPyConnection, k: int = q.FULL_DECK) -> list[str]:
    """What is known about infinite games with a full deck (k = 26): every known deal with its
    certificate, the exhaustive coverage, the sampling bound, and what finishing would cost."""
    out = [f"## The full deck (k = {k}, {2 * k} cards)", ""]
    deals = q.full_deck_deals(con, k)
    if deals:
        out.append(
            f"**{plural(len(deals), 'infinite full-deck deal is', 'infinite full-deck deals are')} known** "
            f"({2 * len(deals):,} counting colour swaps): {found_by_text(deals)}. "
            "Each certificate is exact: replaying the deal reaches the cycle `cycle_id` (its least state, "
            "`LEADER/OTHER`) after `rounds_before_cycle` rounds, and the cycle repeats every `period` rounds."
        )
        out.append("")
        cols = ["P1", "P2", "cycle_id", "period", "rounds before cycle", "how found"]
        out.append(markdown_table(cols, [deal_row(d) for d in deals]))
    else:
        out += ["No infinite full-deck deal is known to this warehouse.", ""]
    c = q.coverage_of(con, k)
    if c:
        costs = costs_to_finish(con).get(k, [])
        out += [coverage_text(c, costs, q.window_cost(con, k), q.searched_ranges(con, k)), ""]
    for s in q.sample_bounds(con, k):
        up = wilson_upper(int(s["infinite"]), int(s["deals"]))
        out += [
            f"Sampling: {value(s['deals'])} seeded deals played, {value(s['infinite'])} infinite; 95 % upper bound "
            f"on the share of infinite deals {100 * up:.2g} % (sampling can bound the share, never prove there is "
            "none).",
            "",
        ]
    return out


def deal_row(d: dict) -> tuple:
    return (d["p1"], d["p2"], d["cycle_id"], d["period"], d["rounds_before_cycle"], FOUND_BY_SHORT[d["found_by"]])


# A size's searched ranges are listed in the report up to this many (the rest: the view)
RANGES_LISTED = 6


def coverage_text(c: dict, costs: list[CostToFinish], w: dict, ranges: list[tuple[int, int]]) -> str:
    """A partial exhaustive search: what it covered, what it proves, what the rest costs."""
    prefix = f"; ranks [0, {value(c['prefix_done'])}) without a gap" if c["prefix_done"] else ""
    text = (
        f"Exhaustive search: {value(c['ranks_searched'])} of {value(c['canonical_deals'])} canonical deals "
        f"searched ({small_pct(c['share_searched'])}){searched_by_text(c)}{prefix}. {ranges_text(ranges)}: every "
        "cycle whose smallest basin deal has a rank in them has been found; nothing more is claimed."
    )
    if costs:
        return text + "\n\n" + finish_text(c, costs, w)
    return text + sample_only_text(c)


def searched_by_text(c: dict) -> str:
    """``, 356,715,363,800 by search shards (...) and 15,000,000 by cost windows alone``, when windows add ranks."""
    windows = int(c.get("window_only_ranks") or 0)
    if not windows:
        return ""
    return (
        f", {value(int(c['ranks_searched']) - windows)} by search shards (the count of "
        f"`cardlab redblack campaign {c['k']}`) and {value(windows)} by cost windows alone"
    )


def ranges_text(ranges: list[tuple[int, int]]) -> str:
    """``The searched ranks form 3 ranges, [0, 4,000,000,000), ...``: listed when few."""
    text = f"The searched ranks form {plural(len(ranges), 'range')}"
    if len(ranges) > RANGES_LISTED:
        return text + " (view `redblack_searched_ranges`)"
    return text + ", " + ", ".join(f"[{value(a)}, {value(b)})" for a, b in ranges)


def coverage_section(con: duckdb.DuckDBPyConnection) -> list[str]:
    _, rows = q.table(con, q.COVERAGE_SQL)
    if not rows:
        return []
    costs = costs_to_finish(con)
    rows = [(*r[:-1], "; ".join(cost_line(c) for c in costs.get(r[0], [])) or None, r[-1]) for r in rows]
    return [
        "## Exhaustive coverage",
        "",
        "Canonical deals searched per size (overlapping shards counted once); `prefix_done`: ranks "
        "[0, prefix_done) searched without a gap; `cost to finish`: the one cost of the ranks left, per kind of "
        "CPU, from the size's cost windows in them times their measured miss (below); the last column is the sample "
        "method (CPU per round times rounds per deal over the whole size), a cross-check only: the ranks left are "
        "not the whole size.",
        "",
        markdown_table(COVERAGE_COLUMNS, rows),
        *campaigns_section(con),
        *cost_check_section(window_checks(con)),
    ]


def campaigns_section(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Each size searched in part (the full deck has its own section): what is searched and
    proven, and what the rest costs, measured."""
    out = []
    for k in q.partial_sizes(con):
        c, ranges = q.coverage_of(con, k), q.searched_ranges(con, k)
        costs = costs_to_finish(con).get(k, [])
        out += [f"### Campaign k = {k}", "", coverage_text(c, costs, q.window_cost(con, k), ranges), ""]
        cycles = q.known_cycles(con, k)
        if cycles:
            out += [known_cycles_text(cycles, ranges), ""]
    return ["## Campaigns in progress", "", *out] if out else []


def known_cycles_text(cycles: list[dict], ranges: list[tuple[int, int]]) -> str:
    """Where the search is sure to meet each cycle already known at its size: at the smallest balanced
    deal of the cycle's basin, which the owner rule never stops (it may meet the cycle earlier too)."""
    parts = []
    for c in cycles:
        rank = f"rank {value(c['rank'])}" if c["basin_whole"] else f"a rank at most {value(c['rank'])} (basin cut)"
        searched = c["basin_whole"] and any(a <= c["rank"] < b for a, b in ranges)
        if c["deals_met"]:
            status = "met by a search shard"
        elif searched:
            status = "searched, yet not met: a contradiction to look into"
        else:
            status = "not searched yet"
        parts.append(f"`{c['cycle_id']}` at {rank} ({status})")
    return (
        "**Known cycles.** The owner rule never stops the smallest balanced deal of a cycle's basin (no "
        "smaller deal passes its states), so the search is sure to meet each cycle already known at this "
        f"size once it has searched that deal's rank ({plural(len(cycles), 'cycle')}): {'; '.join(parts)}."
    )


def describe_list(s: dict) -> str:
    """How complete one size's list is, in words (numbers from redblack_by_size)."""
    if s.get("list") == "complete":
        n = s["exhaustive_deals"]
        return (
            "complete: the 1 canonical deal searched"
            if n == 1
            else f"complete: all {value(n)} canonical deals searched"
        )
    parts = []
    if s.get("exhaustive_deals"):
        parts.append(f"{plural(int(s['exhaustive_deals']), 'canonical deal')} searched")
    if s.get("sampled_deals"):
        parts.append(plural(int(s["sampled_deals"]), "seeded random deal"))
    if s.get("audited"):
        parts.append("the deals of an audited list")
    parts.append("basins of the cycles found")
    return "partial: " + ", ".join(parts)
