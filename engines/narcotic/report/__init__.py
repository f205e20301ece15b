"""Narcotic report: win probability and time to finish, from SQL over the warehouse.

Writes ``narcotic.md``, ``narcotic.csv``, ``narcotic_passes.png``, ``narcotic_rules.png`` and
``narcotic_decks.png`` (the names the engine declares).  The queries below return rows with named fields;
the functions after them only lay those fields out."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ...core.fmt import duration, fixed, pct, pct_pm, pct_range
from ...core.stats import wilson
from ...core.store import write_text
from ...report.common import markdown_table, one, pyplot, query, records, save_figure, write_csv
from ...report.html import esc, html_table
from .decks import COVERAGE_SQL, DECKS_PNG, DECKS_SQL, EXACT_SQL, decks_figure, decks_section

MD, CSV, PASSES_PNG, RULES_PNG = "narcotic.md", "narcotic.csv", "narcotic_passes.png", "narcotic_rules.png"

# ----------------------------------------------------------------------------- queries

SUMMARY_SQL = "SELECT * FROM narcotic_summary ORDER BY experiment, variant"

PRESETS_SQL = """
SELECT experiment, preset, games, wins, win_p, win_lo95, win_hi95, mean_time_s, median_time_s, p95_time_s,
       max_time_s, mean_passes, median_passes, p95_passes, max_passes, loop_share, mean_cycle_length
FROM narcotic_summary WHERE preset IS NOT NULL ORDER BY experiment, preset
"""

SEED_STYLE_SQL = """
SELECT experiment, variant, games,
       coalesce(total_won_time_s, 0) / games AS seed_average_s,
       round(coalesce(total_won_time_s, 0) / games / 3600) AS seed_hours,
       round(coalesce(total_won_time_s, 0) / games / 60) % 60 AS seed_minutes,
       100 - 100 * loop_share AS seed_percent,
       mean_time_s, win_p, win_lo95, win_hi95
FROM narcotic_summary WHERE preset IS NOT NULL
ORDER BY experiment, variant
"""

# the largest sample of each preset answers for it
ANSWER_SQL = """
SELECT preset, experiment, games, wins, win_p, win_lo95, win_hi95, mean_time_s, mean_passes
FROM narcotic_summary WHERE preset IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY preset ORDER BY games DESC, experiment) = 1
ORDER BY preset = 'seed' DESC, preset
"""

COMBOS_SQL = """
SELECT experiment, matching, gather, pile_four, games, win_p, win_lo95, win_hi95, mean_passes, mean_time_s
FROM narcotic_rule_combinations
"""

CAMPAIGN_SQL = """
SELECT experiment, variant, preset, shards, complete, games, wins, loops, win_p, win_lo95, win_hi95,
       mean_time_s, mean_time_lo95, mean_time_hi95, mean_passes, mean_cycle_length,
       seed_average_s, seed_hours, seed_minutes, seed_percent
