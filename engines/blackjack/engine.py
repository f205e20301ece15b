"""The Blackjack engine: the dealer's exact and simulated tables, the cut card's exact law, simulated
shoes and curve; its shard kinds live in ``kinds/`` (``dealer.py``, ``cutcard.py``, ``cutcurve.py``)."""

from __future__ import annotations

from ..interface import Engine, ReportFile
from .depleted import effects_of_removal_table
from .kinds.cutcard import CUT_TABLES, CutcardExact, CutcardSimulation, cutcard_reference_checks
from .kinds.cutcurve import CURVE_TABLES, CutcardCurve
from .kinds.dealer import SHARD_TABLES, ExactTables, Simulation
from .rules import SHOES, UPCARD_VALUE, UPCARDS
from .simulation import simulate, simulate_py

TABLES = {**SHARD_TABLES, **CUT_TABLES, **CURVE_TABLES}


class BlackjackEngine(Engine):
    name = "blackjack"
    title = "Blackjack dealer"
    question = "How likely is the dealer to bust, reach 17–21 or have a natural, by upcard?"
    work_unit = "hands"
    tables = TABLES
    # exact tables first: every simulated table is compared with one
    kinds = (ExactTables(), Simulation(), CutcardExact(), CutcardSimulation(), CutcardCurve())
    tooling_modules = ("cutcard_law.py",)  # `cardlab blackjack cutcard`: the command line's choice of method
    sharded_field = "hands_per_upcard"
    report_files = (
        ReportFile("blackjack.md"),
        ReportFile("blackjack.csv", "blackjack_table"),
        ReportFile("blackjack_sim.csv", "blackjack_sim"),
        ReportFile("blackjack_bust.png", "blackjack_bust"),
        ReportFile("blackjack_effects.csv", "blackjack_effects_csv"),
        ReportFile("blackjack_effects.png", "blackjack_effects"),
        ReportFile("blackjack_cutcard.csv", "blackjack_cutcard_csv"),
        ReportFile("blackjack_cutcard.png", "blackjack_cutcard"),
        ReportFile("blackjack_cutcurve.csv", "blackjack_cutcurve_csv"),
        ReportFile("blackjack_cutcurve.png", "blackjack_cutcurve"),
    )
    figure_basis = {
        "blackjack_bust": (
            "SELECT count(DISTINCT decks) FROM blackjack_exact WHERE soft17 = 'stand' AND peek = 'no'",
            "{0} exact tables, one per shoe size (no sampling error)",
        ),
        "blackjack_effects": (
            "SELECT count(*) FROM blackjack_effects_of_removal WHERE outcome = 'bust' AND soft17 = 'stand' "
            "AND decks IN ('1', '8')",
            "{0} exact changes of the bust probability, one per shoe size, upcard and rank removed (no sampling error)",
        ),
        "blackjack_cutcard": (
            "SELECT count(*), coalesce(sum(shoes), 0), (SELECT count(DISTINCT experiment) FROM blackjack_cutcard) "
            "FROM blackjack_cutcard_sim WHERE round = 0 AND outcome = 'bust'",
            "{0} simulated cut-card settings ({1:,} shoes), {2} of them also exact",
        ),
        "blackjack_cutcurve": (
            "SELECT count(DISTINCT (players, soft17)), count(DISTINCT cut) FROM blackjack_cutcard_curve "
            "WHERE round = 0 AND decks = '1'",
            "{0} exact curves of one deck, {1} cuts each (a forward pass over its compositions: no sampling error)",
        ),
    }

    def reference_checks(self, n: int):
        """Kernel counts against the plain-Python simulator (same seeds, same algorithm) for every upcard."""
        for shoe in SHOES:
            for upcard in UPCARDS:
                args = (99, UPCARD_VALUE[upcard], "2", "hit", shoe, n)
                yield (
                    f"{shoe} upcard {upcard}",
                    [int(c) for c in simulate(*args)],
                    [int(c) for c in simulate_py(*args)],
                )
        yield from cutcard_reference_checks(n)

    def warehouse_tables(self) -> dict:
        """The effects of removal (engines/blackjack/depleted.py): exact, from the rules alone, so a table
        of the warehouse rather than a shard (about 4 CPU-s a build)."""
        return {"blackjack_effects_of_removal": effects_of_removal_table()}

    def tiny_config(self) -> dict:
        return {
            "exact": {"decks": [1, "inf"], "soft17": ["stand"], "peek": ["no"]},
            "experiments": [
                {"name": "fresh2", "shoe": "fresh", "decks": 2, "hands_per_upcard": 300, "shards": 2, "seed": 4},
                {"name": "cont1", "shoe": "continuous", "decks": 1, "hands_per_upcard": 300, "shards": 1, "seed": 5},
            ],
            "cutcard": [
                {"name": "cut3", "decks": 1, "cut": 3, "shoes": 400, "shards": 2, "seed": 6, "exact": True},
                {"name": "half2", "decks": 2, "penetration": 0.5, "players": 4, "shoes": 300, "seed": 7},
            ],
            "cutcurve": [{"name": "curve_half", "decks": 0.5, "players": [0], "soft17": ["stand"]}],
        }
