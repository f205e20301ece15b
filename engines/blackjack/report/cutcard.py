"""The report's cut-card part: its queries, its section of ``blackjack.md``, ``blackjack_cutcard.csv``
and ``blackjack_cutcard.png`` (bust probability by round number, simulated and exact)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ...report.common import markdown_table, pyplot, query, records, save_figure, write_csv
from .queries import deck_text

CUTCARD_CSV, CUTCARD_PNG = "blackjack_cutcard.csv", "blackjack_cutcard.png"
CUTCURVE_CSV, CUTCURVE_PNG = "blackjack_cutcurve.csv", "blackjack_cutcurve.png"
# rounds shown in the figure: those dealt in at least this many shoes (the tail is noise)
MIN_ROUNDS = 10000

CUTCARD_SUMMARY_SQL = f"""
SELECT s.experiment, {deck_text("s.decks")} AS decks, s.cut, printf('%.0f%%', 100 * s.penetration) AS penetration,
       s.players, s.soft17, s.shoes, printf('%.4f', s.dealt) AS rounds_per_shoe,
       printf('%.4f%% ± %.4f', 100 * s.probability, 196 * s.standard_error) AS bust,
       printf('%.4f%%', 100 * s.full_shoe) AS full_shoe,
       printf('%+.4f ± %.4f', 100 * s.effect, 196 * s.standard_error) AS effect,
       coalesce(printf('%+.5f', 100 * coalesce(e.effect, c.probability - c.full_shoe)), '') AS exact_effect,
       CASE WHEN coalesce(e.probability, c.probability) IS NULL THEN ''
            WHEN coalesce(e.probability, c.probability) BETWEEN s.lo95 AND s.hi95 THEN 'yes' ELSE 'no' END AS covers
FROM blackjack_cutcard_sim AS s
LEFT JOIN blackjack_cutcard AS e USING (experiment, decks, soft17, players, cut, round, outcome)
LEFT JOIN blackjack_cutcard_curve AS c
    ON c.decks = s.decks AND c.soft17 = s.soft17 AND c.players = s.players AND c.cut = s.cut
   AND c.round = 0 AND c.outcome = 'bust'
WHERE s.round = 0 AND s.outcome = 'bust'
ORDER BY s.decks, s.players, s.cut, s.experiment
"""

# the curve's cuts shown in the report's table (every cut is in the CSV and the figure)
CURVE_CUTS = (1, 5, 13, 20, 26, 33, 39, 43)

CUTCURVE_TABLE_SQL = f"""
SELECT cut, printf('%.0f%%', 100 * penetration) AS penetration, players, soft17, printf('%.4f', dealt) AS rounds,
       printf('%.5f%%', 100 * probability) AS bust, printf('%+.5f', 100 * (probability - full_shoe)) AS effect
FROM blackjack_cutcard_curve
WHERE round = 0 AND outcome = 'bust' AND decks = 1 AND cut IN {CURVE_CUTS}
ORDER BY players, soft17 DESC, cut
"""

CUTCURVE_CSV_SQL = f"""
SELECT experiment, {deck_text("c.decks")} AS decks, soft17, players, cut, penetration, round, outcome, dealt,
       probability, full_shoe, probability - full_shoe AS effect, relative_error
FROM blackjack_cutcard_curve AS c ORDER BY c.decks, players, soft17, cut, round, outcome_order
"""

CUTCURVE_FIGURE_SQL = """
SELECT players, soft17, cut, round, dealt, 100 * probability AS bust, 100 * full_shoe AS full_shoe
FROM blackjack_cutcard_curve WHERE outcome = 'bust' AND decks = 1 ORDER BY players, soft17, cut, round
"""

CUTCURVE_ANSWER_SQL = """
SELECT players, soft17, 100 * probability AS bust, 100 * (probability - full_shoe) AS effect,
       100 * min(probability - full_shoe) OVER (PARTITION BY players, soft17) AS least,
       arg_min(cut, probability - full_shoe) OVER (PARTITION BY players, soft17) AS least_at
