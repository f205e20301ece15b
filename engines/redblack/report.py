"""RedBlack report: the infinite-games list per size k, the cycles, and two figures.

Writes ``infinite_games.md`` / ``.csv``, ``redblack_cycles.csv``,
``redblack_infinite_share.png`` and ``redblack_lengths.png``.  Every number comes from
SQL over the warehouse views of ``engines/redblack/views.sql``; this module only lays
them out.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import duckdb

from ..core.store import write_text
from ..report.common import fmt, markdown_table, plural, pyplot, query, save_figure, write_csv
from ..report.html import esc, html_table, one

# Per size k: is the list complete (exhaustive search over every canonical deal), how it
# was searched, and how many infinite deals / cycles are known.
STATUS_SQL = """
WITH m AS (
    SELECT k,
           bool_or(method = 'exhaustive' AND complete = 'yes') AS complete,
           sum(deals) FILTER (WHERE method = 'exhaustive') AS exhaustive_deals,
           sum(deals) FILTER (WHERE method = 'sample') AS sampled_deals,
           max(longest_finite_rounds) AS longest_finite_rounds
    FROM redblack_summary GROUP BY k
), i AS (
    SELECT k, count(*) AS infinite_canonical, count(DISTINCT cycle_id) AS cycles,
           count(*) FILTER (WHERE found_by = 'basin') AS only_in_basins
    FROM redblack_infinite GROUP BY k
)
SELECT m.k,
       CASE WHEN m.complete THEN 'complete' ELSE 'partial' END AS list,
       m.exhaustive_deals, m.sampled_deals,
       coalesce(i.infinite_canonical, 0) AS infinite_canonical,
       2 * coalesce(i.infinite_canonical, 0) AS infinite_total,
       coalesce(i.cycles, 0) AS cycles,
       coalesce(i.only_in_basins, 0) AS only_in_basins,
       m.longest_finite_rounds
FROM m LEFT JOIN i USING (k)
ORDER BY k
"""

HEADLINE_SQL = """
SELECT (SELECT count(*) FROM redblack_infinite) AS infinite_canonical,
       (SELECT 2 * count(*) FROM redblack_infinite) AS infinite_total,
       (SELECT count(DISTINCT k) FROM redblack_infinite) AS sizes_with_infinite,
       (SELECT string_agg(k::VARCHAR, ', ' ORDER BY k) FROM (SELECT DISTINCT k FROM redblack_infinite)) AS sizes_list,
       (SELECT count(*) FROM redblack_cycles) AS cycles,
       (SELECT min(k) FROM redblack_summary WHERE method = 'exhaustive' AND complete = 'yes') AS complete_from,
       (SELECT max(k) FROM redblack_summary WHERE method = 'exhaustive' AND complete = 'yes') AS complete_to,
       (SELECT count(DISTINCT k) FROM redblack_summary WHERE method = 'exhaustive' AND complete = 'yes') AS complete_sizes,
       (SELECT coalesce(sum(deals), 0) FROM redblack_summary WHERE method = 'exhaustive') AS exhaustive_deals,
       (SELECT coalesce(sum(canonical_deals), 0) FROM redblack_coverage WHERE complete) AS complete_deals,
       (SELECT coalesce(sum(deals), 0) FROM redblack_summary WHERE method = 'sample') AS sampled_deals,
       (SELECT coalesce(sum(infinite_hits), 0) FROM redblack_summary WHERE method = 'sample') AS sampled_infinite
"""

LIST_SQL = """
SELECT i.k, i.p1, i.p2, i.cycle_id, i.period, i.rounds_before_cycle, i.found_by,
       CASE WHEN c.complete THEN 'complete' ELSE 'partial' END AS list
FROM redblack_infinite i
LEFT JOIN redblack_coverage c USING (k)
ORDER BY i.k, i.p1, i.p2
"""

CYCLES_SQL = """
SELECT k, cycle_id, period, colour_symmetric, basin_states, basin_complete, basin_depth,
       balanced_deals_canonical, balanced_deals_total, found_by, deals_met
