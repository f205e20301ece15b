"""What a querying user meets in the warehouse: every table and view named in docs/warehouse.md with
its columns, deck counts that compare and sort as numbers, no reserved word for a column, and
RedBlack's deals counted once a size.

docs/warehouse.md's list of every table and view with its columns is generated from a built
catalog and must equal what this module renders from the tiny one; after a change of a table or a
view, ``python tests/test_warehouse_columns.py --write [results/warehouse.duckdb]`` rewrites it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parent.parent
WAREHOUSE_MD = ROOT / "docs" / "warehouse.md"
BEGIN = (
    "<!-- columns: generated from a built catalog by `python tests/test_warehouse_columns.py --write`; "
    "do not edit by hand -->"
)
END = "<!-- /columns -->"
CREATED = re.compile(r"CREATE (?:OR REPLACE )?(?:VIEW|TABLE|MACRO) (\w+)")

RELATIONS_SQL = """
SELECT t.table_name, t.table_type = 'VIEW' AS is_view,
       string_agg(c.column_name || ' ' || c.data_type, ', ' ORDER BY c.ordinal_position) AS columns
FROM information_schema.tables t JOIN information_schema.columns c USING (table_schema, table_name)
WHERE t.table_schema = 'main'
GROUP BY ALL ORDER BY t.table_name
"""


def rendered(con: duckdb.DuckDBPyConnection) -> str:
    """The doc's block: one line a table or view, its columns with their types, in order."""
    lines = [
        f"- `{name}` ({'view' if is_view else 'table'}): {columns}"
        for name, is_view, columns in con.sql(RELATIONS_SQL).fetchall()
    ]
    return "\n".join([BEGIN, "", *lines, "", END])


def documented() -> str:
    text = WAREHOUSE_MD.read_text()
    assert BEGIN in text and END in text, f"docs/warehouse.md lacks the generated block ({BEGIN})"
    return text[text.index(BEGIN) : text.index(END) + len(END)]


def write(catalog: Path) -> None:
    with duckdb.connect(str(catalog), read_only=True) as con:
        block = rendered(con)
    text = WAREHOUSE_MD.read_text()
    WAREHOUSE_MD.write_text(text.replace(documented(), block))


@pytest.fixture(scope="module")
def con(tiny_pipeline):
    with duckdb.connect(str(tiny_pipeline / "results/warehouse.duckdb"), read_only=True) as c:
        yield c


def test_every_table_and_view_is_documented_with_its_columns(con):
    want, have = rendered(con).splitlines(), documented().splitlines()
    missing = [line for line in want if line not in have]
    stale = [line for line in have if line not in want]
    assert not missing and not stale, (
        "docs/warehouse.md's columns differ from the catalog's; run "
        "`python tests/test_warehouse_columns.py --write` (after `snakemake --cores all`) and describe what is new.\n"
        "missing or changed:\n" + "\n".join(missing) + "\nno longer so:\n" + "\n".join(stale)
    )


def test_every_table_and_view_is_described_in_the_prose(con):
    """Beyond the generated list, the doc says what each one holds (or points to the game's doc that does)."""
    text = WAREHOUSE_MD.read_text().replace(documented(), "")
    names = [name for name, _, _ in con.sql(RELATIONS_SQL).fetchall()]
    assert [n for n in names if f"`{n}`" not in text] == []


def test_deck_counts_compare_and_sort_as_numbers(con):
    """The first natural query: `WHERE decks = 6`, `ORDER BY decks` with the infinite shoe last."""
    decks = [d for (d,) in con.sql("SELECT DISTINCT decks FROM blackjack_exact ORDER BY decks").fetchall()]
    assert decks == [1.0, 2.0, float("inf")]
    assert scalar(con, "SELECT count(*) FROM blackjack_exact WHERE decks = 6") == 0
    assert scalar(con, "SELECT count(*) FROM blackjack_exact WHERE decks = 2") > 0
    assert scalar(con, "SELECT count(*) FROM blackjack_exact WHERE decks = 'inf'::DOUBLE") > 0
    typed = con.sql(
        "SELECT table_name, data_type FROM information_schema.columns "
        "WHERE column_name = 'decks' AND table_name LIKE 'blackjack%'"
    ).fetchall()
    assert typed and {t for _, t in typed} == {"DOUBLE"}, typed


def test_no_column_is_a_reserved_word(con):
    """A reserved word as a column name has to be quoted in every query that names it."""
    reserved = {
        w
        for (w,) in con.sql("SELECT keyword_name FROM duckdb_keywords() WHERE keyword_category = 'reserved'").fetchall()
    }
    cols = con.sql("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'main'")
    assert [(t, c) for t, c in cols.fetchall() if c.lower() in reserved] == []


def test_redblack_counts_each_deal_once_a_size(con):
    """redblack_counts_by_size: each size's exhaustive total, and a cost window over ranks a campaign
    shard searched too adds no deal (a plain sum over redblack_counts would count them twice)."""
    by_size = dict(con.sql("SELECT k, deals FROM redblack_counts_by_size").fetchall())
    exhaustive = dict(
        con.sql(
            "SELECT k, sum(deals) FROM redblack_counts WHERE method = 'exhaustive' "
            "AND experiment = printf('exhaustive_k%02d', k) GROUP BY k"
        ).fetchall()
    )
    assert by_size == exhaustive and by_size
    canonical = dict(
        con.sql("SELECT k, any_value(space) FROM redblack_counts WHERE method = 'exhaustive' GROUP BY k").fetchall()
    )
    assert by_size == canonical  # the tiny build searches every size it names completely

    # the same catalog with a cost window of k = 8 inside the ranks its shard searched
    mem = duckdb.connect()
    mem.register("counts_in", con.sql("SELECT * FROM redblack_counts").arrow())
    mem.execute("CREATE TABLE redblack_counts AS SELECT * FROM counts_in")
    mem.execute(
        "INSERT INTO redblack_counts SELECT * REPLACE ('exhaustive_k08_windows' AS experiment, 100 AS range_start, "
        "200 AS range_stop, 100 AS deals) FROM redblack_counts WHERE k = 8 LIMIT 1"
    )
    for stmt in redblack_statements("redblack_merged_ranges", "redblack_searched_ranges", "redblack_counts_by_size"):
        mem.execute(stmt)
    assert dict(mem.sql("SELECT k, deals FROM redblack_counts_by_size").fetchall()) == by_size
    assert scalar(mem, "SELECT sum(deals) FROM redblack_counts WHERE k = 8") == by_size[8] + 100


def scalar(con: duckdb.DuckDBPyConnection, sql: str):
    """The one value of a query (fetchall: DuckDB 2 holds the connection until a result is drained)."""
    ((value,),) = con.execute(sql).fetchall()
    return value


def redblack_statements(*names: str) -> list[str]:
    """The statements of engines/redblack/views.sql creating ``names``, in the file's order."""
    from engines.interface import views_sql
    from engines.registry import engine

    return [s for s in views_sql(engine("redblack")) if (m := CREATED.match(s)) and m.group(1) in names]


if __name__ == "__main__":
    if sys.argv[1:2] != ["--write"]:
        sys.exit("usage: python tests/test_warehouse_columns.py --write [CATALOG]")
    write(Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "results/warehouse.duckdb")
