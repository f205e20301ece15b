"""The Narcotic section of the one-page index: the answer paragraphs and the HTML tables."""

from __future__ import annotations

import duckdb

from ...core.fmt import duration, fixed, pct, pct_pm, pct_range
from ...report.common import records
from ...report.html import esc, html_table
from . import queries as q
from .labels import combination_cells, exp_label, rules_label


def answer(con: duckdb.DuckDBPyConnection) -> list[str]:
    out = []
    for r in records(con, q.ANSWER_SQL):
        out.append(
            f"Narcotic ({esc(r['preset'])} rules) is won <b>{pct_pm(r['win_p'], r['win_lo95'], r['win_hi95'])}</b> "
            f"of the time (95 % interval; {r['games']:,} games, experiment <code>{esc(r['experiment'])}</code>); "
            f"a won game takes {duration(r['mean_time_s'])} on average by the seed's time model"
            + (f", {r['mean_passes']:.1f} passes through the deck." if r["mean_passes"] is not None else ".")
        )
    for r in records(con, q.CAMPAIGN_SQL):
        out.append(
            f"The kept campaign <code>{esc(r['experiment'])}</code> "
            f"({esc(exp_label(r['experiment'], r['preset'], r['variant'], 'campaign'))}, {r['games']:,} games) "
            f"is won <b>{pct_pm(r['win_p'], r['win_lo95'], r['win_hi95'])}</b> of the time (95 % interval); "
            f"a won game takes {fixed(r['mean_time_s'])} s on average, where the seed would print "
            f"{int(r['seed_hours'])} hours {int(r['seed_minutes'])} minutes (looping games counted as 0 s)."
        )
    combos = records(con, q.COMBOS_SQL)
    if combos:
        best, worst = combos[0], combos[-1]
        out.append(
            f"Of the sixteen rule combinations (matching / gather / pile_four), "
            f"{esc(rules_label(best))} is won most often ({pct(best['win_p'])}) and "
            f"{esc(rules_label(worst))} least often ({pct(worst['win_p'])}), "
            f"{best['games']:,} games each."
        )
    return out or ["No Narcotic games in the warehouse."]


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
        for r in records(con, q.PRESETS_SQL)
    ]
    out = ["<h3>Seed and classic rules</h3>", html_table(INDEX_PRESET_COLUMNS, rows)]
    combos = records(con, q.COMBOS_SQL)
    if combos:
        out += [
            f"<h3>All sixteen rule combinations (experiment <code>{esc(combos[0]['experiment'])}</code>)</h3>",
            html_table(INDEX_COMBO_COLUMNS, [combination_cells(r) for r in combos]),
        ]
    return out