FROM redblack_cycles ORDER BY k, cycle_id
"""

SUMMARY_SQL = """
SELECT k, method, experiments, deals, complete, infinite_canonical, infinite_total, cycles,
       longest_finite_rounds, longest_finite_deal
FROM redblack_summary ORDER BY k, method
"""

# Exhaustive sizes: the complete ones only, with the true count of infinite deals (the owner
# rule meets only some of them itself; the rest are in the basins of the cycles it finds).
SHARE_SQL = """
SELECT c.k, 'exhaustive' AS method, c.canonical_deals AS deals,
       (SELECT count(*) FROM redblack_infinite i WHERE i.k = c.k) AS infinite,
       (SELECT count(*) FROM redblack_infinite i WHERE i.k = c.k) / c.canonical_deals AS share
FROM redblack_coverage c WHERE c.complete
UNION ALL
SELECT k, method, sum(deals) AS deals, sum(infinite_hits) AS infinite, sum(infinite_hits) / sum(deals) AS share
FROM redblack_summary WHERE method = 'sample'
GROUP BY ALL ORDER BY method, k
"""

COVERAGE_SQL = """
SELECT k, cards, canonical_deals, ranks_searched, share_searched, prefix_done, complete,
       1e9 * cpu_s_per_round AS ns_per_round, rounds_per_deal, core_hours_left
FROM redblack_coverage ORDER BY k
"""

# Every known infinite full-deck deal, with its certificate and how it was found.
FULL_DECK_SQL = """
SELECT i.p1, i.p2, i.cycle_id, i.period, i.rounds_before_cycle,
       CASE WHEN i.found_by IN ('exhaustive', 'sample') THEN 'own search'
            WHEN i.found_by = 'basin' THEN 'basin of a cycle our search found'
            WHEN a.listed THEN 'published list; replayed here'
            ELSE 'basin of a published deal''s cycle; not in the list' END AS how_found
FROM redblack_infinite i
LEFT JOIN (SELECT k, p1, p2, bool_or(status = 'listed-infinite') AS listed
           FROM redblack_audit GROUP BY ALL) a USING (k, p1, p2)