FROM blackjack_cutcard_curve WHERE decks = 1 AND round = 0 AND outcome = 'bust'
QUALIFY cut = 39 ORDER BY players, soft17 DESC
"""

CUTCARD_ROUNDS_SQL = """
SELECT experiment, round, printf('%.6f', exact_dealt) AS exact_dealt, printf('%.6f', simulated_dealt) AS sim_dealt,
       printf('%.4f%%', 100 * exact) AS exact_bust,
       printf('%.4f%% ± %.4f', 100 * simulated, 196 * standard_error) AS sim_bust,
       CASE WHEN covered THEN 'yes' ELSE 'no' END AS covers
FROM blackjack_cutcard_compare WHERE outcome = 'bust'
ORDER BY experiment, round
"""

CUTCARD_COVERAGE_SQL = """
SELECT experiment, count(*) AS cells, count(*) FILTER (WHERE covered) AS covered,
       printf('%.1f', 0.95 * count(*)) AS expected
FROM blackjack_cutcard_compare GROUP BY experiment ORDER BY experiment
"""

CUTCARD_CSV_SQL = f"""
SELECT s.experiment, {deck_text("s.decks")} AS decks, s.soft17, s.players, s.cut, s.penetration, s.round, s.outcome,
       s.shoes, s.rounds, s.dealt, s.probability AS simulated, s.standard_error, s.lo95, s.hi95, e.dealt AS exact_dealt,
       e.probability AS exact, e.exact AS exact_fraction, s.full_shoe, s.effect AS simulated_effect,
       e.effect AS exact_effect
FROM blackjack_cutcard_sim AS s
LEFT JOIN blackjack_cutcard AS e USING (experiment, decks, soft17, players, cut, round, outcome)
ORDER BY s.decks, s.players, s.cut, s.experiment, s.round, s.outcome_order
"""

CUTCARD_FIGURE_SQL = f"""
SELECT s.experiment, {deck_text("s.decks")} AS decks, s.cut, s.players, s.penetration, s.round,
       100 * s.probability AS bust, 196 * s.standard_error AS half_width, 100 * e.probability AS exact,
       100 * s.full_shoe AS full_shoe
FROM blackjack_cutcard_sim AS s
LEFT JOIN blackjack_cutcard AS e USING (experiment, decks, soft17, players, cut, round, outcome)
WHERE s.outcome = 'bust' AND s.soft17 = 'stand' AND s.round > 0 AND s.rounds >= {MIN_ROUNDS}
ORDER BY s.decks, s.players, s.cut, s.experiment, s.round
"""

CUTCARD_ANSWER_SQL = """
SELECT count(*) AS settings, min(decks)::INTEGER AS min_decks, max(decks)::INTEGER AS max_decks,
       max(abs(effect)) * 100 AS largest, max(abs(effect) / standard_error) AS largest_z,
       (SELECT 100 * any_value(effect ORDER BY cut) FROM blackjack_cutcard WHERE round = 0 AND outcome = 'bust') AS exact,
       (SELECT any_value(experiment ORDER BY cut) FROM blackjack_cutcard WHERE round = 0 AND outcome = 'bust') AS exact_at,
       (SELECT count(*) FILTER (WHERE covered) FROM blackjack_cutcard_compare) AS covered,
       (SELECT count(*) FROM blackjack_cutcard_compare) AS cells
FROM blackjack_cutcard_sim WHERE round = 0 AND outcome = 'bust' AND standard_error > 0
"""

CUT_QUERIES = {name.removesuffix("_SQL").lower(): sql for name, sql in list(globals().items()) if name.endswith("_SQL")}

SECTION_TEXT = (
    "A shoe is dealt round after round until the cut card comes out, then reshuffled. Each round deals "
    "a fixed number of cards to the players (who stand), then the dealer's hand; the upcard is whatever "
    "the shoe deals (`engines/blackjack/cutcard.py`). Which rounds get dealt depends on the cards the "
    "earlier rounds used, so the dealer's outcome *per round dealt* is not the full-shoe law. "
    "Round 1 is always the full-shoe law. Simulated: seeded shoes, 95 % intervals (per round number "
    "binomial; per round dealt, the delta method over shoes). Exact: dynamic programming over the "
    "shoe's composition (one deck, shallow cuts). Every row in `{csv}`."
)


def cutcard_section(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The section of ``blackjack.md``: the bust probability per round dealt beside the full shoe, and
    exact against simulated by round number where the exact law exists."""
    md = ["## The cut-card effect on the dealer", ""]
    cols, rows = query(con, CUTCARD_SUMMARY_SQL)
    if not rows:
        return md + ["No cut-card experiments in the warehouse.", ""]
    md += [SECTION_TEXT.format(csv=CUTCARD_CSV), "", "**Dealer busts per round dealt (95 % intervals)**", ""]
    labels = ["experiment", "decks", "cut (cards)", "penetration", "player cards", "soft 17", "shoes"]
    labels += ["rounds per shoe", "bust per round", "full shoe", "effect (points)", "exact effect", "covers"]
    md += [markdown_table(labels, rows), f"![bust probability by round number]({CUTCARD_PNG})", ""]
    cols, rows = query(con, CUTCARD_ROUNDS_SQL)
    if rows:
        md += ["**Exact against simulated, by round number (bust)**", ""]
        labels = ["experiment", "round", "P(dealt) exact", "simulated", "bust exact", "simulated (95 %)", "covers"]
        md += [markdown_table(labels, rows)]
        for c in records(con, CUTCARD_COVERAGE_SQL):
            md.append(
                f"- {c['experiment']}: {c['covered']} of {c['cells']} simulated 95 % intervals (every outcome, "
                f"every round number, per round dealt) cover the exact value; {c['expected']} expected."
            )
        md.append("")
    return md + cutcurve_section(con)


