"""reports/index.html end to end: built by the workflow on a tiny config, read in headless
Chromium, Snakemake's own report, what an engine edit reruns, and progress lines in shard logs."""

from __future__ import annotations

import functools
import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest
from conftest import env_of
from system_tools import missing
from wfhelp import planned_jobs, snakemake

from engines.core.progress import Progress
from engines.pipeline.compute import jobs
from engines.registry import GAMES, engine

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def index_run(tiny_pipeline) -> Path:
    return tiny_pipeline


def page(wd: Path) -> str:
    return (wd / "reports/index.html").read_text()


def sql(wd: Path, q: str) -> list[tuple]:
    con = duckdb.connect(str(wd / "results/warehouse.duckdb"), read_only=True)
    try:
        return con.execute(q).fetchall()
    finally:
        con.close()


def section(text: str, element_id: str) -> str:
    m = re.search(rf'<(\w+) [^>]*id="{element_id}".*?</\1>', text, re.S)
    assert m, f"no element with id {element_id}"
    return m.group(0)


# ----------------------------------------------------------------------------- the page


def declared_figures() -> list[str]:
    """Every PNG figure the engines' reports declare (the index embeds each once)."""
    return [f.name for g in GAMES for f in engine(g).report_files if f.name.endswith(".png")]


def test_answers_come_first_and_match_the_warehouse(index_run):
    text = page(index_run)
    assert (
        text.index('id="answers"')
        < min(text.index(f'<section id="{g}"') for g in GAMES)
        < text.index('id="provenance"')
    )

    games, wins = sql(
        index_run, "SELECT count(*), count(*) FILTER (WHERE won) FROM narcotic_games WHERE experiment = 'seed'"
    )[0]
    narcotic = section(text, "answer-narcotic")
    assert f"Narcotic (seed rules) is won <b>{100 * wins / games:.1f} % ± " in narcotic
    assert f"{games:,} games" in narcotic

    (infinite,) = sql(index_run, "SELECT count(*) FROM redblack_infinite")[0]
    assert infinite > 0 and f"<b>{infinite:,}</b> canonical deals" in section(text, "answer-redblack")

    upcard, p = sql(
        index_run,
        "SELECT upcard, probability FROM blackjack_exact WHERE outcome = 'bust' "
        "AND decks = '2' AND soft17 = 'stand' AND peek = 'no' "
        "ORDER BY probability DESC LIMIT 1",
    )[0]
    assert f"showing <b>{upcard} ({100 * p:.3f} %)</b>" in section(text, "answer-blackjack")


def test_provenance_names_engines_seeds_and_work(index_run):
    prov = section(page(index_run), "provenance")
    for game, version in sql(index_run, "SELECT DISTINCT game, engine_version FROM provenance"):
        assert f"<td>{version}</td>" in prov, game
    for (seed,) in sql(index_run, "SELECT DISTINCT root_seed FROM provenance WHERE root_seed IS NOT NULL"):
        assert f"<td>{seed}</td>" in prov
    assert re.search(r"Built \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", prov)
    assert "hands_per_upcard: 5000" in prov  # the config as run
    # every figure says what it was computed from
    figures = re.findall(r"<figure .*?</figure>", page(index_run), re.S)
    assert figures and all(re.search(r"<i>Computed from [\d,]+ ", f) for f in figures)


def test_page_is_self_contained(index_run):
    text = page(index_run)
    srcs = re.findall(r'<img [^>]*src="([^"]*)"', text)
    pngs = sorted((index_run / "reports").glob("*.png"))
    assert len(srcs) == len(pngs) == len(declared_figures())
    assert all(s.startswith("data:image/png;base64,") for s in srcs)
    assert not re.search(r'(src|href)="(https?:)?//', text)
    assert "Content-Security-Policy" in text and "default-src 'none'" in text


# ----------------------------------------------------------------------------- in a browser

