"""The small-deck part of the Narcotic report's Markdown: exact answers beside simulations and the
batch coverage check, laid out from the rows of :mod:`.queries` (its figure is in :mod:`.figures`)."""

from __future__ import annotations

from ...core.fmt import MISSING, duration, fixed, pct, pct_pm, pct_range
from ...report.common import markdown_table
from .figures import DECKS_PNG

DECK_COLUMNS = ("r", "cards", "sequences", "exact win probability", "exact mean time of a won game")
DECK_COLUMNS += ("simulated (games)", "simulated win % (95 % CI)", "covers", "simulated mean time (95 %)", "covers")

TREND_COLUMNS = ("r", "cards", "win %", "mean time of a won game", "from")

EXACT_COLUMNS = ("r", "rules", "sequences", "win probability", "win %", "mean time of a won game", "mean passes")
EXACT_COLUMNS += ("coverage",)

COVERAGE_COLUMNS = ("r", "simulation", "batches", "games a batch", "intervals covering the exact value", "share (95 %)")


def fraction_cell(fraction: str | None, decimal: float | None, digits: int = 6) -> str:
    """``17268/34650 = 0.498355``: an exact value as its reduced fraction and as a decimal."""
    if fraction is None:
        return MISSING
    return fraction if "/" not in fraction or fraction.endswith("/1") else f"{fraction} = {decimal:.{digits}f}"


def exact_time_cell(fraction: str | None, decimal: float | None) -> str:
    """``1405524/17268 s = 81.39 s (1 min 21 s)``."""
    if fraction is None:
        return MISSING
    return f"{fraction} s = {fixed(decimal, 2)} s ({duration(decimal)})"


def covers(flag: bool | None) -> str:
    return MISSING if flag is None else ("yes" if flag else "**no**")


def sim_time_cell(d: dict) -> str:
    if d["games"] is None:
        return MISSING
    return f"{fixed(d['sim_mean_time_s'], 2)} s ({fixed(d['mean_time_lo95'], 2)} – {fixed(d['mean_time_hi95'], 2)})"


def decks_section(decks: list[dict], coverage: list[dict], exact: list[dict]) -> list[str]:
    md = [
        "## Smaller decks, exactly",
        "",
        "A deck of r values, four cards each (config `ranks:`; 13 is the full deck). Suits never matter, so a "
        "deal is a sequence of values with each value four times: (4r)! / (4!)^r distinct sequences, all equally "
        "likely. Exhaustive shards (config `narcotic.exhaustive`) play every one of them, so the win probability "
        "and the mean time of a won game are exact fractions; beside them, a seeded simulation of the same deck "
        "with its 95 % intervals (Wilson for the probability, normal for the mean time), and whether they cover "
        "the exact value. Seed rules:",
        "",
    ]
    if not decks:
        return md + ["No exhaustive shard or small-deck simulation in the warehouse.", ""]
    rows = [
        (
            d["ranks"],
            4 * d["ranks"],
            MISSING if d["sequences"] is None else d["sequences"],
            fraction_cell(d["win_fraction"], d["exact_win_p"]),
            exact_time_cell(d["mean_time_fraction"], d["exact_mean_time_s"]),
            MISSING if d["games"] is None else f"{d['games']:,} ({d['experiment']})",
            MISSING if d["games"] is None else f"{pct(d['sim_win_p'])} ({pct_range(d['win_lo95'], d['win_hi95'])})",
            covers(d["win_covered"]),
            sim_time_cell(d),
            covers(d["time_covered"]),
        )
        for d in decks
        if d["sequences"] is not None
    ]
    md += [markdown_table(DECK_COLUMNS, rows)]
    md += coverage_part(coverage)
    md += [
        "The trend in r (seed rules): exact where every sequence was played, simulated (95 % Wilson "
        "interval) elsewhere.",
        "",
        markdown_table(TREND_COLUMNS, [trend_cells(d) for d in decks]),
        f"![win probability and mean time by deck size]({DECKS_PNG})",
        "",
    ]
    return md + exact_part(exact)


def coverage_part(coverage: list[dict]) -> list[str]:
    """The batch check: how many batches' intervals cover the exact win probability."""
    md: list[str] = []
    if coverage:
        md += [
            "Does a simulation's interval cover the exact value as often as it promises? Each simulation of a "
            "deck with an exact answer, cut into batches of consecutive games: about 95 % of the batches' 95 % "
            "Wilson intervals should cover the exact win probability.",
            "",
            markdown_table(
                COVERAGE_COLUMNS,
                [
                    (
                        c["ranks"],
                        c["experiment"],
                        c["batches"],
                        c["batch_games"],
                        f"{c['covered']} of {c['batches']}",
                        f"{pct(c['covered_share'])} ({pct_range(c['covered_lo95'], c['covered_hi95'])})",
                    )
                    for c in coverage
                ],
            ),
        ]
    return md


def exact_part(exact: list[dict]) -> list[str]:
    """Every exhaustive enumeration in the warehouse, each rule combination and deck size."""
    md: list[str] = []
    if exact:
        md += [
            "Every exhaustive enumeration in the warehouse (each rule combination and deck size):",
            "",
            markdown_table(
                EXACT_COLUMNS,
                [
                    (
                        e["ranks"],
                        e["preset"] or e["variant"],
                        e["sequences"],
                        fraction_cell(e["win_fraction"], e["win_p"]),
                        pct(e["win_p"]),
                        MISSING if e["mean_time_s"] is None else f"{fixed(e['mean_time_s'], 2)} s",
                        fixed(e["mean_passes"], 2),
                        "complete" if e["complete"] else pct(e["coverage"]),
                    )
                    for e in exact
                ],
            ),
        ]
        md += [
            "",
            "To recompute any of them: `cardlab verify --recompute PATH` (a shard file, compared byte for byte); "
            "a canonical campaign (r = 5: `cardlab campaign narcotic 5`) runs or resumes with `--run N`, and "
            "the plain and canonical enumerations of a deck size agree on every count where both are complete "
            "(view `narcotic_exact_agreement`).",
            "",
        ]
    return md


def trend_cells(d: dict) -> tuple:
    """One deck size of the trend: the exact answer where there is one, else the simulated one."""
    if d["sequences"] is not None:
        return (d["ranks"], 4 * d["ranks"], pct(d["exact_win_p"]), duration(d["exact_mean_time_s"]), "exact")
    return (
        d["ranks"],
        4 * d["ranks"],
        pct_pm(d["sim_win_p"], d["win_lo95"], d["win_hi95"]),
        duration(d["sim_mean_time_s"]),
        f"simulated, {d['games']:,} games",
    )
