"""RedBlack report: the infinite-games list per size k, the cycles, and two figures.

``build(con, outdir)`` writes the files the engine declares (``infinite_games.md`` /
``.csv``, ``redblack_cycles.csv``, ``redblack_infinite_share.png``,
``redblack_lengths.png``); ``answer(con)`` and ``tables(con)`` give the index's
section.  Every number comes from the query layer (:mod:`.queries`, rows with named
fields over the views of ``engines/redblack/views.sql``); the other modules only lay
them out: :mod:`.markdown` the Markdown report, :mod:`.index` the index's HTML,
:mod:`.figures` the figures.
"""

from __future__ import annotations

from .index import answer, tables
from .markdown import build

__all__ = ["answer", "build", "tables"]
