"""Blackjack report: exact dealer-outcome tables, simulations against them, and the
effect of the rules on the bust probability, all from SQL over the warehouse.

``REPORT`` declares it (:class:`engines.report.game.GameReport`): the named queries
(:mod:`.queries`), the writers of ``blackjack.md``, ``blackjack.csv`` and ``blackjack_sim.csv``
(:mod:`.markdown`) and of ``blackjack_bust.png`` (:mod:`.figures`), and the index's answer and
tables (:mod:`.index`); :mod:`.labels` holds the labels they share."""

from __future__ import annotations

from ...report.game import GameReport
from .figures import write_figures
from .index import answer, tables
from .markdown import write_markdown
from .queries import QUERIES

REPORT = GameReport(queries=QUERIES, writers=(write_markdown, write_figures), answer=answer, tables=tables)
