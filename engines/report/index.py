"""reports/index.html: one self-contained page with every answer, its figures and its provenance.

The page opens with a short answer per game, then each game's tables and figures,
then the independent checks of the kept campaigns (view ``campaign_checks``), then
provenance (engine versions, config, seeds, work behind every figure, build time).
Every number is read by SQL from the warehouse; figures are the PNGs the game report
rules wrote, embedded in the self-contained page shell of :mod:`engines.report.page`.  The caller opens the warehouse and passes the connection.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from ..core.fmt import MISSING, duration, half_open, identifier, plural
from ..core.layout import WAREHOUSE
from ..core.store import write_text
from ..registry import engine
from .common import game_report, query
from .html import esc, html_table
from .page import data_uri, html_page, scroll_box

# ----------------------------------------------------------------------------- figures

# A figure without its own entry above is described by its game's total work.
GAME_WORK_SQL = """
SELECT coalesce(sum(work), 0) FROM (
    SELECT DISTINCT experiment, variant, shard, json_extract(spec, '$.work')::BIGINT AS work
    FROM provenance WHERE game = ?)
"""


def figure_basis(con: duckdb.DuckDBPyConnection, game: str, stem: str, unit: str) -> str:
    sql, text = engine(game).figure_basis.get(stem, (None, None))
    if sql is None:
        return f"from {one_value(con, GAME_WORK_SQL, [game]):,} {unit} in all"
    _, rows = query(con, sql)
    return "from " + text.format(*rows[0])


def one_value(con: duckdb.DuckDBPyConnection, sql: str, params=None):
    return query(con, sql, params)[1][0][0]


def caption(captions: Path | None, stem: str) -> str:
    """The figure's caption, shared with Snakemake's report (workflow/report/<stem>.rst)."""
    if captions is not None and (captions / f"{stem}.rst").exists():
        return (captions / f"{stem}.rst").read_text().strip().replace("``", "")  # rst literals as plain text
    return stem.replace("_", " ")


def figure_html(con, game: str, png: Path, captions: Path | None, unit: str) -> str:
    stem = Path(png).stem
    text = caption(captions, stem)
    return (
        f'<figure id="fig-{esc(stem)}"><img src="{data_uri(png)}" alt="{esc(text)}">'
        f"<figcaption>{esc(text)} <i>Computed {esc(figure_basis(con, game, stem, unit))}.</i>"
        f"</figcaption></figure>\n"
    )


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
SEED_FORMATS = {c: identifier for c in ("root_seed", "seed")}


def range_cell(work_range: str | None) -> str:
    """A shard's recorded ``[start, stop)`` (JSON) in the page's half-open notation."""
    bounds = json.loads(work_range) if work_range else None
    return half_open(bounds) if bounds else MISSING


SHARD_FORMATS = {**SEED_FORMATS, "range": range_cell}


def work_text(n: int, unit: str) -> str:
    """``1 deal``, ``50,000 hands``: an amount of work in its (plural) unit."""
    return plural(n, unit.removesuffix("s"), unit) if unit.endswith("s") else f"{n:,} {unit}"


def provenance_html(
    con: duckdb.DuckDBPyConnection, units: dict[str, str], config: dict | None, built_at: datetime, warehouse: str
) -> str:
    ecols, erows = query(con, ENGINES_SQL)
    xcols, xrows = query(con, EXPERIMENTS_SQL)
    experiments = [dict(zip(xcols, r)) for r in xrows]
    # a shard's spec may name its own unit of work (e.g. Blackjack's exact tables)
    for x in experiments:
        x["work"] = work_text(x["work"], x.pop("unit") or units.get(x["game"], ""))
    xcols = [c if c != "work" else "work (games / deals / hands)" for c in xcols if c != "unit"]
    xrows = [tuple(x.values()) for x in experiments]
    scols, srows = query(con, SHARDS_SQL)
    packages = [json.loads(p) for (p,) in query(con, PACKAGES_SQL)[1]]
    out = [
        '<section id="provenance"><h2>Provenance</h2>',
        f"<p>Built {esc(built_at.strftime('%Y-%m-%d %H:%M:%S UTC'))} from <code>{esc(warehouse)}</code>. "
        "Every number above is a query over that warehouse (<code>cardlab sql</code> answers the same "
        "queries); every figure is the PNG its game's report rule drew from the same warehouse.</p>",
        "<h3>Engine versions</h3>",
        "<p>A version is a hash of the engine's source and the shared core; each shard file records "
        "the version that wrote it.</p>",
        html_table(ecols, erows),
        "<h3>Experiments, seeds and work</h3>",
        html_table(xcols, xrows, SEED_FORMATS),
        "<h3>Package versions of the shard jobs</h3>",
        "".join(f"<pre>{esc(json.dumps(p, indent=1, sort_keys=True))}</pre>" for p in packages),
        f"<details><summary>All {len(srows):,} shards: seed, range and rows</summary>",
        html_table(scols, srows, SHARD_FORMATS),
        "</details>",
    ]
    if config is not None:
        import yaml

        out += [
            "<details><summary>Config, as run</summary>",
            f"<pre>{esc(yaml.safe_dump(config, sort_keys=False))}</pre></details>",
        ]
    out.append("</section>")
    return "\n".join(out)


# ----------------------------------------------------------------------------- independent checks

# Every kept campaign with its independent recomputations (view campaign_checks,
# engines/pipeline/catalog/check_records.py); the section shows it only once some campaign has a check record.
CAMPAIGN_CHECKS_SQL = """
SELECT game, experiment, variant, shards_kept, shards_checked, shards_matched, checks, mismatches,
       stale, superseded, orphans, invalid, first_checked, last_checked, machines, check_cpu_s