# Injected into a copy of the page: collects what the browser made of every image and link
# and every load the page's Content-Security-Policy refused, and writes it into the DOM.
CHECKER = """<script nonce="cardlab-check">
const violations = [];
document.addEventListener('securitypolicyviolation', e => violations.push(e.violatedDirective + ' ' + e.blockedURI));
window.addEventListener('load', () => {
  const images = [...document.images].map(i => ({alt: i.alt.slice(0, 60), width: i.naturalWidth,
                                                 ok: i.complete && i.naturalWidth > 0}));
  const links = [...document.querySelectorAll('a[href]')].map(a => {
    const href = a.getAttribute('href');
    return {href, download: a.hasAttribute('download'),
            anchor_ok: href.startsWith('#') ? document.getElementById(href.slice(1)) !== null : null};
  });
  const out = document.createElement('pre');
  out.id = 'cardlab-check';
  out.textContent = JSON.stringify({images, links, violations});
  document.body.appendChild(out);
});
</script>"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    missing("Chromium not found, so the report page's browser check is not run")  # the reason in pytest's summary (-ra)


def browser_check(html_file: Path, tmp: Path) -> dict:
    """Load a copy of the page (plus the checker) in headless Chromium; return what it saw."""
    text = html_file.read_text()
    # the page's own policy, plus permission for the checker's script only
    text = text.replace("default-src 'none';", "default-src 'none'; script-src 'nonce-cardlab-check';", 1)
    text = re.sub(
        r"(<meta http-equiv=\"Content-Security-Policy\"[^>]*>)", lambda m: m.group(1) + CHECKER, text, count=1
    )
    assert CHECKER in text, "the page has no Content-Security-Policy meta tag"
    probe = html_file.with_name(f".browser-check-{html_file.name}")  # beside it: relative links resolve
    probe.write_text(text)
    try:
        proc = subprocess.run(
            [
                chromium(),
                *CHROMIUM_FLAGS,
                f"--user-data-dir={tmp / 'chromium-profile'}",
                "--virtual-time-budget=10000",
                "--dump-dom",
                probe.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        probe.unlink()
    m = re.search(r'<pre id="cardlab-check">(.*?)</pre>', proc.stdout, re.S)
    assert m, f"Chromium did not run the page's load event (rc {proc.returncode}):\n{proc.stderr[-2000:]}"
    seen = json.loads(html.unescape(m.group(1)))
    for link in seen["links"]:  # files the page links to must exist beside it
        href = link["href"]
        if link["anchor_ok"] is None:
            link["file_ok"] = not re.match(r"[a-z]+:", href) and (html_file.parent / href).is_file()
    return seen


def problems(seen: dict) -> list[str]:
    out = [f"image not rendered: {i['alt']!r}" for i in seen["images"] if not i["ok"]]
    out += [
        f"broken link: {link['href']}"
        for link in seen["links"]
        if link["anchor_ok"] is False or link.get("file_ok") is False
    ]
    return out + [f"blocked load: {v}" for v in seen["violations"]]


def test_page_renders_in_chromium(index_run, tmp_path):
    seen = browser_check(index_run / "reports/index.html", tmp_path)
    assert problems(seen) == []
    assert len(seen["images"]) == len(declared_figures()) and all(i["width"] > 300 for i in seen["images"])
    hrefs = {link["href"] for link in seen["links"]}
    assert {"#narcotic", "#redblack", "#blackjack", "#provenance", "narcotic.csv", "blackjack.html"} <= hrefs


def test_every_link_opens_a_rendered_page(index_run, tmp_path):
    """Links from the index go to anchors, CSV downloads, or HTML pages that render in the browser."""
    seen = browser_check(index_run / "reports/index.html", tmp_path)
    pages = sorted({link["href"] for link in seen["links"] if link["anchor_ok"] is None and not link["download"]})
    assert pages == ["blackjack.html", "infinite_games.html", "narcotic.html"]
    assert all(link["href"].endswith(".csv") for link in seen["links"] if link["download"])
    for href in pages:
        sub = browser_check(index_run / "reports" / href, tmp_path)
        assert problems(sub) == [], href
        text = (index_run / "reports" / href).read_text()
        assert "<h1" in text and "<table>" in text and "|---" not in text and "**" not in text, href
        assert "index.html" in {link["href"] for link in sub["links"]}
    # the figures of the Markdown reports are embedded in their pages
    figures = len(re.findall(r"!\[[^\]]*\]\([^)]*\.png\)", (index_run / "reports/infinite_games.md").read_text()))
    assert figures >= 2
    assert (
        len(re.findall(r'<img src="data:image/png', (index_run / "reports/infinite_games.html").read_text())) == figures
    )


def test_index_lists_the_infinite_deals_per_k(index_run, tmp_path):
    text = page(index_run)
    rb = section(text, "redblack")
    deals = sql(index_run, "SELECT k, p1, p2 FROM redblack_infinite ORDER BY k, p1, p2")
    assert deals
    for k, p1, p2 in deals:
        assert f"<td>{p1}</td><td>{p2}</td>" in rb, (k, p1, p2)
    complete = {k for (k,) in sql(index_run, "SELECT DISTINCT k FROM redblack_summary WHERE complete = 'yes'")}
    for k in {d[0] for d in deals}:
        block = re.search(rf'<details class="infinite-k" data-k="{k}"[^>]*><summary>(.*?)</summary>', rb, re.S)
        assert block, k
        assert ("complete" if k in complete else "partial") in block.group(1)
    # what the browser shows: the deals are in the rendered page's text
    probe = tmp_path / "dom.html"
    proc = subprocess.run(
        [
            chromium(),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            (index_run / "reports/index.html").resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    probe.write_text(proc.stdout)
    assert f"{deals[0][1]}</td><td>{deals[0][2]}" in proc.stdout and "Infinite deals by k" in proc.stdout


def test_browser_check_catches_broken_images_and_links(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'; img-src data:\"></head><body>"
        '<img alt="missing" src="missing.png"><img alt="external" src="https://example.invalid/x.png">'
        '<a href="#nowhere">a</a><a href="gone.csv">b</a></body></html>'
    )
    found = problems(browser_check(bad, tmp_path))
    assert "image not rendered: 'missing'" in found and "image not rendered: 'external'" in found
    assert "broken link: #nowhere" in found and "broken link: gone.csv" in found
    assert any(p.startswith("blocked load: img-src") for p in found)


# ----------------------------------------------------------------------------- Snakemake's report


def test_snakemake_report_builds(tiny_copy):
    index_run = tiny_copy  # the report is written into the run (the shared one stays as it was built)
    snakemake(index_run, "--report", "reports/snakemake.html", env_extra=env_of(index_run))
    report = (index_run / "reports/snakemake.html").read_text()
    for name in (
        "index.html",
        "narcotic_passes.png",
        "redblack_lengths.png",
        "blackjack_bust.png",
        "narcotic.csv",
        "infinite_games.csv",
        "blackjack_sim.csv",
        "blackjack_effects.png",
        "blackjack_effects.csv",
        "narcotic.html",
        "infinite_games.html",
        "blackjack.html",
    ):
        assert name in report, name
    captions = Path(index_run / "workflow/report")
    # every registered figure and table has its caption file
    rules = "".join(p.read_text() for p in (index_run / "workflow/rules").glob("*.smk"))
    registered = [f"{f.caption}.rst" for g in GAMES for f in engine(g).report_files if f.caption]
    assert len(registered) >= 8 and all((captions / c).is_file() for c in registered)
    assert not re.search(r'report\(\s*"[^"]+",\s*category=', rules), "a report() output without a caption"


# ----------------------------------------------------------------------------- reruns


@pytest.fixture(scope="module")
def touched(index_run, tmp_path_factory) -> tuple[Path, dict, dict[str, int]]:
    """A copy of the finished tiny run, engines snapshot included (mtimes kept: nothing to do)."""
    wd = tmp_path_factory.mktemp("rerun") / "wd"
    shutil.copytree(index_run, wd, symlinks=True)
    env = env_of(wd)
    assert "Nothing to be done" in snakemake(wd, "-n", "--cores", "1", env_extra=env).stdout
    everything = planned_jobs(snakemake(wd, "-n", "--forceall", "--cores", "1", env_extra=env).stdout)
    return wd, env, everything


@pytest.mark.parametrize("game", GAMES)
def test_editing_one_engine_reruns_its_game_and_the_index(touched, game):
    wd, env, everything = touched  # nothing to do before the edit (each test puts its edit back)
    source = wd / "engines" / game / "engine.py"
    original = source.read_text()
    source.write_text(original + "\n_A_CODE_EDIT = 1\n")  # code: a comment would rerun nothing (test_versions.py)
    try:
        after = planned_jobs(snakemake(wd, "-n", "--cores", "1", env_extra=env).stdout)
    finally:
        source.write_text(original)
    shard_rules = {r for r in everything if re.search(r"_(shard|basin|audit)(_batch\d+)?$", r)}
    own = {r for r in shard_rules if r.startswith(game)}
    # RedBlack's search shards carry an explicit result version (a kept campaign outlives
    # refactors): an edit reruns its second-stage jobs, not its searches
    kept = {r for r in own if r.startswith("redblack_shard")} if game == "redblack" else set()
    assert own - kept and {r: after.get(r) for r in own - kept} == {r: everything[r] for r in own - kept}
    assert not (shard_rules - own) & set(after), f"other games' shards rerun: {after}"
    assert not kept & set(after), f"search shards rerun: {after}"
    assert after.get("warehouse") == 1 and after.get(f"{game}_report") == 1 and after.get("report_index") == 1


# ----------------------------------------------------------------------------- progress

PROGRESS_LINE = r"^{label}: ([\d,]+)/([\d,]+) {unit} \([\d.]+%\), [\d,]+ {unit}/s, elapsed [\d,]+ s, ETA .+$"


def small_shard(game: str, monkeypatch) -> dict:
    """One small shard per game, with the engine's chunk size shrunk so it spans several chunks."""
    mod = engine(game)
    if game == "narcotic":
        import engines.narcotic.kinds.sim as narcotic_sim

        monkeypatch.setattr(narcotic_sim, "CHUNK", 100)
        section = {"experiments": [{"name": "p", "rules": "seed", "games": 450, "shards": 1, "seed": 1}]}
    elif game == "redblack":
        import engines.redblack.kinds.search as search_shards

        monkeypatch.setattr(search_shards, "sample_range", functools.partial(search_shards.sample_range, batch=64))
        section = {
            "exhaustive": {"k_min": 1, "k_max": 1, "deals_per_shard": 1000},
            "basins": False,
            "experiments": [{"name": "p", "k": 26, "deals": 300, "shards": 1, "seed": 1, "balanced": True}],
        }
    else:
        section = {
            "exact": {"decks": [2], "soft17": ["stand"], "peek": ["no"]},
            "experiments": [
                {
                    "name": "p",
                    "shoe": "fresh",
                    "decks": 2,
                    "soft17": "stand",
                    "peek": "no",
                    "hands_per_upcard": 200,
                    "shards": 1,
                    "seed": 1,
                }
            ],
        }
    return [s for s in mod.plan(section) if s["experiment"] == "p"][0]


