"""The RedBlack pages agree with the warehouse: reports/index.html and infinite_games.md built
from one warehouse, every headline number checked against SQL over its tables."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pytest
from wfhelp import ROOT, shards_warehouse

from engines.interface import report_outputs_of
from engines.pipeline.catalog.warehouse import connect
from engines.redblack.report import queries as q
from engines.redblack.report.published import published_verdict
from engines.registry import engine
from engines.report.common import build_game
from engines.report.index import build_index

# Complete sizes, a sampled full deck, the published list audited (sizes 21..23 and 26 known
# only from the audit and its basins), basins of the cycles found.
SECTION = {
    "exhaustive": [
        {"k_min": 1, "k_max": 6, "method": "brute", "deals_per_shard": 1000},
        {"k": [8], "method": "owner", "deals_per_shard": 5000},
    ],
    "audit": [{"name": "published", "file": str(ROOT / "workflow/data/redblack/published_infinite.txt")}],
    "basins": True,
    "experiments": [{"name": "sample26", "k": 26, "deals": 300, "shards": 1, "seed": 13, "balanced": True}],
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("rbnumbers")
    db = shards_warehouse("redblack", SECTION, root)
    out = root / "reports"
    con = connect(db)
    try:
        files = build_game("redblack", con, out)
        build_index(
            con, out / "index.html", {"redblack": [out / f.name for f in report_outputs_of(engine("redblack"))]}
        )
        yield con, (out / "infinite_games.md").read_text(), (out / "index.html").read_text(), files
    finally:
        con.close()


def sql(con, q: str):
    return con.execute(q).fetchall()


def prose(md: str) -> str:
    """The Markdown's sentences: code blocks and table rows left out."""
    text = re.sub(r"```.*?```", "", md, flags=re.S)
    return "\n".join(line for line in text.splitlines() if not line.startswith("|"))


def test_headline_numbers_agree_with_sql(built):
    con, md, page, _ = built
    infinite, cycles = sql(con, "SELECT count(*), count(DISTINCT cycle_id) FROM redblack_infinite")[0]
    assert infinite > 0
    assert f"Known infinite balanced deals: {infinite:,} canonical ({2 * infinite:,} counting colour swaps)" in md
    assert f"<b>{infinite:,}</b> canonical deals ({2 * infinite:,} counting colour swaps)" in page
    assert f"in {cycles:,} cycles." in md and f"falling into {cycles:,} cycles." in page
    # the complete sizes' deals: canonical deals of each size whose ranks were all searched
    (complete,) = sql(
        con,
        "SELECT sum(space) FROM (SELECT k, any_value(space) AS space FROM redblack_counts "
        "WHERE method = 'exhaustive' GROUP BY k HAVING sum(range_stop - range_start) = any_value(space))",
    )[0]
    assert f"k = 1..6, 8 ({complete:,} deals): those lists are **complete**" in md
    assert f"complete for k = 1..6, 8 (every one of their {complete:,} canonical deals" in page


def test_every_cycle_is_counted_and_listed(built):
    con, md, page, files = built
    (known,) = sql(
        con,
        "SELECT count(DISTINCT cycle_id) FROM (SELECT cycle_id FROM redblack_found UNION ALL "
        "SELECT cycle_id FROM redblack_basins UNION ALL SELECT cycle_id FROM redblack_audit "
        "WHERE status IN ('listed-infinite', 'missing'))",
    )[0]
    csv_rows = (Path(files[0]).parent / "redblack_cycles.csv").read_text().splitlines()[1:]
    assert len(csv_rows) == known
    audited = {k for (k,) in sql(con, "SELECT DISTINCT k FROM redblack_audit WHERE status = 'missing'")}
    assert audited & {21, 22, 23, 26}  # sizes known only from the audit
    assert audited <= {int(r.split(",")[0]) for r in csv_rows}
    section = md[md.index("## Cycles") : md.index("## Summary by method")]
    assert f"{known:,} cycles are known" in section


