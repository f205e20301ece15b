"""Narcotic report: win probability and time to finish, from SQL over the warehouse."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ..core.fmt import duration
from ..core.store import write_text
from ..report.common import markdown_table, pct, pyplot, query, save_figure, write_csv
from ..report.html import esc, html_table, pct_pm


def combination_cells(r: tuple) -> tuple:
    """Cells of a NARCOTIC_COMBOS_SQL row after its experiment, for the Markdown and HTML tables."""
    mean_passes = "–" if r[8] is None else f"{r[8]:.1f}"
    return (r[1], r[2], r[3], r[4], pct(r[5]), f"{pct(r[6])} – {pct(r[7])}", mean_passes, duration(r[9]))


def exp_label(experiment: str, preset: str) -> str:
    """``seed rules``; ``classic rules (experiment rules)`` when the names differ."""
    return f"{preset} rules" if experiment == preset else f"{preset} rules (experiment {experiment})"


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


def build(con, outdir: Path) -> list[Path]:
    outdir = Path(outdir)
    cols, rows = query(con, "SELECT * FROM narcotic_summary ORDER BY experiment, variant")
    files = [write_csv(outdir / "narcotic.csv", cols, rows)]
    n_games = query(con, "SELECT count(*) FROM narcotic_games")[1][0][0]

    md = [
        "# Narcotic solitaire",
        "",
        f"Generated from `results/warehouse.duckdb` ({n_games:,} games). "
        "Rules: see `engines/narcotic/rules.py`; `seed` = deal/top-right/keep (the seed's Ruby "
        "program, reproduced deck by deck), `classic` = cascade/top-right/keep. "
        "Win probability with a 95 % Wilson interval; times follow the seed's model "
        "(4 s per deal of four cards, 5 s per gather) and are over **won** games.",
        "",
    ]

    preset_cols = [
        "experiment",
        "preset",
        "games",
        "wins",
        "win_p",
        "win_lo95",
        "win_hi95",
        "mean_time_s",
        "median_time_s",
        "p95_time_s",
        "max_time_s",
        "mean_passes",
        "median_passes",
        "p95_passes",
        "max_passes",
        "loop_share",
        "mean_cycle_length",
    ]
    _, prow = query(
        con,
        f"SELECT {', '.join(preset_cols)} FROM narcotic_summary WHERE preset IS NOT NULL ORDER BY experiment, preset",
    )
    md += ["## The answer", ""]
    for r in prow:
        d = dict(zip(preset_cols, r))
        md.append(
            f"- **{exp_label(d['experiment'], d['preset'])}**: won {pct(d['win_p'])} of "
            f"{d['games']:,} games (95 % CI {pct(d['win_lo95'])} – {pct(d['win_hi95'])}); "
            f"a won game takes {duration(d['mean_time_s'])} on average (median "
            f"{duration(d['median_time_s'])}, 95th percentile {duration(d['p95_time_s'])}), "
            f"{d['mean_passes']:.1f} passes on average; a lost game enters a cycle of "
            f"{d['mean_cycle_length']:.2f} passes on average."
        )
    md.append("")
    md.append(
        markdown_table(
            [
                "experiment",
                "preset",
                "games",
                "win %",
                "95 % CI",
                "mean time",
                "median time",
                "p95 time",
                "max time",
                "mean passes",
                "median passes",
                "max passes",
            ],
            [
                (
                    d[0],
                    d[1],
                    d[2],
                    pct(d[4]),
                    f"{pct(d[5])} – {pct(d[6])}",
                    duration(d[7]),
                    duration(d[8]),
                    duration(d[9]),
                    duration(d[10]),
                    f"{d[11]:.1f}",
                    f"{d[12]:.0f}",
                    d[14],
                )
                for d in prow
            ],
        )
    )

    md += [
        "## The seed's figures beside the honest ones",
        "",
        "The seed prints `Average estimated completion time is H hours M minutes`, where the "
        "average divides the total time of **won** games by **all** trials (lost games count "
        "as zero seconds) and the hours are `round`ed rather than floored, so they can be one "
        "hour too many. The honest figure is the mean time of won games.",
        "",
    ]
    scols, srows = query(con, SEED_STYLE_SQL)
    md.append(
        markdown_table(
            [
                "experiment",
                "variant",
                "games",
                "seed: average time",
                "seed: % completed",
                "honest: mean time of a won game",
                "honest: win % (95 % CI)",
            ],
            [
                (
                    r[0],
                    r[1],
                    r[2],
                    f"{int(r[4])} hours {int(r[5])} minutes",
                    f"{r[6]:.2f} percent",
                    duration(r[7]),
                    f"{pct(r[8])} ({pct(r[9])} – {pct(r[10])})",
                )
                for r in srows
            ],
        )
    )

    _, allrows = query(con, NARCOTIC_COMBOS_SQL)
    if allrows:
        md += [
            "## All sixteen rule combinations",
            "",
            "Sorted by win probability. `matching`: deal (seed) or cascade; `gather`: the card "
            "dealt first after gathering; `pile_four`: keep (seed) or discard four equal cards "
            "on top of a pile.",
            "",
        ]
        md.append(
            markdown_table(
                [
                    "experiment",
                    "matching",
                    "gather",
                    "pile_four",
                    "games",
                    "win %",
                    "95 % CI",
                    "mean passes (won)",
                    "mean time (won)",
                ],
                [(r[0], *combination_cells(r)) for r in allrows],
            )
        )
        md += ["![win probability of the sixteen rule combinations](narcotic_rules.png)", ""]
    files.append(_rules_figure(allrows, outdir / "narcotic_rules.png"))

    files.append(_passes_figure(con, outdir / "narcotic_passes.png"))
    md += [
        "## Passes to win",
        "",
        "![passes to win, seed and classic rules](narcotic_passes.png)",
        "",
        "Full table: `narcotic.csv` (every experiment and rule combination, all columns of the "
        "`narcotic_summary` view).",
        "",
    ]
    files.insert(0, write_text(outdir / "narcotic.md", "\n".join(md)))
    return files


def _passes_figure(con, path: Path) -> Path:
    plt = pyplot()
    _, rows = query(
        con,
        """
        SELECT p.experiment, s.preset, p.passes, p.games, s.games AS total
        FROM narcotic_passes p JOIN narcotic_summary s USING (experiment, variant)
        WHERE s.preset IS NOT NULL ORDER BY p.experiment, s.preset, p.passes""",
    )
    fig, ax = plt.subplots(figsize=(8, 4.5))
    series: dict[str, tuple[list, list, int]] = {}
    for exp, preset, passes, games, total in rows:
        xs, ys, _ = series.setdefault(exp_label(exp, preset), ([], [], total))
        xs.append(passes)
        ys.append(games / total)
    for label, (xs, ys, total) in series.items():
        (line,) = ax.step(xs, ys, where="mid", label=f"{label}, {total:,} games")
        # 95 % band of each bar's share (binomial standard error)
        half = [1.96 * (y * (1 - y) / total) ** 0.5 for y in ys]
        ax.fill_between(
            xs,
            [y - h for y, h in zip(ys, half)],
            [y + h for y, h in zip(ys, half)],
            step="mid",
            color=line.get_color(),
            alpha=0.25,
            linewidth=0,
        )
    ax.set_xlabel("passes through the deck until the game is won")
    ax.set_ylabel("share of all games (band: 95 % interval)")
    ax.set_title("Narcotic: passes to win")
    ax.legend()
    ax.grid(alpha=0.3)
    return save_figure(fig, path)


def _rules_figure(rows, path: Path) -> Path:
    plt = pyplot()
    if not rows:
        fig, ax = plt.subplots(figsize=(6, 1.5))
        ax.text(0.5, 0.5, "no experiment runs all sixteen rule combinations (rules: all)", ha="center", va="center")
        ax.axis("off")
        return save_figure(fig, path)
    rows = [r for r in rows if r[0] == rows[0][0]]
    rows = sorted(rows, key=lambda r: r[5])
    fig, ax = plt.subplots(figsize=(8, 6))
    labels = [f"{r[1]} / {r[2]} / {r[3]}" for r in rows]
    ps = [100 * r[5] for r in rows]
    err = [[100 * (r[5] - r[6]) for r in rows], [100 * (r[7] - r[5]) for r in rows]]
    ax.barh(range(len(rows)), ps, xerr=err, color="tab:blue", ecolor="black", capsize=2)
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.set_xlabel("win probability (%) with 95 % Wilson interval")
    ax.set_title(
        f"Narcotic: all rule combinations ({rows[0][0]}, {rows[0][4]:,} games each)\nmatching / gather / pile_four"
    )
    ax.grid(axis="x", alpha=0.3)
    return save_figure(fig, path)


# ----------------------------------------------------------------------------- the one-page index

NARCOTIC_PRESETS_SQL = """
SELECT preset, experiment, games, wins, win_p, win_lo95, win_hi95, mean_time_s, mean_passes
FROM narcotic_summary WHERE preset IS NOT NULL
-- the largest sample of each preset answers for it
QUALIFY row_number() OVER (PARTITION BY preset ORDER BY games DESC, experiment) = 1
ORDER BY preset = 'seed' DESC, preset
"""

NARCOTIC_COMBOS_SQL = """
SELECT experiment, matching, gather, pile_four, games, win_p, win_lo95, win_hi95, mean_passes, mean_time_s
FROM narcotic_rule_combinations
"""


def answer(con: duckdb.DuckDBPyConnection) -> list[str]:
    out = []
    for preset, exp, games, wins, p, lo, hi, mean_t, mean_passes in query(con, NARCOTIC_PRESETS_SQL)[1]:
        out.append(
            f"Narcotic ({esc(preset)} rules) is won <b>{pct_pm(p, lo, hi)}</b> of the time "
            f"(95 % interval; {games:,} games, experiment <code>{esc(exp)}</code>); a won game takes "
            f"{duration(mean_t)} on average by the seed's time model"
            + (f", {mean_passes:.1f} passes through the deck." if mean_passes is not None else ".")
        )
    _, combos = query(con, NARCOTIC_COMBOS_SQL)
    if combos:
        best, worst = combos[0], combos[-1]
        out.append(
            f"Of the sixteen rule combinations (matching / gather / pile_four), "
            f"{esc(' / '.join(best[1:4]))} is won most often ({pct(best[5])}) and "
            f"{esc(' / '.join(worst[1:4]))} least often ({pct(worst[5])}), "
            f"{best[4]:,} games each."
        )
    return out or ["No Narcotic games in the warehouse."]


def tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    _, rows = query(
        con,
        """
        SELECT experiment, preset, games, wins, win_p, win_lo95, win_hi95, mean_time_s, median_time_s,
               mean_passes, max_passes
        FROM narcotic_summary WHERE preset IS NOT NULL ORDER BY experiment, preset""",
    )
    out = [
        "<h3>Seed and classic rules</h3>",
        html_table(
            [
                "experiment",
                "preset",
                "games",
                "wins",
                "win %",
                "95 % interval",
                "mean time (won)",
                "median time (won)",
                "mean passes (won)",
                "max passes",
            ],
            [
                (
                    r[0],
                    r[1],
                    r[2],
                    r[3],
                    pct(r[4]),
                    f"{pct(r[5])} – {pct(r[6])}",
                    duration(r[7]),
                    duration(r[8]),
                    "–" if r[9] is None else f"{r[9]:.1f}",
                    r[10],
                )
                for r in rows
            ],
        ),
    ]
    _, combos = query(con, NARCOTIC_COMBOS_SQL)
    if combos:
        out += [
            f"<h3>All sixteen rule combinations (experiment <code>{esc(combos[0][0])}</code>)</h3>",
            html_table(
                [
                    "matching",
                    "gather",
                    "pile_four",
                    "games",
                    "win %",
                    "95 % interval",
                    "mean passes (won)",
                    "mean time (won)",
                ],
                [combination_cells(r) for r in combos],
            ),
        ]
    return out
