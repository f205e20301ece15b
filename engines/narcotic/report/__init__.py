"""Narcotic report: win probability and time to finish, from SQL over the warehouse.

``REPORT`` declares it (:class:`engines.report.game.GameReport`): the named queries
(:mod:`.queries`, rows with named fields), the writers of ``narcotic.md`` and ``narcotic.csv``
(:mod:`.markdown`, with :mod:`.decks` for the small decks and :mod:`.claims` for the published
claims) and of ``narcotic_passes.png``, ``narcotic_rules.png`` and ``narcotic_decks.png``
(:mod:`.figures`), and the index's answer and tables (:mod:`.index`); :mod:`.labels` holds the
labels and cells they share."""

from __future__ import annotations

from ...report.game import GameReport
from .figures import write_figures
from .index import answer, tables
from .markdown import write_markdown
from .queries import QUERIES

REPORT = GameReport(queries=QUERIES, writers=(write_markdown, write_figures), answer=answer, tables=tables)
