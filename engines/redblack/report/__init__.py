"""RedBlack report: the infinite-games list per size k, the cycles, and the figures.

``REPORT`` declares it (:class:`engines.report.game.GameReport`): its writers write the files
the engine declares (``infinite_games.md`` / ``.csv``, ``redblack_cycles.csv`` from
:mod:`.markdown`; ``redblack_infinite_share.png``, ``redblack_lengths.png``,
``redblack_cost_windows.png`` from :mod:`.figures`); ``answer`` and ``tables`` (:mod:`.index`)
give the index's section.  Every number comes from the query layer (:mod:`.queries`, rows
with named fields over the views of ``engines/redblack/views.sql``); the other modules only
lay them out (:mod:`.published` the checks against the published lists).
"""

from __future__ import annotations

from ...report.game import GameReport
from .figures import write_figures
from .index import answer, tables
from .markdown import write_markdown
from .queries import QUERIES

REPORT = GameReport(queries=QUERIES, writers=(write_markdown, write_figures), answer=answer, tables=tables)
