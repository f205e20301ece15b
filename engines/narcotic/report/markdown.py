"""``narcotic.md`` and ``narcotic.csv``: the Narcotic report as text, laid out from the rows of :mod:`.queries`."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ...core.fmt import duration, fixed, pct, pct_pm, pct_range
from ...core.layout import WAREHOUSE
from ...core.store import write_text
from ...report.common import markdown_table, one, query, records, write_csv
from . import queries as q
from .claims import claims_section
from .decks import decks_section
from .figures import PASSES_PNG, RULES_PNG
from .labels import combination_cells, exp_label

MD, CSV = "narcotic.md", "narcotic.csv"

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


def write_markdown(con: duckdb.DuckDBPyConnection, outdir: Path) -> list[Path]:
    """``narcotic.md`` and ``narcotic.csv``."""
    outdir = Path(outdir)
    csv = write_csv(outdir / CSV, *query(con, q.SUMMARY_SQL))
    md = ["# Narcotic solitaire", ""]
    n_games = one(con, q.GAMES_SQL)["n"]
    md += [f"Generated from `{WAREHOUSE}` ({n_games:,} games). " + INTRO, ""]
    md += answer_section(records(con, q.PRESETS_SQL))
    md += seed_section(records(con, q.SEED_STYLE_SQL))
    md += campaign_section(records(con, q.CAMPAIGN_SQL))
    md += claims_section(records(con, q.CLAIMS_SQL))
    md += decks_section(records(con, q.DECKS_SQL), records(con, q.COVERAGE_SQL), records(con, q.EXACT_SQL))
    md += combinations_section(records(con, q.COMBOS_SQL))
    md += [
        "## Passes to win",
        "",
        f"![passes to win, seed and classic rules]({PASSES_PNG})",
        "",
        f"Full table: `{CSV}` (every experiment and rule combination, all columns of the `narcotic_summary` view).",
        "",
    ]
    return [write_text(outdir / MD, "\n".join(md)), csv]


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