FROM campaign_checks ORDER BY game, experiment, variant
"""

HAS_CAMPAIGN_CHECKS_SQL = "SELECT count(*) FROM information_schema.tables WHERE table_name = 'campaign_checks'"

CHECKS_TEXT = (
    "Each shard counted here was computed a second time, from the spec its file records, by "
    "<code>cardlab verify --recompute</code>, and the recomputed rows were compared with the kept "
    "shard's row by row (see <code>docs/scaling.md</code>).  A kept campaign's shards are not "
    "recomputed when their game's code changes, so this is the independent check of them.  A check "
    "counts only while the shard's files are the very bytes it checked (their data hashes, recorded "
    "with it): a line for a file changed since is <i>stale</i>, one for no kept shard an <i>orphan</i>, "
    "one that is no check record <i>invalid</i>; <code>cardlab verify</code> names each.  The record is "
    "<code>results/checks/&lt;game&gt;/&lt;experiment&gt;/&lt;variant&gt;.jsonl</code>; "
    "SQL: <code>campaign_checks</code>."
)
CHECKS_COLS = ("campaign", "shards kept", "recomputed independently", "not counted", "when", "CPU kinds", "CPU spent")
NOT_COUNTED = (("stale", "stale", "stale"), ("orphans", "orphan", "orphans"), ("invalid", "invalid", "invalid"))


def record_lines(d: dict) -> int:
    """How many lines of the campaign's check record there are, whatever they say."""
    return d["checks"] + d["stale"] + d["superseded"] + d["orphans"] + d["invalid"]


def checked_cell(d: dict) -> str:
    """``12 of 40 matched``, and the shards whose recomputation did not match in red (HTML)."""
    text = f"{d['shards_matched']:,} of {d['shards_kept']:,} matched"
    if d["checks"] != d["shards_checked"]:
        text += f" ({d['checks']:,} checks)"
    if d["mismatches"]:
        return f'{esc(text)}; <b style="color:#c00">{esc(plural(d["mismatches"], "shard"))} mismatched</b>'
    return esc(text)


def not_counted_cell(d: dict) -> str:
    """The record's lines that count for nothing now: stale, orphans, invalid in red; superseded plainly."""
    bad = [plural(d[c], one, many) for c, one, many in NOT_COUNTED if d[c]]
    cell = f'<b style="color:#c00">{esc(", ".join(bad))}</b>' if bad else ""
    if d["superseded"]:
        cell += ("; " if cell else "") + esc(f"{d['superseded']:,} superseded")
    return cell or esc(MISSING)


def when_cell(d: dict) -> str:
    first, last = d["first_checked"], d["last_checked"]
    if first is None:
        return MISSING
    return first if first == last else f"{first} to {last}"