@pytest.mark.parametrize("game", GAMES)
def test_long_shards_log_progress(game, tmp_path, monkeypatch):
    """A shard's log gets a 'done/total unit, rate, ETA' line per chunk of work once the
    reporting interval has passed (here 0 s instead of 10 s, so every chunk shows)."""
    spec = small_shard(game, monkeypatch)
    monkeypatch.setattr(jobs, "Progress", functools.partial(Progress, every_s=0.0))
    mod = engine(game)
    # the tables this kind of shard writes (a RedBlack search shard writes no basin tables)
    outputs = {t: str(tmp_path / f"{t}.parquet") for t in mod.kind_of(spec).tables}
    log = tmp_path / "shard.log"
    jobs.run_shard(game, spec, outputs, log=str(log))
    label = re.escape(f"{game} {spec['experiment']}/{spec['variant']}/{spec['shard']}")
    pattern = re.compile(PROGRESS_LINE.format(label=label, unit=mod.work_unit), re.M)
    done = [(int(a.replace(",", "")), int(b.replace(",", ""))) for a, b in pattern.findall(log.read_text())]
    assert len(done) >= 3, log.read_text()
    assert [d for d, _ in done] == sorted(d for d, _ in done) and done[-1][0] == done[-1][1] == spec["work"]


# ----------------------------------------------------------------------------- independent checks