FROM narcotic_campaign ORDER BY experiment, variant
"""

PASSES_SQL = """
SELECT p.experiment, s.preset, p.passes, p.games, s.games AS total
FROM narcotic_passes p JOIN narcotic_summary s USING (experiment, variant)
WHERE s.preset IS NOT NULL ORDER BY p.experiment, s.preset, p.passes
"""


def exp_label(experiment: str, preset: str | None, variant: str = "", word: str = "experiment") -> str:
    """``seed rules``; ``classic rules (experiment rules)`` when the names differ; the variant without a preset."""
    rules = f"{preset} rules" if preset else f"rules {variant}"
    return rules if experiment == preset else f"{rules} ({word} {experiment})"


def combination_cells(r: dict) -> tuple:
    """Cells of a rule combination after its experiment, for the Markdown and HTML tables."""
    return (
        r["matching"],
        r["gather"],
        r["pile_four"],
        r["games"],
        pct(r["win_p"]),
        pct_range(r["win_lo95"], r["win_hi95"]),
        fixed(r["mean_passes"]),
        duration(r["mean_time_s"]),
    )


# ----------------------------------------------------------------------------- narcotic.md

INTRO = (
    "Rules: see `engines/narcotic/rules.py`; `seed` = deal/top-right/keep (the seed's Ruby "
    "program, reproduced deck by deck), `classic` = cascade/top-right/keep. "
    "Win probability with a 95 % Wilson interval; times follow the seed's model "
    "(4 s per deal of four cards, 5 s per gather) and are over **won** games."
)

PRESET_COLUMNS = ("experiment", "preset", "games", "win %", "95 % CI", "mean time", "median time", "p95 time")
PRESET_COLUMNS += ("max time", "mean passes", "median passes", "max passes")

SEED_COLUMNS = ("experiment", "variant", "games", "seed: average time", "seed: % completed")
SEED_COLUMNS += ("honest: mean time of a won game", "honest: win % (95 % CI)")

CAMPAIGN_COLUMNS = ("campaign", "rules", "shards", "games", "win % (95 %)", "seed: average time")
CAMPAIGN_COLUMNS += ("seed: % completed", "honest: mean time of a won game (95 %)", "mean passes (won)")

COMBO_COLUMNS = ("experiment", "matching", "gather", "pile_four", "games", "win %", "95 % CI")
COMBO_COLUMNS += ("mean passes (won)", "mean time (won)")


def build(con: duckdb.DuckDBPyConnection, outdir: Path) -> list[Path]:
    outdir = Path(outdir)
    combos = records(con, COMBOS_SQL)
    files = [write_csv(outdir / CSV, *query(con, SUMMARY_SQL))]
    files.append(rules_figure(combos, outdir / RULES_PNG))
    files.append(passes_figure(con, outdir / PASSES_PNG))
    decks = records(con, DECKS_SQL)
    files.append(decks_figure(decks, outdir / DECKS_PNG))
    md = ["# Narcotic solitaire", ""]
    n_games = one(con, "SELECT count(*) AS n FROM narcotic_games")["n"]
    md += [f"Generated from `results/warehouse.duckdb` ({n_games:,} games). " + INTRO, ""]
    md += answer_section(records(con, PRESETS_SQL))
    md += seed_section(records(con, SEED_STYLE_SQL))
    md += campaign_section(records(con, CAMPAIGN_SQL))
    md += decks_section(decks, records(con, COVERAGE_SQL), records(con, EXACT_SQL))
    md += combinations_section(combos)
    md += [
        "## Passes to win",
        "",
        f"![passes to win, seed and classic rules]({PASSES_PNG})",
        "",
        f"Full table: `{CSV}` (every experiment and rule combination, all columns of the `narcotic_summary` view).",
        "",
    ]
    return [write_text(outdir / MD, "\n".join(md)), *files]


def answer_section(presets: list[dict]) -> list[str]:
    md = ["## The answer", ""]
    for d in presets:
        md.append(
            f"- **{exp_label(d['experiment'], d['preset'])}**: won {pct(d['win_p'])} of "
            f"{d['games']:,} games (95 % CI {pct_range(d['win_lo95'], d['win_hi95'])}); "
            f"a won game takes {duration(d['mean_time_s'])} on average (median "
            f"{duration(d['median_time_s'])}, 95th percentile {duration(d['p95_time_s'])}), "
            f"{d['mean_passes']:.1f} passes on average; a lost game enters a cycle of "
            f"{d['mean_cycle_length']:.2f} passes on average."
        )
    md.append("")
    rows = [
        (
            d["experiment"],
            d["preset"],
            d["games"],
            pct(d["win_p"]),
            pct_range(d["win_lo95"], d["win_hi95"]),
            duration(d["mean_time_s"]),
            duration(d["median_time_s"]),
            duration(d["p95_time_s"]),
            duration(d["max_time_s"]),
            f"{d['mean_passes']:.1f}",
            f"{d['median_passes']:.0f}",
            d["max_passes"],
        )
        for d in presets
    ]
    return md + [markdown_table(PRESET_COLUMNS, rows)]


def seed_section(seed_rows: list[dict]) -> list[str]:
    md = [
        "## The seed's figures beside the honest ones",
        "",
        "The seed prints `Average estimated completion time is H hours M minutes`, where the "
        "average divides the total time of **won** games by **all** trials (lost games count "
        "as zero seconds) and the hours are `round`ed rather than floored, so they can be one "
        "hour too many. The honest figure is the mean time of won games.",
        "",
    ]
    rows = [
        (
            r["experiment"],
            r["variant"],
            r["games"],
            f"{int(r['seed_hours'])} hours {int(r['seed_minutes'])} minutes",
            f"{r['seed_percent']:.2f} percent",
            duration(r["mean_time_s"]),
            f"{pct(r['win_p'])} ({pct_range(r['win_lo95'], r['win_hi95'])})",
        )
        for r in seed_rows
    ]
    return md + [markdown_table(SEED_COLUMNS, rows)]


def seed_printout(r: dict) -> str:
    """The two lines the seed's Ruby prints for these games (its format strings, its rounding)."""
    return (
        f"Average estimated completion time is {int(r['seed_hours'])} hours {int(r['seed_minutes'])} minutes\n"
        f"{r['seed_percent']:.2f} percent of decks can be completed"
    )