def checks_html(con: duckdb.DuckDBPyConnection) -> str:
    """Section "Independent checks": every kept campaign and how much of it was recomputed and matched."""
    head = '<section id="checks"><h2>Independent checks</h2>'
    if not one_value(con, HAS_CAMPAIGN_CHECKS_SQL):
        return f"{head}<p>This warehouse has no record of independent checks.</p></section>"
    cols, rows = query(con, CAMPAIGN_CHECKS_SQL)
    runs = [dict(zip(cols, r)) for r in rows]
    if not any(record_lines(d) for d in runs):
        kept = f" ({plural(len(runs), 'kept campaign')})" if runs else ""
        return (
            f"{head}<p>No kept campaign{kept} has been recomputed independently yet "
            "(<code>cardlab verify --recompute</code>).</p></section>"
        )
    checked = [d for d in runs if record_lines(d)]
    unchecked = [f"{d['game']} {d['experiment']}/{d['variant']}" for d in runs if not record_lines(d)]
    cells = [
        [
            esc(f"{d['game']} {d['experiment']}/{d['variant']}"),
            esc(f"{d['shards_kept']:,}"),
            checked_cell(d),
            not_counted_cell(d),
            esc(when_cell(d)),
            esc(d["machines"] or MISSING),
            esc(duration(d["check_cpu_s"])),
        ]
        for d in checked
    ]
    head_row = "".join(f"<th>{esc(c)}</th>" for c in CHECKS_COLS)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>\n" for row in cells)
    table = scroll_box(f"<table><thead><tr>{head_row}</tr></thead><tbody>\n{body}</tbody></table>")
    rest = (
        f"<p>Not recomputed yet: {esc(plural(len(unchecked), 'kept campaign'))} ({esc(', '.join(unchecked))}).</p>"
        if unchecked
        else ""
    )
    return f"{head}<p>{CHECKS_TEXT}</p>\n{table}\n{rest}</section>"


# ----------------------------------------------------------------------------- page


def game_section(con, game: str, files: Sequence[Path], outdir: Path, captions: Path | None, unit: str) -> str:
    eng = engine(game)
    report = game_report(game)
    pages = " · ".join(
        f'<a href="{esc(os.path.relpath(f, outdir))}">{esc(Path(f).stem.replace("_", " "))}</a>'
        for f in files
        if Path(f).suffix == ".html"
    )
    # CSV files are data, not pages: offered as downloads
    csvs = " · ".join(
        f'<a href="{esc(os.path.relpath(f, outdir))}" download>{esc(Path(f).name)}</a>'
        for f in files
        if Path(f).suffix == ".csv"
    )
    links = (f"full report: {pages}" if pages else "") + (f"; tables as CSV (download): {csvs}" if csvs else "")
    parts = [
        f'<section id="{game}"><h2>{esc(eng.title)}</h2>',
        f"<p><i>{esc(eng.question)}</i></p>",
        *(report.tables(con) if report is not None else []),
        *(figure_html(con, game, f, captions, unit) for f in files if Path(f).suffix == ".png"),
    ]
    if links:
        parts.append(f"<p>{links[0].upper()}{links[1:]}</p>")
    parts.append("</section>")
    return "\n".join(parts)


def game_answer(con: duckdb.DuckDBPyConnection, game: str) -> list[str]:
    """The game's answer paragraphs (HTML), from its declared report's ``answer(con)``."""
    report = game_report(game)
    if report is None:
        return [f"{esc(engine(game).title)}: see the tables below."]
    return report.answer(con)


def build_index(
    con: duckdb.DuckDBPyConnection,
    out: Path,
    game_files: dict[str, list[Path]],
    captions: Path | None = None,
    config: dict | None = None,
    units: dict[str, str] | None = None,
    built_at: datetime | None = None,
    warehouse: str = WAREHOUSE,
) -> Path:
    """Write the page; ``game_files`` maps each game shown to its report files (PNGs are embedded)."""
    out = Path(out)
    outdir = out.parent
    units = units or {}
    built_at = built_at or datetime.now(UTC)
    games = list(game_files)
    answers = "\n".join(
        f'<div class="answer" id="answer-{g}"><h3>{esc(engine(g).title)}</h3>'
        + "".join(f"<p>{a}</p>" for a in game_answer(con, g))
        + "</div>"
        for g in games
    )
    nav = "".join(f'<a href="#{g}">{esc(engine(g).title)}</a>' for g in games)
    nav += '<a href="#checks">Independent checks</a><a href="#provenance">Provenance</a>'
    body = [
        f"<h1>cardlab: the answers</h1><nav>{nav}</nav>",
        f'<section id="answers"><h2>Answers</h2>{answers}</section>',
        *(game_section(con, g, game_files[g], outdir, captions, units.get(g, "units")) for g in games),
        checks_html(con),
        provenance_html(con, units, config, built_at, warehouse),
    ]
    return write_text(out, html_page("cardlab report", "\n".join(body)))