def test_each_size_has_its_numbers(built):
    con, md, page, _ = built
    by_size = md[md.index("## By size") : md.index("## Infinite deals")]
    for k, n, basins in sql(
        con,
        "SELECT k, count(*), count(*) FILTER (WHERE found_by IN ('basin', 'audit basin')) "
        "FROM redblack_infinite GROUP BY k ORDER BY k",
    ):
        assert re.search(rf"^### k = {k}: {n:,} canonical, {2 * n:,} in all \(", md, re.M), k
        row = re.search(rf"^\| {k} \| (.*) \|$", by_size, re.M)
        assert row, k
        cells = row.group(1).split(" | ")
        assert cells[3] == f"{n:,}" and cells[6] == f"{basins:,}", (k, cells)
        assert f'data-k="{k}"' in page
    assert not re.search(r"^### k = \d+: –", md, re.M)


def test_full_deck_deals_are_attributed(built):
    con, md, page, _ = built
    counts = dict(sql(con, "SELECT found_by, count(*) FROM redblack_infinite WHERE k = 26 GROUP BY ALL"))
    n = sum(counts.values())
    assert counts.get("audit") and counts.get("audit basin")
    assert f"**{n:,} infinite full-deck deals are known** ({2 * n:,} counting colour swaps): " in md
    assert f"{counts['audit']:,} from the audited list, replayed here" in md
    assert f"{counts['audit basin']:,} in the basins of the listed deals' cycles, missing from the list" in md
    assert f"{n:,} infinite deals are known</b>" in page
    table = md[md.index("## The full deck") : md.index("## The published record")]
    assert table.count("| basin of a listed deal's cycle |") == counts["audit basin"]


def test_the_text_reads(built):
    con, md, page, _ = built
    answers = page[page.index('id="answers"') : page.index('<section id="redblack"')]
    for text in (prose(md), answers):
        assert not re.search(r"(?<![\d.,])1 (deals|rounds|cycles|sizes|ones)\b", text), text
        assert "(s)" not in text
        assert not re.search(r"(?<![\d,.\w])\d{5,}(?![\d,])", text), re.findall(r"\d{5,}", text)
    assert not re.search(r"<td>1 (deals|games|hands)</td>", page)  # provenance: one unit of work
    # ranges are half-open everywhere, with separators
    assert not re.search(r"\[\d[\d,]*, \d[\d,]*\]", page)
    assert "<td>[5,000, 6,435)</td>" in page  # k = 8's second shard
    # every table scrolls in its own box
    assert page.count("<table>") == page.count('<div class="scroll"><table>') > 0


def test_no_rate_from_a_time_too_short(built):
    con, md, page, _ = built
    (timed,) = sql(con, "SELECT coalesce(sum(cpu_s), 0) FROM shard_timings WHERE game = 'redblack'")[0]
    rates = sql(con, "SELECT cpu_s_per_round FROM redblack_coverage WHERE cpu_s_per_round IS NOT NULL")
    if timed < 1:
        assert rates == [] and "ns of CPU per round" not in md


