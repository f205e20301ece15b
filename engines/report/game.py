"""The one shape of a game's report: named queries, the renderers that lay their rows out, the index's part.

A game declares its report as one :class:`GameReport` object, ``REPORT`` in its
``engines/<game>/report`` module or package (or wherever the engine's ``report``
names).  The report step and ``cardlab report`` (:func:`engines.report.common.build_game`)
and the one-page index (:mod:`engines.report.index`) use that object and nothing
else of the game's report code, so every game's report has the same parts:

``queries``  name -> SQL over the warehouse's views: every number of the report comes
             from one of them, as rows with named fields
``writers``  renderers that write the report's files (the Markdown report and its CSV
             tables, the figures) from those rows; their files together are the ones
             the engine declares (``report_files``), checked by ``build_game``
``answer``   the game's answer paragraphs on the index (HTML)
``tables``   the HTML tables of the game's section of the index

The engine keeps ``report_files`` (and ``figure_basis``): the workflow plans a report's
outputs from them without importing report code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

Con = duckdb.DuckDBPyConnection
Writer = Callable[[Con, Path], list[Path]]
"""Writes some of a report's files into a directory; returns their paths, in a fixed order."""


def no_tables(con: Con) -> list[str]:
    return []


@dataclass(frozen=True)
class GameReport:
    """One game's report, declared: see the module."""

    queries: Mapping[str, str]
    writers: tuple[Writer, ...]
    answer: Callable[[Con], list[str]]
    tables: Callable[[Con], list[str]] = no_tables

    def rows(self, con: Con, name: str, params: Sequence | None = None) -> list[dict]:
        """The rows of the named query, as dicts keyed by field name."""
        rel = con.execute(self.queries[name], params) if params is not None else con.execute(self.queries[name])
        cols = [d[0] for d in rel.description]
        return [dict(zip(cols, r)) for r in rel.fetchall()]

    def row(self, con: Con, name: str, params: Sequence | None = None) -> dict:
        """The single row of the named query (empty when it returns nothing)."""
        rows = self.rows(con, name, params)
        return rows[0] if rows else {}

    def build(self, con: Con, outdir: Path) -> list[Path]:
        """Every file of the report, written into ``outdir``: the writers' files, in their order."""
        files: list[Path] = []
        for write in self.writers:
            files += [Path(f) for f in write(con, Path(outdir))]
        return files