WHERE i.k = ?
ORDER BY how_found DESC, i.p1, i.p2
"""

AUDIT_SQL = """
SELECT experiment, k, listed, confirmed_infinite, listed_finite, missing, cycles, exhaustive_complete
FROM redblack_audit_summary ORDER BY experiment, k
"""

SAMPLE_BOUND_SQL = """
SELECT k, sum(deals) AS deals, sum(infinite_hits) AS infinite
FROM redblack_summary WHERE method = 'sample' AND k = ? GROUP BY k
"""

CLUSTER_CORES = 1000  # the size of cluster a projection is also given for

LENGTHS_SQL = """
SELECT k, method, rounds, share FROM redblack_lengths ORDER BY method, k, rounds
"""

LENGTH_STATS_SQL = """
SELECT k, method, sum(rounds * deals) / sum(deals) AS mean_rounds, max(rounds) AS max_rounds
FROM redblack_lengths GROUP BY ALL ORDER BY method, k
"""


def build(con: duckdb.DuckDBPyConnection, outdir: Path) -> list[Path]:
    outdir = Path(outdir)
    list_cols, list_rows = query(con, LIST_SQL)
    cyc_cols, cyc_rows = query(con, CYCLES_SQL)
    files = [
        write_text(outdir / "infinite_games.md", markdown(con, list_rows, cyc_cols, cyc_rows)),
        write_csv(outdir / "infinite_games.csv", list_cols, list_rows),
        write_csv(outdir / "redblack_cycles.csv", cyc_cols, cyc_rows),
        share_figure(con, outdir / "redblack_infinite_share.png"),
        lengths_figure(con, outdir / "redblack_lengths.png"),
    ]
    return files


def markdown(con, list_rows, cyc_cols, cyc_rows) -> str:
    h_cols, h_rows = query(con, HEADLINE_SQL)
    h = dict(zip(h_cols, h_rows[0]))
    out = ["# Infinite RedBlack games", ""]
    out.append(
        "A deal is infinite when play reaches a state seen before (exact cycle detection, no round "
        "limit). Deals are written as the seed's author does, `P1 P2`, top card first, 0 red, 1 black; "
        "only the canonical deal of each colour-swap pair is listed (player 1's first card red), so "
        "the total is twice the canonical count."
    )
    out.append("")
    if h["complete_sizes"]:
        out.append(
            f"* Exhaustive search covered every canonical balanced deal for "
            f"{fmt(h['complete_sizes'])} sizes, k = {h['complete_from']}..{h['complete_to']} "
            f"({fmt(h['exhaustive_deals'])} deals): those lists are **complete**."
        )
    if h["sampled_deals"]:
        out.append(
            f"* Seeded sampling played {fmt(h['sampled_deals'])} deals and met "
            f"{fmt(h['sampled_infinite'])} infinite ones."
        )
    out.append(
        f"* Known infinite balanced deals: {fmt(h['infinite_canonical'])} canonical "
        f"({fmt(h['infinite_total'])} counting colour swaps), at sizes k = "
        f"{h['sizes_list'] or 'none'}, in {fmt(h['cycles'])} cycle(s)."
    )
    out.append("")
    out += full_deck_section(con)
    out += audit_section(con)
    out += coverage_section(con)
    out.append("## By size")
    out.append("")
    st_cols, st_rows = query(con, STATUS_SQL)
    out.append(
        markdown_table(
            [
                "k",
                "list",
                "deals searched (exhaustive)",
                "deals sampled",
                "infinite (canonical)",
                "infinite (total)",
                "cycles",
                "found only via basins",
                "longest finite game (rounds)",
            ],
            st_rows,
        )
    )
    out.append("## Infinite deals")
    out.append("")
    by_k: dict[int, list] = {}
    for row in list_rows:
        by_k.setdefault(row[0], []).append(row)
    status = {r[0]: dict(zip(st_cols, r)) for r in st_rows}
    for k in sorted(by_k):
        s = status.get(k, {})
        rows = by_k[k]
        out.append(
            f"### k = {k}: {fmt(s.get('infinite_canonical'))} canonical, "
            f"{fmt(s.get('infinite_total'))} in all ({describe_list(s)})"
        )
        out.append("")
        out.append("```")
        out.append("# P1 P2  cycle  period  rounds-before-cycle  found-by")
        for _, p1, p2, cid, period, mu, found_by, _ in rows:
            out.append(f"{p1} {p2}  {cid}  {period}  {mu}  {found_by}")
        out.append("```")
        out.append("")
    none = [k for k in sorted(status) if k not in by_k]
    for kind in ("complete", "partial"):
        ks = [k for k in none if status[k]["list"] == kind]
        if ks:
            out.append(
                f"No infinite balanced deal is known for k = {', '.join(map(str, ks))} "
                + (
                    "(complete: every canonical deal was searched)."
                    if kind == "complete"
                    else "(" + "; ".join(f"k = {k}: {describe_list(status[k])}" for k in ks) + ")."
                )
            )
            out.append("")
    out.append("## Cycles")
    out.append("")
    out.append(
        "Cycle ids are the cycle's least state modulo colour swap, `LEADER/OTHER`; the period "
        "counts rounds of the labelled game; basin states count every state (any split of the "
        "cards) whose play leads into the cycle or its colour swap."
    )
    out.append("")
    out.append(markdown_table(cyc_cols, cyc_rows) if cyc_rows else "No cycles found.\n")
    out.append("## Summary by method")
    out.append("")
    sm_cols, sm_rows = query(con, SUMMARY_SQL)
    out.append(markdown_table(sm_cols, sm_rows))
    out.append("## Figures")
    out.append("")
    out.append("![Share of infinite deals by k](redblack_infinite_share.png)")
    out.append("")
    out.append("![Game length distribution by k](redblack_lengths.png)")
    out.append("")
    return "\n".join(out)


def small_pct(share: float) -> str:
    """A share as a percentage with two significant digits, without scientific notation."""
    if share <= 0:
        return "0 %"
    text = f"{100 * share:.2g}"
    if "e" in text:
        digits = max(0, -int(f"{100 * share:e}".split("e")[1]) + 1)
        text = f"{100 * share:.{digits}f}"
    return f"{text} %"


def full_deck_section(con, k: int = 26) -> list[str]:
    """What is known about infinite games with a full deck (k = 26): every known deal with its
    certificate, the exhaustive coverage, the sampling bound, and what finishing would cost."""
    out = [f"## The full deck (k = {k}, {2 * k} cards)", ""]
    cols, rows = query(con, FULL_DECK_SQL, [k])
    if rows:
        out.append(
            f"**{len(rows):,} infinite full-deck deals are known** ({2 * len(rows):,} counting colour swaps). "
            "Each certificate is exact: replaying the deal reaches the cycle `cycle_id` (its least state, "
            "`LEADER/OTHER`) after `rounds_before_cycle` rounds, and the cycle repeats every `period` rounds."
        )
        out.append("")
        out.append(markdown_table(["P1", "P2", "cycle_id", "period", "rounds before cycle", "how found"], rows))
    else:
        out.append("No infinite full-deck deal is known to this warehouse.")
        out.append("")
    c = one(con, "SELECT * FROM redblack_coverage WHERE k = ?", [k])
    if c:
        text = (
            f"Exhaustive search: {fmt(c['ranks_searched'])} of {fmt(c['canonical_deals'])} canonical deals "
            f"searched ({small_pct(c['share_searched'])}); ranks [0, {fmt(c['prefix_done'])}) without a gap, so "
            "every cycle whose smallest basin deal has a rank below that has been found; nothing more is claimed."
        )
        if c["core_hours_left"] is not None:
            hours = c["core_hours_left"]
            text += (
                f" With the owner rule the rest costs {c['rounds_per_deal']:.1f} rounds per deal (measured on the "
                f"{c['rounds_per_deal_from']}) at {1e9 * c['cpu_s_per_round']:.1f} ns of CPU per round (measured on "
                f"this size's timed shards): about {hours:,.0f} core-hours, {hours / CLUSTER_CORES:,.1f} hours on a "
                f"{CLUSTER_CORES:,}-core cluster through the SLURM profile (docs/scaling.md)."
            )
        out += [text, ""]
    _, samp = query(con, SAMPLE_BOUND_SQL, [k])
    for kk, n, hits in samp:
        up = wilson_upper(int(hits), int(n))
        out += [
            f"Sampling: {fmt(n)} seeded deals played, {fmt(hits)} infinite; 95 % upper bound on the share of "
            f"infinite deals {100 * up:.2g} % (sampling can bound the share, never prove there is none).",
            "",
        ]
    return out


def audit_section(con) -> list[str]:
    cols, rows = query(con, AUDIT_SQL)
    if not rows:
        return []
    return [
        "## The published record, audited",
        "",
        "Every listed deal replayed exactly; the basin of every cycle a listed deal reaches walked completely. "
        "An audit proves each listed deal infinite or finite and finds every infinite deal in those basins; "
        "it proves a list complete for a size only together with a complete exhaustive search of that size "
        "(`exhaustive_complete`).",
        "",
        markdown_table(
            [
                "list",
                "k",
                "listed",
                "confirmed infinite",
                "listed but finite",
                "missing",
                "cycles",
                "exhaustive search complete",
            ],
            rows,
        ),
    ]


def coverage_section(con) -> list[str]:
    cols, rows = query(con, COVERAGE_SQL)
    if not rows:
        return []
    return [
        "## Exhaustive coverage",
        "",
        "Canonical deals searched per size (overlapping shards counted once); `prefix_done`: ranks "
        "[0, prefix_done) searched without a gap; the cost of the rest: CPU per round from the owner-rule shards' "
        "timed logs, rounds per deal from uniformly drawn deals when an owner-rule sample exists.",
        "",
        markdown_table(
            [
                "k",
                "cards",
                "canonical deals",
                "searched",
                "share",
                "prefix done",
                "complete",
                "ns per round",
                "rounds per deal",
                "core-hours left",
            ],
            rows,
        ),
    ]


def describe_list(s: dict) -> str:
    """How complete one size's list is, in words (numbers from the status query)."""
    if s.get("list") == "complete":
        n = s["exhaustive_deals"]
        return (
            "complete: the 1 canonical deal searched" if n == 1 else f"complete: all {fmt(n)} canonical deals searched"
        )
    parts = []
    if s.get("exhaustive_deals"):
        parts.append(f"{plural(int(s['exhaustive_deals']), 'canonical deal')} searched")
    if s.get("sampled_deals"):
        parts.append(plural(int(s["sampled_deals"]), "seeded random deal"))
    parts.append("basins of the cycles found")
    return "partial: " + ", ".join(parts)


