"""``cardlab sql``, ``cardlab warehouse`` and ``cardlab report``: the commands that read or build the
warehouse.  Their parsers are in :mod:`engines.cli`, which names these handlers as strings, so that
building the command line loads neither DuckDB nor the warehouse."""

from __future__ import annotations

import duckdb

from ..core.errors import CardlabError
from ..core.tabular import print_text_table, write_csv
from ..pipeline.catalog.warehouse import build, connect
from ..registry import GAMES
from ..report.common import build_game


def cmd_sql(args) -> int:
    try:
        statements = duckdb.extract_statements(args.query)
    except duckdb.Error as exc:
        raise CardlabError(f"SQL: {str(exc).splitlines()[0]}") from None
    if not statements:
        raise CardlabError("SQL: no statement to run (the query is empty or only a comment)")
    con = connect(args.db)
    try:
        results = [result for stmt in statements if (result := run_statement(con, stmt)) is not None]
    finally:
        con.close()
    if args.csv and len(results) > 1:
        raise CardlabError(
            f"SQL: {len(results)} statements return rows, and one CSV holds one table: run them one at a time"
        )
    for i, (cols, rows) in enumerate(results):
        if i:
            print()
        (write_csv if args.csv else print_text_table)(cols, rows)
    return 0


def run_statement(con, stmt) -> tuple[list[str], list[tuple]] | None:
    """Columns and rows of one statement (None when it returns none), DuckDB's errors made one clear line."""
    try:
        rel = con.execute(stmt)
        if rel.description is None:
            return None
        return [d[0] for d in rel.description], rel.fetchall()
    except duckdb.Error as exc:
        lines = str(exc).splitlines()
        msg = lines[0]
        # keep DuckDB's own suggestion ("Did you mean "narcotic_summary"?"), on a later line of its message
        hint = next((ln.strip() for ln in lines[1:] if "did you mean" in ln.lower()), None)
        if hint and hint not in msg:
            msg += f" ({hint})"
        if "read-only" in msg.lower() or "read only" in msg.lower():
            msg += " (the warehouse is opened read-only; it is rebuilt by the workflow)"
        elif "disabled by configuration" in msg or "configuration has been locked" in msg:
            msg += " (cardlab sql reads only the warehouse: no files, extensions or settings)"
        raise CardlabError(f"SQL: {msg}") from None


def cmd_warehouse(args) -> int:
    files = list(args.files)
    if args.from_file:
        with open(args.from_file) as fh:
            files += [line.strip() for line in fh if line.strip()]
    build(files, args.out)
    return 0


def cmd_report(args) -> int:
    con = connect(args.db)
    try:
        for game in [args.game] if args.game else GAMES:
            for path in build_game(game, con, args.outdir):
                print(path)
    finally:
        con.close()
    return 0