KEPT_SECTION = {"exhaustive": {"k_min": 1, "k_max": 5, "deals_per_shard": 100, "method": "owner"}}


@pytest.fixture(scope="module")
def kept_shards(tmp_path_factory) -> tuple[Path, list[str]]:
    """A kept campaign's shards (RedBlack's exhaustive search: a pinned result version), computed in-process."""
    from wfhelp import planned_shards

    root = tmp_path_factory.mktemp("checks")
    return root, planned_shards("redblack", KEPT_SECTION, root)


def checks_section(root: Path, files: list[str]) -> tuple[str, list[tuple]]:
    """The index's "Independent checks" section over a warehouse built from ``files`` and the
    check records under ``root``, and the warehouse's campaign_checks rows."""
    from engines.pipeline.catalog.warehouse import build, connect
    from engines.report.index import build_index

    db = root / "warehouse.duckdb"
    with open(root / "wh.log", "w") as log:
        build(files, db, log=log)
    con = connect(db)
    try:
        build_index(con, root / "index.html", {})
        rows = con.execute(
            "SELECT game, experiment, variant, shards_kept, shards_checked, mismatches FROM campaign_checks"
        ).fetchall()
    finally:
        con.close()
    return section((root / "index.html").read_text(), "checks"), rows


def test_index_says_when_no_kept_campaign_was_checked(kept_shards):
    root, files = kept_shards
    shutil.rmtree(root / "checks", ignore_errors=True)
    text, rows = checks_section(root, files)
    assert rows and all(r[4] == 0 for r in rows)
    assert "Independent checks" in text and "has been recomputed independently yet" in text
    assert "<table" not in text


