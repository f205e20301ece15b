"""The RedBlack section of reports/index.html: the answer paragraphs and the tables (HTML)."""

from __future__ import annotations

import duckdb

from ...core.fmt import plural, small_pct
from ...report.html import esc, html_table
from . import queries as q
from .cost import CostToFinish, cost_line, costs_to_finish
from .cost_text import CLUSTER_CORES
from .markdown import describe_list, found_by_text

FOLD_ROWS = 30  # tables longer than this are folded into a <details> element


def answer(con: duckdb.DuckDBPyConnection) -> list[str]:
    h = q.headline(con)
    if h.get("infinite_canonical"):
        text = (
            f"Infinite balanced RedBlack deals exist for k = {esc(h['sizes_list'])} cards per player: "
            f"<b>{h['infinite_canonical']:,}</b> canonical deals ({h['infinite_total']:,} counting "
            f"colour swaps), falling into {plural(h['cycles'], 'cycle')}."
        )
    else:
        text = "No infinite balanced RedBlack deal is known for the sizes searched."
    if h.get("complete_sizes"):
        text += (
            f" The lists are complete for k = {h['complete_ranges']} "
            f"(every one of their {h['complete_deals']:,} canonical deals searched exactly)."
        )
    out = [text, *campaigns_answer(con), *full_deck_answer(con), *audit_answer(q.audit(con))]
    for s in q.samples(con):
        kind = "balanced" if s["balanced"] else "any-split"
        verdict = (
            f"<b>{s['infinite']:,} infinite</b>"
            if s["infinite"]
            else "<b>none was infinite</b> (sampling can find one, not prove there is none)"
        )
        out.append(
            f"k = {s['k']} ({2 * s['k']} cards): {s['deals']:,} seeded {kind} deals played "
            f"(<code>{esc(s['experiments'])}</code>); {verdict}."
        )
    return out


def full_deck_answer(con: duckdb.DuckDBPyConnection, k: int = q.FULL_DECK) -> list[str]:
    """The seed's question in one paragraph: known infinite full-deck deals, coverage, what is left."""
    deals = q.full_deck_deals(con, k)
    if not deals:
        return []
    text = (
        f"<b>The full deck (k = {k}): {plural(len(deals), 'infinite deal is', 'infinite deals are')} known</b> "
        f"({2 * len(deals):,} counting colour swaps), each certified by an exact cycle: "
        f"{esc(found_by_text(deals))}."
    )
    cov = q.coverage_of(con, k)
    if cov:
        text += (
            f" Exhaustive search has covered {small_pct(cov['share_searched'])} of the "
            f"{cov['canonical_deals']:,} canonical deals"
        )
        text += finish_answer(costs_to_finish(con).get(k, []), "; finishing the proof needs ") + "."
    return [text]


def campaigns_answer(con: duckdb.DuckDBPyConnection, full_deck: int = q.FULL_DECK) -> list[str]:
    """A line for each size searched in part (the full deck apart): how far, and what the rest costs."""
    out = []
    for k in q.partial_sizes(con, full_deck):
        cov = q.coverage_of(con, k)
        text = (
            f"Under way: k = {k}, {small_pct(cov['share_searched'])} of its {cov['canonical_deals']:,} canonical "
            "deals searched exactly"
        )
        text += finish_answer(costs_to_finish(con).get(k, []), "; the rest needs ")
        out.append(
            text + " (<code>infinite_games.md</code>, Campaigns in progress: how it is priced, what it proves so far)."
        )
    return out


def finish_answer(costs: list[CostToFinish], lead: str) -> str:
    """The cost to finish on each kind of CPU that measured it (the report's figure, cost.py), or nothing."""
    if not costs:
        return ""
    parts = [f"{esc(cost_line(c))}{cluster_answer(c.hours)}" for c in costs]
    return lead + "; ".join(parts)


def cluster_answer(hours: float) -> str:
    """`` (17.0 hours on 1,000 cores)`` for work that takes a cluster hours, else nothing."""
    return f" ({hours / CLUSTER_CORES:,.1f} hours on {CLUSTER_CORES:,} cores)" if hours / CLUSTER_CORES >= 0.1 else ""


def audit_answer(rows: list[dict]) -> list[str]:
    out = []
    for exp in sorted({r["experiment"] for r in rows}):
        mine = [r for r in rows if r["experiment"] == exp]
        listed = sum(r["listed"] for r in mine)
        confirmed = sum(r["confirmed_infinite"] for r in mine)
        finite = sum(r["listed_finite"] for r in mine)
        missing = [(r["k"], r["missing"]) for r in mine if r["missing"]]
        text = (
            f"The list <code>{esc(exp)}</code> ({listed:,} deals) audited: {confirmed:,} confirmed infinite, "
            f"{finite:,} finite"
        )
        if missing:
            text += (
                "; it misses infinite deals in the basins of its own cycles ("
                + ", ".join(f"k = {k}: {n:,}" for k, n in missing)
                + ")"
            )
        out.append(text + ".")
    return out


DEAL_COLUMNS = ("p1", "p2", "cycle_id", "period", "rounds_before_cycle", "found_by")


def infinite_deals_html(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every known infinite deal, one block per k marked complete or partial; long blocks folded."""
    status = q.status_by_k(con)
    by_k = q.infinite_by_k(con)
    out = [
        '<h3 id="redblack-infinite-deals">Infinite deals by k</h3>',
        "<p>Each deal as <code>P1 P2</code>, top card first, 0 red, 1 black; only the canonical deal of "
        "each colour-swap pair is listed (player 1's first card red). <b>complete</b>: every canonical "
        "deal of that size was searched; <b>partial</b>: the deals met by sampling and in the cycles' basins. "
        "<b>found_by = basin</b>: the deal lies in the basin of a cycle the search found (the owner rule stops "
        "most deals before their cycle: the search proves which cycles exist, the basin walk lists every deal "
        "that falls into them), so complete lists hold mostly basin deals.</p>",
    ]
    cols = ["P1", "P2", "cycle", "period", "rounds before cycle", "found by"]
    for k, deals in by_k.items():
        s = status.get(k, {})
        head = (
            f"k = {k}: {plural(len(deals), 'canonical deal')} "
            f'({2 * len(deals):,} in all), <span class="list-{esc(s.get("list"))}">{esc(describe_list(s))}</span>'
        )
        table = html_table(cols, [[d[c] for c in DEAL_COLUMNS] for d in deals], {"P1": str, "P2": str})
        opened = " open" if len(deals) <= FOLD_ROWS else ""
        out.append(f'<details class="infinite-k" data-k="{k}"{opened}><summary>{head}</summary>{table}</details>')
    none = [k for k in sorted(status) if k not in by_k]
    if none:
        out.append(
            "<p>No infinite balanced deal is known for "
            + "; ".join(f"k = {k} ({esc(describe_list(status[k]))})" for k in none)
            + ".</p>"
        )
    return out


def tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    out = ["<h3>By size k</h3>", html_table(*q.table(con, q.STATUS_SQL)), *infinite_deals_html(con)]
    ccols, crows = q.table(con, q.CYCLES_SQL)
    if not crows:
        return out + ["<h3>Cycles</h3>", "<p>No cycles found.</p>"]
    table = html_table(ccols, crows)
    # a long list of cycles (large k) would bury the figures: fold it
    if len(crows) > FOLD_ROWS:
        table = f"<details><summary>All {len(crows):,} cycles</summary>{table}</details>"
    return out + ["<h3>Cycles</h3>", table]
