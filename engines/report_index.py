"""reports/index.html: one self-contained page with every answer, its figures and its provenance.

The page opens with a short answer per game, then each game's tables and figures,
then provenance (engine versions, config, seeds, work behind every figure, build
time).  Every number is read by SQL from the warehouse; figures are the PNGs the
game report rules wrote, embedded as base64 ``data:`` URIs so the page needs no
network and no sibling files to be read (a Content-Security-Policy forbids any
other load, so a stray external reference shows up as a broken image).
"""
from __future__ import annotations

import base64
import html
import json
import os
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Sequence

import duckdb

from .errors import CardlabError
from .report import query, write_text_atomic
from .report_blackjack import Z_AGREE, agreement, exact_layout, seed_variant, variant_title
from .report_narcotic import hm
from .report_redblack import CYCLES_SQL, HEADLINE_SQL, STATUS_SQL

TITLES = {"narcotic": "Narcotic solitaire", "redblack": "RedBlack", "blackjack": "Blackjack dealer"}
QUESTIONS = {
    "narcotic": "How often can a shuffled deck be finished, and how long does it take?",
    "redblack": "Which deals never end, and does one exist for a full deck?",
    "blackjack": "How likely is the dealer to bust, reach 17–21 or have a natural, by upcard?",
}

# Only data: URIs may load; styles are inline.  Keeps the page honest about being self-contained.
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
       line-height: 1.45; color: #222; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 0.88em;
        display: block; max-width: 100%; overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; white-space: nowrap; }