def wilson_upper(hits: int, n: int, z: float = 1.959963984540054) -> float:
    """Upper end of the 95 % Wilson interval of a share (hits of n)."""
    p = hits / n
    return (p + z * z / (2 * n) + z * ((p * (1 - p) + z * z / (4 * n)) / n) ** 0.5) / (1 + z * z / n)


def share_figure(con, path: Path) -> Path:
    """Infinite share by k on a log scale: exact points for exhaustive sizes (sizes with
    none marked at the bottom), and for sampled sizes the share with its 95 % upper bound."""
    plt = pyplot()
    _, rows = query(con, SHARE_SQL)
    fig, ax = plt.subplots(figsize=(8, 4))
    positive = [100 * share for _, _, _, _, share in rows if share]
    uppers = [100 * wilson_upper(int(inf), int(n)) for _, m, n, inf, _ in rows if m == "sample" and n]
    floor = min(positive + uppers + [1e-4]) / 10
    exact = [(k, share, inf) for k, m, _, inf, share in rows if m == "exhaustive"]
    if exact:
        found = [(k, 100 * sh, inf) for k, sh, inf in exact if inf]
        none = [k for k, _, inf in exact if not inf]
        ax.plot(
            [p[0] for p in found],
            [p[1] for p in found],
            "o",
            color="tab:blue",
            label="exhaustive: share of infinite deals (exact)",
        )
        for k, y, inf in found:
            ax.annotate(f"{inf:,}", (k, y), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
        ax.plot(none, [floor] * len(none), "x", color="tab:blue", label="exhaustive: none exist (exact)")
    for k, _, n, inf, share in rows:
        if _ != "sample" or not n:
            continue
        up = 100 * wilson_upper(int(inf), int(n))
        y = 100 * share if inf else floor
        ax.errorbar(
            [k],
            [y],
            yerr=[[0], [up - y]],
            fmt="s",
            color="tab:orange",
            capsize=4,
            label=f"sample: {int(inf):,} of {int(n):,} deals, 95 % upper bound"
            if inf == 0
            else f"sample: {int(inf):,} of {int(n):,} deals, 95 % interval",
        )
    ax.set_yscale("log")
    ax.set_xlabel("k (cards per player)")
    ax.set_ylabel("infinite deals (% of deals, log scale)")
    ax.set_title("RedBlack: share of infinite balanced deals")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return save_figure(fig, path)


LENGTH_CURVES = 4  # exhaustive sizes drawn in the distribution panel (every size is in the other panel)


def shown_series(series: dict[tuple, list]) -> list[tuple]:
    """The (method, k) curves a reader compares: up to LENGTH_CURVES exhaustive sizes spread from
    the smallest to the largest, plus every sampled size."""
    exhaustive = sorted(k for m, k in series if m == "exhaustive")
    if len(exhaustive) > LENGTH_CURVES:
        last = len(exhaustive) - 1
        picks = sorted({round(i * last / (LENGTH_CURVES - 1)) for i in range(LENGTH_CURVES)})
        exhaustive = [exhaustive[i] for i in picks]
    return [("exhaustive", k) for k in exhaustive] + sorted((m, k) for m, k in series if m != "exhaustive")


def lengths_figure(con, path: Path) -> Path:
    plt = pyplot()
    _, rows = query(con, LENGTHS_SQL)
    _, stats = query(con, LENGTH_STATS_SQL)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    series: dict[tuple, list] = {}
    for k, method, rounds, share in rows:
        series.setdefault((method, k), []).append((rounds, share))
    shown = shown_series(series)
    colours = plt.get_cmap("tab10").colors
    for i, (method, k) in enumerate(shown):
        pts = series[(method, k)]
        ax.plot(
            [p[0] for p in pts],
            [p[1] for p in pts],
            color=colours[i % len(colours)],
            lw=1.4,
            marker="o",  # a size with one game length (k = 1) is one point: still visible
            markersize=3,
            linestyle="-" if method == "exhaustive" else "--",
            label=f"k = {k} ({method})",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")  # the tail, where sizes differ, is readable
    ax.set_xlabel("rounds to finish (log scale)")
    ax.set_ylabel("share of finite deals (log scale)")
    ax.set_title("Game length distribution, a few k" if len(shown) < len(series) else "Game length distribution by k")
    if shown:
        ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    for method, marker in (("exhaustive", "o"), ("sample", "s")):
        pts = [(k, mean, mx) for k, m, mean, mx in stats if m == method]
        if pts:
            ax2.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, label=f"mean ({method})")
            ax2.plot(
                [p[0] for p in pts], [p[2] for p in pts], marker=marker, linestyle=":", label=f"longest ({method})"
            )
    ax2.set_yscale("log")
    ax2.set_xlabel("k (cards per player)")
    ax2.set_ylabel("rounds")
    ax2.set_title("Mean and longest finite game")
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=8)
    return save_figure(fig, path)