def test_index_shows_each_checked_campaign_and_its_counts(kept_shards):
    from wfhelp import bound_record

    from engines.core.fmt import MISSING
    from engines.core.layout import check_record_path

    root, files = kept_shards
    shutil.rmtree(root / "checks", ignore_errors=True)
    _, rows = checks_section(root, files)
    game, experiment, variant, kept = rows[0][:4]
    record = Path(check_record_path(game, experiment, variant, str(root)))
    record.parent.mkdir(parents=True)
    mine = [f for f in files if f"/{experiment}/{variant}/" in f]
    record.write_text(json.dumps(bound_record(mine, 0)) + "\n")
    text, rows = checks_section(root, files)
    assert (game, experiment, variant, kept, 1, 0) in rows
    cells = [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td>(.*?)</td>", text)]
    row = cells[cells.index(f"{game} {experiment}/{variant}") :][:7]
    assert row == [f"{game} {experiment}/{variant}", f"{kept:,}", f"1 of {kept:,} matched", MISSING, "2026-12-01"] + [
        "Test CPU (x86_64)",
        "1 min 15 s",
    ]
    assert "cardlab verify --recompute" in text and "color:#c00" not in text
    others = [f"{r[0]} {r[1]}/{r[2]}" for r in rows if r[4] == 0]
    assert cells.count(f"{game} {experiment}/{variant}") == 1 and not any(o in cells for o in others)
    if others:
        assert f"Not recomputed yet: {len(others)} kept campaign" in text and others[-1] in text
    # a mismatch is shown, in red, and the shard no longer counts as matched
    with open(record, "a") as fh:
        fh.write(json.dumps(bound_record(mine, 0, matched=False, date="2026-12-02")) + "\n")
    text, rows = checks_section(root, files)
    assert (game, experiment, variant, kept, 1, 1) in rows
    assert f'0 of {kept:,} matched (2 checks); <b style="color:#c00">1 shard mismatched</b>' in text
    assert "2026-12-01 to 2026-12-02" in text


def test_index_never_counts_a_line_that_is_not_bound_to_the_files_now(kept_shards):
    """An unbound (legacy) line, one for a shard that is not kept, a copy of another shard's line,
    one whose "matched" is the string "false": none counts as matched; each is shown as not counted."""
    from wfhelp import bound_record

    from engines.core.layout import check_record_path

    root, files = kept_shards
    shutil.rmtree(root / "checks", ignore_errors=True)
    _, rows = checks_section(root, files)
    game, experiment, variant, kept = max(rows, key=lambda r: r[3])[:4]
    assert kept > 1, rows
    record = Path(check_record_path(game, experiment, variant, str(root)))
    record.parent.mkdir(parents=True)
    mine = [f for f in files if f"/{experiment}/{variant}/" in f]
    good = bound_record(mine, 0)
    legacy = {k: v for k, v in good.items() if k not in ("files", "recomputed")}
    copied = {**good, "shard": 1}  # shard 0's line copied onto shard 1: its hashes are not shard 1's
    lines = [legacy, {**good, "shard": kept + 5}, {**good, "matched": "false"}, copied]
    record.write_text("".join(json.dumps(x) + "\n" for x in lines) + "not json\n")
    text, rows = checks_section(root, files)
    assert (game, experiment, variant, kept, 0, 0) in rows
    assert f"0 of {kept:,} matched" in text
    assert '<b style="color:#c00">2 stale, 1 orphan, 2 invalid</b>' in text, text