def cutcurve_section(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The curve: one deck's cut card at every depth, exactly (the forward pass over compositions)."""
    cols, rows = query(con, CUTCURVE_TABLE_SQL)
    if not rows:
        return []
    md = [
        "### The cut card at every depth of one deck, exactly",
        "",
        "A round starts from a composition of the shoe only if every earlier round started with fewer cards "
        "dealt than the cut, so one forward pass over the deck's 33,203,125 compositions, ordered by cards "
        "dealt, gives the dealer's law per round dealt for every cut at once, and per round number "
        "(`engines/blackjack/cutcard_curve.py`, config `blackjack.cutcurve`, float64: relative error below "
        "7e-9 by a first-order bound, about 1e-13 against the exact fractions where those reach). Cuts "
        "deeper than 43 cards (39 with 4 player cards) are outside the model: a round started there may "
        f"run out of cards. Every cut and round in `{CUTCURVE_CSV}`; the same figures on the command line: "
        "`cardlab blackjack cutcard --decks 1 --cut 39 --exact`.",
        "",
    ]
    labels = ["cut (cards)", "penetration", "player cards", "soft 17", "rounds per shoe", "bust per round"]
    md += [markdown_table(labels + ["effect (points)"], rows), f"![bust against the cut]({CUTCURVE_PNG})", ""]
    return md


def cutcurve_answer(con: duckdb.DuckDBPyConnection) -> str:
    """The exact sentence at a 75 % cut of one deck (cut 39)."""
    rows = records(con, CUTCURVE_ANSWER_SQL)
    if not rows:
        return ""
    parts = [
        f"{r['bust']:.4f} % ({r['effect']:+.4f} points; {player_words(r['players'])}, {r['soft17']} soft 17)"
        for r in rows
    ]
    least = min(rows, key=lambda r: r["least"])
    return (
        " Exactly, one deck cut at 75 % (39 cards): the dealer busts per round dealt "
        + "; ".join(parts)
        + f"; the largest effect at any cut is {least['least']:+.4f} points (cut {least['least_at']}, "
        f"{player_words(least['players'])}, {least['soft17']} soft 17)."
    )


def player_words(players: int) -> str:
    return "dealer only" if players == 0 else f"{players} player card{'s' if players > 1 else ''} a round"


def cutcard_answer(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The index's sentence on the cut card: the largest simulated effect on the bust per round dealt,
    and the exact one with the simulation's coverage where the exact law exists."""
    rows = records(con, CUTCARD_ANSWER_SQL)
    d = rows[0] if rows else {}
    if not d.get("settings"):
        return []
    text = (
        f"Under a cut card ({d['settings']} simulated settings, {d['min_decks']}–{d['max_decks']} decks), "
        f"the dealer busts per round dealt within {d['largest']:.4f} percentage points of the full shoe "
        f"(largest |effect| = {d['largest_z']:.1f} standard errors)."
    )
    if d["exact"] is not None:
        text += (
            f" Exactly ({d['exact_at']}): {d['exact']:+.5f} points; the simulations' 95 % intervals cover "
            f"the exact values in {d['covered']} of {d['cells']} cells."
        )
    return [text + cutcurve_answer(con)]


def write_cutcard(con: duckdb.DuckDBPyConnection, outdir: Path) -> list[Path]:
    """``blackjack_cutcard.csv`` and ``blackjack_cutcard.png``."""
    outdir = Path(outdir)
    return [
        write_csv(outdir / CUTCARD_CSV, *query(con, CUTCARD_CSV_SQL)),
        bust_by_round(con, outdir / CUTCARD_PNG),
        write_csv(outdir / CUTCURVE_CSV, *query(con, CUTCURVE_CSV_SQL)),
        bust_by_cut(con, outdir / CUTCURVE_PNG),
    ]


def bust_by_round(con: duckdb.DuckDBPyConnection, path: Path) -> Path:
    """P(bust) by round number within the shoe: one line per simulation (95 % bars), the exact law as
    open circles, the full shoe's law dashed; rounds dealt in fewer than MIN_ROUNDS shoes left out."""
    plt = pyplot()
    _, rows = query(con, CUTCARD_FIGURE_SQL)
    lines: dict[tuple, list] = {}
    for exp, decks, cut, players, pen, rnd, bust, half, exact, full in rows:
        lines.setdefault((exp, decks, cut, players, pen, full), []).append((rnd, bust, half, exact))
    fig, ax = plt.subplots(figsize=(9, 4.6))
    for (exp, decks, cut, players, pen, full), pts in lines.items():
        label = f"{decks} deck{'s' if decks != '1' else ''}, cut {cut} ({100 * pen:.0f} %), {players} player cards"
        bar = ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=[p[2] for p in pts], lw=1, ms=3, marker="o")
        bar.lines[0].set_label(label)
        exact = [(p[0], p[3]) for p in pts if p[3] is not None]
        if exact:
            ax.plot(*zip(*exact), ls="none", marker="o", ms=8, mfc="none", color="black")
    for full in sorted({k[5] for k in lines}):
        ax.axhline(full, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("round number within the shoe")
    ax.set_ylabel("P(dealer busts), %")
    ax.grid(alpha=0.3)
    if lines:
        ax.legend(fontsize=7)
    ax.set_title("Dealer bust by round number under a cut card (stand on soft 17; circles: exact; dashed: full shoe)")
    return save_figure(fig, path)


def bust_by_cut(con: duckdb.DuckDBPyConnection, path: Path) -> Path:
    """Left: the bust probability per round dealt against the cut, one line per setting, the full shoe
    dashed. Right: per round number at cut 39 (where the curve has round numbers)."""
    plt = pyplot()
    _, rows = query(con, CUTCURVE_FIGURE_SQL)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4))
    curves: dict[tuple, list] = {}
    rounds: dict[tuple, list] = {}
    fulls = set()
    for players, soft17, cut, rnd, dealt, bust, full in rows:
        fulls.add((soft17, full))
        if rnd == 0:
            curves.setdefault((players, soft17), []).append((cut, bust - full))
        elif cut == 39 and dealt > 1e-6:
            rounds.setdefault((players, soft17), []).append((rnd, bust))
    for (players, soft17), pts in curves.items():
        who = player_words(players)
        left.plot(*zip(*pts), marker=".", ms=3, lw=1, label=f"{who}, {soft17} soft 17")
    for (players, soft17), pts in rounds.items():
        right.plot(*zip(*pts), marker="o", ms=3, lw=1, label=f"cut 39, {soft17} soft 17")
    left.axhline(0, color="grey", lw=0.8, ls="--")
    for soft17, full in sorted(fulls):
        right.axhline(full, color="grey", lw=0.8, ls="--")
    left.set_xlabel("cut (cards dealt before the reshuffle), one deck")
    left.set_ylabel("P(dealer busts) per round dealt − the full shoe's (points)")
    right.set_xlabel("round number within the shoe (rounds dealt in at least 1 shoe in 10^6)")
    right.set_ylabel("P(dealer busts) in that round, %")
    for ax in (left, right):
        ax.grid(alpha=0.3)
        if curves:
            ax.legend(fontsize=7)
    fig.suptitle("The cut card at every depth of one deck, exactly (dashed: the full shoe)")
    fig.tight_layout()
    return save_figure(fig, path)