# ----------------------------------------------------------------------------- the one-page index

REDBLACK_SAMPLES_SQL = """
SELECT k, balanced, string_agg(DISTINCT experiment, ', ' ORDER BY experiment) AS experiments,
       sum(deals) AS deals, sum(infinite) AS infinite
FROM redblack_counts WHERE method = 'sample' AND algorithm = 'brute' GROUP BY k, balanced ORDER BY k, balanced DESC
"""


def answer(con: duckdb.DuckDBPyConnection) -> list[str]:
    h = one(con, HEADLINE_SQL)
    out = []
    if h.get("infinite_canonical"):
        text = (
            f"Infinite balanced RedBlack deals exist for k = {esc(h['sizes_list'])} cards per player: "
            f"<b>{h['infinite_canonical']:,}</b> canonical deals ({h['infinite_total']:,} counting "
            f"colour swaps), falling into {h['cycles']:,} cycle(s)."
        )
    else:
        text = "No infinite balanced RedBlack deal is known for the sizes searched."
    if h.get("complete_sizes"):
        text += (
            f" The lists are complete for k = {h['complete_from']}..{h['complete_to']} "
            f"(every one of their {h['complete_deals']:,} canonical deals searched exactly)."
        )
    out.append(text)
    out += full_deck_answer(con)
    out += audit_answer(con)
    _, samples = query(con, REDBLACK_SAMPLES_SQL)
    for k, balanced, exps, deals, infinite in samples:
        kind = "balanced" if balanced else "any-split"
        verdict = (
            f"<b>{infinite:,} infinite</b>"
            if infinite
            else "<b>none was infinite</b> (sampling can find one, not prove there is none)"
        )
        out.append(
            f"k = {k} ({2 * k} cards): {deals:,} seeded {kind} deals played (<code>{esc(exps)}</code>); {verdict}."
        )
    return out