th { background: #f2f2f2; }
td:first-child, th:first-child { text-align: left; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #444; }
.answer { font-size: 1.08em; background: #f6f9ff; border-left: 4px solid #3b73c4; padding: 0.5em 1em; }
nav a { margin-right: 1em; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
"""


# ----------------------------------------------------------------------------- formatting

def esc(value) -> str:
    return html.escape("" if value is None else str(value))


def num(value, digits: int = 4) -> str:
    """A number for a table cell: integers with thousands separators, floats to ``digits`` significant."""
    if value is None or (isinstance(value, float) and value != value):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.{digits}g}"
    return str(value)


def pct_pm(p: float, lo: float, hi: float) -> str:
    """``p % ± h %`` with h the half-width of the interval, both to two significant digits of h."""
    import math

    half = 100 * (hi - lo) / 2
    decimals = max(1, 1 - math.floor(math.log10(half))) if half > 0 else 1
    return f"{100 * p:.{decimals}f} % ± {half:.{decimals}f} %"


def html_table(cols: Sequence[str], rows: Sequence[Sequence],
               formats: dict[str, Callable] | None = None) -> str:
    formats = formats or {}
    head = "".join(f"<th>{esc(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{esc(formats[c](v) if c in formats else num(v))}</td>"
                                    for c, v in zip(cols, row)) + "</tr>\n" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>\n"


def one(con: duckdb.DuckDBPyConnection, sql: str, params=None) -> dict:
    """The single row of a query, as a dict (empty when the query returns nothing)."""
    cols, rows = query(con, sql, params)
    return dict(zip(cols, rows[0])) if rows else {}


def pct(p) -> str:
    return "–" if p is None else f"{100 * p:.3f} %"


# ----------------------------------------------------------------------------- answers

NARCOTIC_PRESETS_SQL = """
SELECT preset, experiment, games, wins, win_p, win_lo95, win_hi95, mean_time_s, mean_passes
FROM narcotic_summary WHERE preset IS NOT NULL
-- the largest sample of each preset answers for it
QUALIFY row_number() OVER (PARTITION BY preset ORDER BY games DESC, experiment) = 1
ORDER BY preset = 'seed' DESC, preset
"""

NARCOTIC_COMBOS_SQL = """
SELECT experiment, matching, gather, pile_four, games, win_p, win_lo95, win_hi95, mean_passes, mean_time_s
FROM narcotic_summary
WHERE experiment = (SELECT experiment FROM narcotic_summary GROUP BY experiment
                    HAVING count(*) = 16 ORDER BY experiment LIMIT 1)
ORDER BY win_p DESC, variant
"""


def narcotic_answer(con: duckdb.DuckDBPyConnection) -> list[str]:
    out = []
    for preset, exp, games, wins, p, lo, hi, mean_t, mean_passes in query(con, NARCOTIC_PRESETS_SQL)[1]:
        out.append(
            f"Narcotic ({esc(preset)} rules) is won <b>{pct_pm(p, lo, hi)}</b> of the time "
            f"(95 % interval; {games:,} games, experiment <code>{esc(exp)}</code>); a won game takes "
            f"{hm(mean_t)} on average by the seed's time model"
            + (f", {mean_passes:.1f} passes through the deck." if mean_passes is not None else "."))
    _, combos = query(con, NARCOTIC_COMBOS_SQL)
    if combos:
        best, worst = combos[0], combos[-1]
        out.append(f"Of the sixteen rule combinations (matching / gather / pile_four), "
                   f"{esc(' / '.join(best[1:4]))} is won most often ({pct(best[5])}) and "
                   f"{esc(' / '.join(worst[1:4]))} least often ({pct(worst[5])}), "
                   f"{best[4]:,} games each.")
    return out or ["No Narcotic games in the warehouse."]


REDBLACK_SAMPLES_SQL = """
SELECT k, balanced, string_agg(DISTINCT experiment, ', ' ORDER BY experiment) AS experiments,
       sum(deals) AS deals, sum(infinite) AS infinite
FROM redblack_counts WHERE method = 'sample' GROUP BY k, balanced ORDER BY k, balanced DESC
"""


def redblack_answer(con: duckdb.DuckDBPyConnection) -> list[str]:
    h = one(con, HEADLINE_SQL)
    out = []
    if h.get("infinite_canonical"):
        text = (f"Infinite balanced RedBlack deals exist for k = {esc(h['sizes_list'])} cards per player: "
                f"<b>{h['infinite_canonical']:,}</b> canonical deals ({h['infinite_total']:,} counting "
                f"colour swaps), falling into {h['cycles']:,} cycle(s).")
    else:
        text = "No infinite balanced RedBlack deal is known for the sizes searched."
    if h.get("complete_sizes"):
        text += (f" The lists are complete for k = {h['complete_from']}..{h['complete_to']} "
                 f"(every one of {h['exhaustive_deals']:,} canonical deals played to its end or its cycle).")
    out.append(text)
    _, samples = query(con, REDBLACK_SAMPLES_SQL)
    for k, balanced, exps, deals, infinite in samples:
        kind = "balanced" if balanced else "any-split"
        verdict = (f"<b>{infinite:,} infinite</b>" if infinite else
                   "<b>none was infinite</b> (sampling can find one, not prove there is none)")
        out.append(f"k = {k} ({2 * k} cards): {deals:,} seeded {kind} deals played "
                   f"(<code>{esc(exps)}</code>); {verdict}.")
    return out


BLACKJACK_BUST_SQL = """
SELECT upcard, probability FROM blackjack_exact
WHERE outcome = 'bust' AND decks = ? AND soft17 = ? AND peek = ?
ORDER BY probability DESC, upcard_order
"""


def blackjack_answer(con: duckdb.DuckDBPyConnection) -> list[str]:
    variant = seed_variant(con)
    if variant is None:
        return ["No exact Blackjack tables in the warehouse."]
    _, bust = query(con, BLACKJACK_BUST_SQL, list(variant))
    out = [f"Blackjack dealer ({esc(variant_title(*variant))}; exact): the dealer busts most often "
           f"showing <b>{esc(bust[0][0])} ({pct(bust[0][1])})</b> and least often showing "
           f"<b>{esc(bust[-1][0])} ({pct(bust[-1][1])})</b>."]
    acols, arows = agreement(con)
    for row in arows:
        d = dict(zip(acols, row))
        z = float(d["max_abs_z"])
        head = (f"Simulation <code>{esc(d['experiment'])}</code> ({esc(d['shoe'])} shoe, "
                f"{d['hands_per_upcard']:,} hands per upcard)")
        if d["shoe"] != "fresh":  # not the exact table's law: z measures the effect, not an error
            out.append(f"{head} differs from the exact table by up to |z| = {z:.2f} over {d['cells']} cells: "
                       "hands dealt one after another through one shoe are not independent "
                       "(the continuous-shoe effect).")
            continue
        verdict = "agrees with" if z < Z_AGREE else "<b>disagrees</b> with"
        out.append(f"{head} {verdict} the exact table: largest |z| = {z:.2f} over {d['cells']} cells "
                   f"(agreement: every |z| &lt; {Z_AGREE:g}).")
    return out


ANSWERS: dict[str, Callable[[duckdb.DuckDBPyConnection], list[str]]] = {
    "narcotic": narcotic_answer, "redblack": redblack_answer, "blackjack": blackjack_answer,
}


# ----------------------------------------------------------------------------- tables

def narcotic_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    _, rows = query(con, """
        SELECT experiment, preset, games, wins, win_p, win_lo95, win_hi95, mean_time_s, median_time_s,
               mean_passes, max_passes
        FROM narcotic_summary WHERE preset IS NOT NULL ORDER BY experiment, preset""")
    out = ["<h3>Seed and classic rules</h3>", html_table(
        ["experiment", "preset", "games", "wins", "win %", "95 % interval", "mean time (won)",
         "median time (won)", "mean passes (won)", "max passes"],
        [(r[0], r[1], r[2], r[3], pct(r[4]), f"{pct(r[5])} – {pct(r[6])}", hm(r[7]), hm(r[8]),
          "–" if r[9] is None else f"{r[9]:.1f}", r[10]) for r in rows])]
    _, combos = query(con, NARCOTIC_COMBOS_SQL)
    if combos:
        out += [f"<h3>All sixteen rule combinations (experiment <code>{esc(combos[0][0])}</code>)</h3>",
                html_table(["matching", "gather", "pile_four", "games", "win %", "95 % interval",
                            "mean passes (won)", "mean time (won)"],
                           [(r[1], r[2], r[3], r[4], pct(r[5]), f"{pct(r[6])} – {pct(r[7])}",
                             "–" if r[8] is None else f"{r[8]:.1f}", hm(r[9])) for r in combos])]
    return out


FOLD_ROWS = 30  # tables longer than this are folded into a <details> element


def redblack_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    cols, rows = query(con, STATUS_SQL)
    out = ["<h3>By size k</h3>", html_table(cols, rows)]
    ccols, crows = query(con, CYCLES_SQL)
    if not crows:
        return out + ["<h3>Cycles</h3>", "<p>No cycles found.</p>"]
    table = html_table(ccols, crows)
    # a long list of cycles (large k) would bury the figures: fold it
    if len(crows) > FOLD_ROWS:
        table = f"<details><summary>All {len(crows):,} cycles</summary>{table}</details>"
    return out + ["<h3>Cycles</h3>", table]


def blackjack_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    variant = seed_variant(con)
    out = []
    if variant is not None:
        out += [f"<h3>Exact table: {esc(variant_title(*variant))}</h3>", html_table(*exact_layout(con, variant))]
    acols, arows = agreement(con)
    if arows:
        out += ["<h3>Simulations against the exact tables</h3>", html_table(acols, arows)]
    return out


TABLES: dict[str, Callable[[duckdb.DuckDBPyConnection], list[str]]] = {
    "narcotic": narcotic_tables, "redblack": redblack_tables, "blackjack": blackjack_tables,
}


# ----------------------------------------------------------------------------- figures

# What each figure is computed from: a query returning one row, and how to say it.
FIGURE_BASIS: dict[str, tuple[str, str]] = {
    "narcotic_passes": ("SELECT coalesce(sum(wins), 0), coalesce(sum(games), 0) FROM narcotic_summary "
                        "WHERE preset IS NOT NULL",
                        "{0:,} won games out of {1:,} played (seed and classic rules)"),
    "narcotic_rules": ("SELECT coalesce(sum(games), 0), coalesce(min(games), 0) FROM narcotic_summary "
                       "WHERE experiment = (SELECT experiment FROM narcotic_summary GROUP BY experiment "
                       "HAVING count(*) = 16 ORDER BY experiment LIMIT 1)",
                       "{0:,} games, {1:,} per rule combination"),
    "redblack_infinite_share": ("SELECT coalesce(sum(deals) FILTER (WHERE method = 'exhaustive'), 0), "
                                "coalesce(sum(deals) FILTER (WHERE method = 'sample'), 0) FROM redblack_summary",
                                "{0:,} deals searched exhaustively and {1:,} sampled"),
    "redblack_lengths": ("SELECT coalesce(sum(deals), 0) FROM redblack_lengths", "{0:,} finite deals"),
    "blackjack_bust": ("SELECT count(DISTINCT decks) FROM blackjack_exact WHERE soft17 = 'stand' AND peek = 'no'",
                       "{0} exact tables, one per shoe size (no sampling error)"),
}

# A figure without its own entry above is described by its game's total work.
GAME_WORK_SQL = """
SELECT coalesce(sum(work), 0) FROM (
    SELECT DISTINCT experiment, variant, shard, json_extract(spec, '$.work')::BIGINT AS work
    FROM provenance WHERE game = ?)
"""


def figure_basis(con: duckdb.DuckDBPyConnection, game: str, stem: str, unit: str) -> str:
    sql, text = FIGURE_BASIS.get(stem, (None, None))
    if sql is None:
        return f"from {one_value(con, GAME_WORK_SQL, [game]):,} {unit} in all"
    _, rows = query(con, sql)
    return "from " + text.format(*rows[0])


def one_value(con: duckdb.DuckDBPyConnection, sql: str, params=None):
    return query(con, sql, params)[1][0][0]


def data_uri(png: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(Path(png).read_bytes()).decode("ascii")


def caption(captions: Path | None, stem: str) -> str:
    """The figure's caption, shared with Snakemake's report (workflow/report/<stem>.rst)."""
    if captions is not None and (captions / f"{stem}.rst").exists():
        return (captions / f"{stem}.rst").read_text().strip().replace("``", "")  # rst literals as plain text
    return stem.replace("_", " ")


def figure_html(con, game: str, png: Path, captions: Path | None, unit: str) -> str:
    stem = Path(png).stem
    text = caption(captions, stem)
    return (f'<figure id="fig-{esc(stem)}"><img src="{data_uri(png)}" alt="{esc(text)}">'
            f"<figcaption>{esc(text)} <i>Computed {esc(figure_basis(con, game, stem, unit))}.</i>"
            f"</figcaption></figure>\n")


# ----------------------------------------------------------------------------- provenance

ENGINES_SQL = """
SELECT game, engine_version, count(DISTINCT path) AS files, sum(rows) AS rows
FROM provenance GROUP BY ALL ORDER BY game, engine_version
"""

EXPERIMENTS_SQL = """
WITH s AS (
    SELECT DISTINCT game, experiment, variant, shard, root_seed, seed_derivation,
           json_extract(spec, '$.work')::BIGINT AS work,
           json_extract_string(spec, '$.work_unit') AS unit
    FROM provenance)
SELECT game, experiment, count(DISTINCT variant) AS variants, count(*) AS shards,
       any_value(root_seed) AS root_seed, sum(work) AS work,
       min(seed_derivation) AS "seed derivation (first shard)", any_value(unit) AS unit
FROM s GROUP BY game, experiment ORDER BY game, experiment
"""

SHARDS_SQL = """
SELECT game, experiment, variant, shard, any_value(seed) AS seed, any_value(work_range) AS "range",
       sum(rows) AS rows, any_value(engine_version) AS engine_version
FROM provenance GROUP BY game, experiment, variant, shard ORDER BY game, experiment, variant, shard
"""

PACKAGES_SQL = "SELECT DISTINCT packages FROM provenance ORDER BY packages"

# Seeds are identifiers, not quantities: no thousands separators.
SEED_FORMATS = {c: (lambda v: "–" if v is None else str(v)) for c in ("root_seed", "seed")}


def provenance_html(con: duckdb.DuckDBPyConnection, units: dict[str, str], config: dict | None,
                    built_at: datetime, warehouse: str) -> str:
    ecols, erows = query(con, ENGINES_SQL)
    xcols, xrows = query(con, EXPERIMENTS_SQL)
    # a shard's spec may name its own unit of work (e.g. Blackjack's exact tables)
    xcols = [c if c != "work" else "work (games / deals / hands)" for c in xcols[:-1]]
    xrows = [r[:5] + (f"{r[5]:,} {r[7] or units.get(r[0], '')}",) + r[6:7] for r in xrows]
    scols, srows = query(con, SHARDS_SQL)
    packages = [json.loads(p) for (p,) in query(con, PACKAGES_SQL)[1]]
    out = ['<section id="provenance"><h2>Provenance</h2>',
           f"<p>Built {esc(built_at.strftime('%Y-%m-%d %H:%M:%S UTC'))} from <code>{esc(warehouse)}</code>. "
           "Every number above is a query over that warehouse (<code>cardlab sql</code> answers the same "
           "queries); every figure is the PNG its game's report rule drew from the same warehouse.</p>",
           "<h3>Engine versions</h3>",
           "<p>A version is a hash of the engine's source and the shared core; each shard file records "
           "the version that wrote it.</p>", html_table(ecols, erows),
           "<h3>Experiments, seeds and work</h3>", html_table(xcols, xrows, SEED_FORMATS),
           "<h3>Package versions of the shard jobs</h3>",
           "".join(f"<pre>{esc(json.dumps(p, indent=1, sort_keys=True))}</pre>" for p in packages),
           f"<details><summary>All {len(srows):,} shards: seed, range and rows</summary>",
           html_table(scols, srows, SEED_FORMATS), "</details>"]
    if config is not None:
        import yaml

        out += ["<details><summary>Config, as run</summary>",
                f"<pre>{esc(yaml.safe_dump(config, sort_keys=False))}</pre></details>"]
    out.append("</section>")
    return "\n".join(out)


# ----------------------------------------------------------------------------- page

def game_section(con, game: str, files: Sequence[Path], outdir: Path, captions: Path | None,
                 unit: str) -> str:
    links = " · ".join(f'<a href="{esc(os.path.relpath(f, outdir))}">{esc(Path(f).name)}</a>'
                       for f in files if Path(f).suffix in (".md", ".csv"))
    parts = [f'<section id="{game}"><h2>{esc(TITLES.get(game, game))}</h2>',
             f"<p><i>{esc(QUESTIONS.get(game, ''))}</i></p>",
             *TABLES.get(game, lambda _: [])(con),
             *(figure_html(con, game, f, captions, unit) for f in files if Path(f).suffix == ".png")]
    if links:
        parts.append(f"<p>Full report and tables: {links}</p>")
    parts.append("</section>")
    return "\n".join(parts)


def build_index(con: duckdb.DuckDBPyConnection, out: Path, game_files: dict[str, list[Path]],
                captions: Path | None = None, config: dict | None = None, units: dict[str, str] | None = None,
                built_at: datetime | None = None, warehouse: str = "results/warehouse.duckdb") -> Path:
    """Write the page; ``game_files`` maps each game shown to its report files (PNGs are embedded)."""
    out = Path(out)
    outdir = out.parent
    units = units or {}
    built_at = built_at or datetime.now(timezone.utc)
    games = list(game_files)
    answers = "\n".join(
        f'<div class="answer" id="answer-{g}"><h3>{esc(TITLES.get(g, g))}</h3>'
        + "".join(f"<p>{a}</p>" for a in ANSWERS[g](con)) + "</div>" for g in games)
    nav = "".join(f'<a href="#{g}">{esc(TITLES.get(g, g))}</a>' for g in games) + '<a href="#provenance">Provenance</a>'
    body = [f"<h1>cardlab: the answers</h1><nav>{nav}</nav>",
            f'<section id="answers"><h2>Answers</h2>{answers}</section>',
            *(game_section(con, g, game_files[g], outdir, captions, units.get(g, "units")) for g in games),
            provenance_html(con, units, config, built_at, warehouse)]
    page = ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>cardlab report</title><style>{STYLE}</style></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")
    return write_text_atomic(out, page)


def work_units(games: Sequence[str]) -> dict[str, str]:
    """What each game's work counts (games, deals, hands), from the engines themselves."""
    from .jobs import engine

    return {g: getattr(engine(g), "WORK_UNIT", "units") for g in games}


def run_from_snakemake(smk) -> None:
    """Entry point of workflow/scripts/report_index.py."""
    from .warehouse import connect

    games = list(smk.params.games)
    try:
        con = connect(smk.input.warehouse)
        try:
            out = build_index(con, Path(smk.output[0]), {g: [Path(f) for f in getattr(smk.input, g)] for g in games},
                        captions=Path(smk.params.captions), config=dict(smk.config),
                        units=work_units(games), warehouse=str(smk.input.warehouse))
        finally:
            con.close()
    except (CardlabError, duckdb.Error) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    if len(smk.log):
        Path(smk.log[0]).write_text(f"report_index: wrote {out} ({out.stat().st_size:,} bytes) for {', '.join(games)}\n")