def mean_time_cell(r: dict) -> str:
    """``2 h 05 min 04 s (7,504.1 s; 7,503.9 – 7,504.3 s)``: the mean time of a won game and its interval."""
    return (
        f"{duration(r['mean_time_s'])} ({fixed(r['mean_time_s'])} s; "
        f"{fixed(r['mean_time_lo95'])} – {fixed(r['mean_time_hi95'])} s)"
    )


def campaign_section(rows: list[dict]) -> list[str]:
    md = [
        "## Kept campaigns: the full deck to four digits",
        "",
        "A campaign (config `narcotic.campaigns`) plays seeded games like an experiment but keeps "
        "each shard's sums, not its games (`narcotic_tallies`, kept in the repository under "
        "`results/narcotic/`); the win probability with its 95 % Wilson interval, the mean time of "
        "a won game with its 95 % interval, and what the seed's program prints for the same games.",
        "",
    ]
    if not rows:
        return md + ["No campaign in the warehouse.", ""]
    for r in rows:
        status = "complete" if r["complete"] else "incomplete: its shards leave a gap"
        md += [
            f"- **{exp_label(r['experiment'], r['preset'], r['variant'], 'campaign')}**: won "
            f"{pct_pm(r['win_p'], r['win_lo95'], r['win_hi95'])} of {r['games']:,} games "
            f"(95 % Wilson interval {pct_range(r['win_lo95'], r['win_hi95'])}; {r['shards']:,} shards, {status}); "
            f"a won game takes {mean_time_cell(r)} on average, {fixed(r['mean_passes'], 2)} passes; "
            f"a lost game enters a cycle of {fixed(r['mean_cycle_length'], 2)} passes on average. "
            "The seed's program, run on these games, prints:",
            "",
            "  ```",
            *("  " + line for line in seed_printout(r).splitlines()),
            "  ```",
            "",
        ]
    rows_md = [
        (
            r["experiment"],
            r["preset"] or r["variant"],
            r["shards"],
            r["games"],
            pct_pm(r["win_p"], r["win_lo95"], r["win_hi95"]),
            f"{int(r['seed_hours'])} hours {int(r['seed_minutes'])} minutes ({duration(r['seed_average_s'])})",
            f"{r['seed_percent']:.2f} percent",
            mean_time_cell(r),
            fixed(r["mean_passes"], 2),
        )
        for r in rows
    ]
    return md + [markdown_table(CAMPAIGN_COLUMNS, rows_md)]


def combinations_section(combos: list[dict]) -> list[str]:
    if not combos:
        return []
    return [
        "## All sixteen rule combinations",
        "",
        "Sorted by win probability. `matching`: deal (seed) or cascade; `gather`: the card "
        "dealt first after gathering; `pile_four`: keep (seed) or discard four equal cards "
        "on top of a pile.",
        "",
        markdown_table(COMBO_COLUMNS, [(r["experiment"], *combination_cells(r)) for r in combos]),
        f"![win probability of the sixteen rule combinations]({RULES_PNG})",
        "",
    ]


# ----------------------------------------------------------------------------- figures


def passes_figure(con: duckdb.DuckDBPyConnection, path: Path) -> Path:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    series: dict[str, tuple[list, list, int]] = {}
    for r in records(con, PASSES_SQL):
        xs, ys, _ = series.setdefault(exp_label(r["experiment"], r["preset"]), ([], [], r["total"]))
        xs.append(r["passes"])
        ys.append(r["games"])
    for label, (xs, counts, total) in series.items():
        ys = [c / total for c in counts]
        (line,) = ax.step(xs, ys, where="mid", label=f"{label}, {total:,} games")
        band = [wilson(c, total) for c in counts]  # 95 % interval of each bar's share
        ax.fill_between(
            xs,
            [lo for lo, _ in band],
            [hi for _, hi in band],
            step="mid",
            color=line.get_color(),
            alpha=0.25,
            linewidth=0,
        )
    ax.set_xlabel("passes through the deck until the game is won")
    ax.set_ylabel("share of all games (band: 95 % Wilson interval)")
    ax.set_title("Narcotic: passes to win")
    ax.legend()
    ax.grid(alpha=0.3)
    return save_figure(fig, path)