def full_deck_answer(con: duckdb.DuckDBPyConnection, k: int = 26) -> list[str]:
    """The seed's question in one paragraph: known infinite full-deck deals, coverage, what is left."""
    _, deals = query(con, FULL_DECK_SQL, [k])
    if not deals:
        return []
    how = Counter(row[-1] for row in deals)
    text = (
        f"<b>The full deck (k = {k}): {len(deals):,} infinite deals are known</b> "
        f"({2 * len(deals):,} counting colour swaps; "
        + "; ".join(f"{n:,}: {esc(h)}" for h, n in sorted(how.items()))
        + "), each certified by an exact cycle."
    )
    cov = one(con, "SELECT * FROM redblack_coverage WHERE k = ?", [k])
    if cov:
        text += (
            f" Exhaustive search has covered {small_pct(cov['share_searched'])} of the "
            f"{cov['canonical_deals']:,} canonical deals"
        )
        if cov["core_hours_left"] is not None:
            text += (
                f"; finishing the proof needs about {cov['core_hours_left']:,.0f} core-hours at the measured rate "
                f"({cov['core_hours_left'] / CLUSTER_CORES:,.1f} hours on {CLUSTER_CORES:,} cores)"
            )
        text += "."
    return [text]


def audit_answer(con: duckdb.DuckDBPyConnection) -> list[str]:
    _, rows = query(con, AUDIT_SQL)
    out = []
    for exp in sorted({r[0] for r in rows}):
        mine = [r for r in rows if r[0] == exp]
        listed = sum(r[2] for r in mine)
        confirmed = sum(r[3] for r in mine)
        finite = sum(r[4] for r in mine)
        missing = [(r[1], r[5]) for r in mine if r[5]]
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


