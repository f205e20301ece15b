"""An in-memory Narcotic warehouse for tests of the views and the report, and a shard computed
as its job would compute it."""

from __future__ import annotations

import duckdb
import pyarrow as pa

from engines.core.progress import Progress
from engines.interface import views_sql
from engines.registry import engine

NARCOTIC = engine("narcotic")


def run(spec: dict) -> dict[str, dict]:
    """A shard's tables, computed in the test process."""
    return NARCOTIC.kind_of(spec).compute(spec, Progress(1, "games", enabled=False), [])


def tiny_warehouse(shards: list[dict[str, dict]]) -> duckdb.DuckDBPyConnection:
    """An in-memory warehouse of the engine's tables (empty but for the given shards) and its views."""
    con = duckdb.connect()
    for name, schema in NARCOTIC.tables.items():
        parts = [pa.table(s[name], schema=schema) for s in shards if name in s] or [schema.empty_table()]
        con.register(name, pa.concat_tables(parts))
    for name, table in NARCOTIC.warehouse_tables().items():
        con.register(name, table)
    for stmt in views_sql(NARCOTIC):
        con.execute(stmt)
    return con