def rules_figure(combos: list[dict], path: Path) -> Path:
    plt = pyplot()
    if not combos:
        fig, ax = plt.subplots(figsize=(6, 1.5))
        ax.text(0.5, 0.5, "no experiment runs all sixteen rule combinations (rules: all)", ha="center", va="center")
        ax.axis("off")
        return save_figure(fig, path)
    rows = sorted((r for r in combos if r["experiment"] == combos[0]["experiment"]), key=lambda r: r["win_p"])
    fig, ax = plt.subplots(figsize=(8, 6))
    labels = [f"{r['matching']} / {r['gather']} / {r['pile_four']}" for r in rows]
    ps = [100 * r["win_p"] for r in rows]
    err = [[100 * (r["win_p"] - r["win_lo95"]) for r in rows], [100 * (r["win_hi95"] - r["win_p"]) for r in rows]]
    ax.barh(range(len(rows)), ps, xerr=err, color="tab:blue", ecolor="black", capsize=2)
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.set_xlabel("win probability (%) with 95 % Wilson interval")
    ax.set_title(
        f"Narcotic: all rule combinations ({rows[0]['experiment']}, {rows[0]['games']:,} games each)\n"
        "matching / gather / pile_four"
    )
    ax.grid(axis="x", alpha=0.3)
    return save_figure(fig, path)


# ----------------------------------------------------------------------------- the one-page index


def answer(con: duckdb.DuckDBPyConnection) -> list[str]:
    out = []
    for r in records(con, ANSWER_SQL):
        out.append(
            f"Narcotic ({esc(r['preset'])} rules) is won <b>{pct_pm(r['win_p'], r['win_lo95'], r['win_hi95'])}</b> "
            f"of the time (95 % interval; {r['games']:,} games, experiment <code>{esc(r['experiment'])}</code>); "
            f"a won game takes {duration(r['mean_time_s'])} on average by the seed's time model"
            + (f", {r['mean_passes']:.1f} passes through the deck." if r["mean_passes"] is not None else ".")
        )
    for r in records(con, CAMPAIGN_SQL):
        out.append(
            f"The kept campaign <code>{esc(r['experiment'])}</code> "
            f"({esc(exp_label(r['experiment'], r['preset'], r['variant'], 'campaign'))}, {r['games']:,} games) "
            f"is won <b>{pct_pm(r['win_p'], r['win_lo95'], r['win_hi95'])}</b> of the time (95 % interval); "
            f"a won game takes {fixed(r['mean_time_s'])} s on average, where the seed would print "
            f"{int(r['seed_hours'])} hours {int(r['seed_minutes'])} minutes (looping games counted as 0 s)."
        )
    combos = records(con, COMBOS_SQL)
    if combos:
        best, worst = combos[0], combos[-1]
        out.append(
            f"Of the sixteen rule combinations (matching / gather / pile_four), "
            f"{esc(rules_label(best))} is won most often ({pct(best['win_p'])}) and "
            f"{esc(rules_label(worst))} least often ({pct(worst['win_p'])}), "
            f"{best['games']:,} games each."
        )
    return out or ["No Narcotic games in the warehouse."]


def rules_label(r: dict) -> str:
    return " / ".join((r["matching"], r["gather"], r["pile_four"]))


INDEX_PRESET_COLUMNS = ("experiment", "preset", "games", "wins", "win %", "95 % interval", "mean time (won)")
INDEX_PRESET_COLUMNS += ("median time (won)", "mean passes (won)", "max passes")
INDEX_COMBO_COLUMNS = ("matching", "gather", "pile_four", "games", "win %", "95 % interval")
INDEX_COMBO_COLUMNS += ("mean passes (won)", "mean time (won)")


def tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    rows = [
        (
            r["experiment"],
            r["preset"],
            r["games"],
            r["wins"],
            pct(r["win_p"]),
            pct_range(r["win_lo95"], r["win_hi95"]),
            duration(r["mean_time_s"]),
            duration(r["median_time_s"]),
            fixed(r["mean_passes"]),
            r["max_passes"],
        )
        for r in records(con, PRESETS_SQL)
    ]
    out = ["<h3>Seed and classic rules</h3>", html_table(INDEX_PRESET_COLUMNS, rows)]
    combos = records(con, COMBOS_SQL)
    if combos:
        out += [
            f"<h3>All sixteen rule combinations (experiment <code>{esc(combos[0]['experiment'])}</code>)</h3>",
            html_table(INDEX_COMBO_COLUMNS, [combination_cells(r) for r in combos]),
        ]
    return out
