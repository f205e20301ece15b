"""Blackjack report: exact dealer-outcome tables, simulations against them, the effect of
the rules on the bust probability and the effects of removal, all from SQL over the warehouse.

``REPORT`` declares it (:class:`engines.report.game.GameReport`): the named queries
(:mod:`.queries`), the writers of ``blackjack.md``, ``blackjack.csv``, ``blackjack_sim.csv`` and
``blackjack_effects.csv`` (:mod:`.markdown`) and of ``blackjack_bust.png`` and ``blackjack_effects.png``
(:mod:`.figures`), and the index's answer and tables (:mod:`.index`); :mod:`.labels` holds the labels
they share."""

from __future__ import annotations

from ...report.game import GameReport
from .figures import write_figures
from .index import answer, tables
from .markdown import write_markdown
from .queries import QUERIES

REPORT = GameReport(queries=QUERIES, writers=(write_markdown, write_figures), answer=answer, tables=tables)