def test_complete_sizes_are_set_beside_the_published_list(built, tmp_path):
    """k = 1..6 and 8 are searched completely; the published list has 21 deals at k = 6 in 2 cycles: the
    report's table and verdict agree with SQL, and a cycle no listed deal reaches would be named as new.
    Partial sizes appear where a search proved a deal (the sampled full deck), with no verdict on what
    the partial search has not reached."""
    con, md, _, _ = built
    rows = sql(
        con,
        "SELECT k, complete, search_infinite, listed, confirmed, listed_finite, listed_not_found, missed, cycles, "
        "new_cycles FROM redblack_published_check ORDER BY k",
    )
    complete = [r for r in rows if r[1]]
    assert [r[0] for r in complete] == [1, 2, 3, 4, 5, 6, 8]
    assert complete[5] == (6, True, 21, 21, 21, 0, 0, 0, 2, 0)
    assert all(r[2:] == (0,) * 8 for r in complete if r[0] != 6)
    proved = dict(
        sql(
            con,
            "SELECT k, count(*) FROM redblack_infinite WHERE found_by IN ('exhaustive', 'sample', 'basin') GROUP BY k",
        )
    )
    assert {r[0] for r in rows if not r[1]} == set(proved) - {1, 2, 3, 4, 5, 6, 8}
    assert all(r[6] is None for r in rows if not r[1])  # not proved by a partial search: no verdict
    section = md[md.index("## The searches against the published list") : md.index("## Exhaustive coverage")]
    assert "| 6 | complete | 21 | 21 | 21 | 0 | 0 | 0 | 2 | 0 |" in section
    assert "k = 1–5, 8: neither lists an infinite deal (searched completely)." in section
    assert "no new cycle. On every complete size the two lists are the same deals." in section
    # the list without the deals of one of its two cycles: that cycle is new, its deals missed
    (db,) = sql(con, "SELECT path FROM duckdb_databases() WHERE database_name = current_database()")[0]
    shutil.copy(db, tmp_path / "copy.duckdb")
    copy = duckdb.connect(str(tmp_path / "copy.duckdb"))
    try:
        cycle, n = sql(copy, "SELECT cycle_id, count(*) FROM redblack_audit WHERE k = 6 GROUP BY 1 ORDER BY 1 LIMIT 1")[
            0
        ]
        copy.execute("DELETE FROM redblack_audit WHERE cycle_id = ?", [cycle])
        row = sql(
            copy,
            "SELECT listed, missed, new_cycles, new_cycle_ids, new_cycle_deals FROM redblack_published_check WHERE k = 6",
        )
        assert row == [(21 - n, n, 1, cycle, n)]
        text = published_verdict(q.published_checks(copy))
        assert f"k = 6: `{cycle}`. Of the deals the publication misses, {n} lie in its basin" in text
    finally:
        copy.close()


def test_the_published_verdict_names_what_differs():
    row = dict.fromkeys(("search_infinite", "listed", "confirmed", "listed_finite", "listed_not_found"), 0)
    row |= {"experiment": "audit_published", "missed": 0, "cycles": 0, "new_cycles": 0, "new_cycle_ids": ""}
    row |= {"complete": True}
    same = [row | {"k": k} for k in (1, 2, 3, 5)]
    assert published_verdict(same) == (
        "k = 1–3, 5: neither lists an infinite deal (searched completely). Every cycle the searches have met is "
        "reached by a published deal: no new cycle. On every complete size the two lists are the same deals."
    )
    missed = row | {"k": 22, "search_infinite": 125, "listed": 117, "confirmed": 117, "missed": 8, "cycles": 1}
    assert published_verdict([missed]) == (
        "The publication misses 8 deals (8 at k = 22). Every cycle the searches have met is reached by a "
        "published deal: no new cycle."
    )
    new = row | {"k": 22, "complete": False, "search_infinite": 1, "listed": 117, "confirmed": 0, "missed": 1}
    new |= {"cycles": 1, "new_cycles": 1, "new_cycle_ids": "01/0011", "new_cycle_deals": 1, "listed_not_found": None}
    text = published_verdict([new])
    assert text.startswith("The publication misses 1 deal (1 at k = 22, so far). **New: 1 cycle no published deal")
    assert "k = 22: `01/0011`. Of the deals the publication misses, 1 lies in its basin, where the audit" in text
    assert "Disagreement" not in text  # a partial search proves nothing missing
    two = new | {"search_infinite": 3, "missed": 3, "cycles": 2, "new_cycles": 2, "new_cycle_ids": "01/0011 01/0101"}
    assert "Of the deals the publication misses, 3 lie in their basins," in published_verdict(
        [two | {"new_cycle_deals": 3}]
    )
    wrong = missed | {"confirmed": 116, "listed_finite": 1, "missed": 9}
    assert "**Disagreement** (k = 22: 1 finite, 0 not proved by the complete search)" in published_verdict([wrong])
