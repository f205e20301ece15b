"""Blackjack report: exact dealer-outcome tables, simulations against them, the effect of
the rules on the bust probability and the effects of removal, all from SQL over the warehouse.

``REPORT`` declares it (:class:`engines.report.game.GameReport`): the named queries
(:mod:`.queries`), the writers of ``blackjack.md``, ``blackjack.csv``, ``blackjack_sim.csv`` and
``blackjack_effects.csv`` (:mod:`.markdown`) and of ``blackjack_bust.png`` and ``blackjack_effects.png``
(:mod:`.figures`), the cut-card part (:mod:`.cutcard`: its section, ``blackjack_cutcard.csv`` and
``blackjack_cutcard.png``), and the index's answer and tables (:mod:`.index`); :mod:`.labels` holds the labels
they share."""

from __future__ import annotations

from ...report.game import GameReport
from .cutcard import CUT_QUERIES, write_cutcard
from .figures import write_figures
from .index import answer, tables
from .markdown import write_markdown
from .queries import QUERIES

REPORT = GameReport(
    queries=QUERIES | CUT_QUERIES, writers=(write_markdown, write_figures, write_cutcard), answer=answer, tables=tables
)