FOLD_ROWS = 30  # tables longer than this are folded into a <details> element


def infinite_deals_html(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every known infinite deal, one block per k marked complete or partial; long blocks folded."""
    _, rows = query(con, LIST_SQL)
    st_cols, st_rows = query(con, STATUS_SQL)
    status = {r[0]: dict(zip(st_cols, r)) for r in st_rows}
    by_k: dict[int, list] = {}
    for row in rows:
        by_k.setdefault(row[0], []).append(row)
    out = [
        '<h3 id="redblack-infinite-deals">Infinite deals by k</h3>',
        "<p>Each deal as <code>P1 P2</code>, top card first, 0 red, 1 black; only the canonical deal of "
        "each colour-swap pair is listed (player 1's first card red). <b>complete</b>: every canonical "
        "deal of that size was searched; <b>partial</b>: the deals met by sampling and in the cycles' basins.</p>",
    ]
    cols = ["P1", "P2", "cycle", "period", "rounds before cycle", "found by"]
    for k in sorted(by_k):
        s = status.get(k, {})
        deals = by_k[k]
        head = (
            f"k = {k}: {len(deals):,} canonical deal{'s' if len(deals) != 1 else ''} "
            f'({2 * len(deals):,} in all), <span class="list-{esc(s.get("list"))}">{esc(describe_list(s))}</span>'
        )
        table = html_table(cols, [r[1:7] for r in deals], {"P1": str, "P2": str})
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
    cols, rows = query(con, STATUS_SQL)
    out = ["<h3>By size k</h3>", html_table(cols, rows), *infinite_deals_html(con)]
    ccols, crows = query(con, CYCLES_SQL)
    if not crows:
        return out + ["<h3>Cycles</h3>", "<p>No cycles found.</p>"]
    table = html_table(ccols, crows)
    # a long list of cycles (large k) would bury the figures: fold it
    if len(crows) > FOLD_ROWS:
        table = f"<details><summary>All {len(crows):,} cycles</summary>{table}</details>"
    return out + ["<h3>Cycles</h3>", table]
