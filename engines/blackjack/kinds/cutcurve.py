"""The cut-card curve's shard kind: the forward pass over compositions, every cut of a shoe at once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from ...core.errors import CardlabError
from ...kinds import Resources, ShardKind
from ..cutcard import shoe_of_decks
from ..cutcard_curve import cut_curve
from ..rules import OUTCOMES, SOFT17, parse_choice
from .cutcard import FULL_SHOE, SETTING, append_row, fraction_text, full_shoe_law_of

# The forward pass over compositions (engines/blackjack/cutcard_curve.py): every cut of a shoe at once.
# Its shards carry this explicit version (a faster pass or a refactor keeps kept curves); a change of
# what the curve is (the model, the columns) must bump it: tests/blackjack/test_cutcard_curve.py pins it.
CURVE_RESULT_VERSION = "blackjack-cutcurve-1"
CURVE_TABLES = {
    "blackjack_cutcard_curve": pa.schema(
        SETTING
        + [
            ("dealt", pa.float64()),  # round 0: rounds a shoe on average; round r: P(round r is dealt)
            ("probability", pa.float64()),  # P(outcome | a round dealt), or of round r
            ("relative_error", pa.float64()),  # float64 bound of the pass on this shoe
        ]
        + FULL_SHOE
    )
}
CURVE_DECKS = ("0.5", "1")  # a half deck (2 of each rank) for small runs and tests; one deck


def curve_shoe(decks: str) -> tuple[int, ...]:
    """Counts per value (index 0..10) of the curve's shoe: one deck, or half of one (2 of each rank)."""
    return shoe_of_decks(1) if decks == "1" else (0,) + (2,) * 9 + (8,)


def curve_settings(section: Mapping[str, Any]) -> list[tuple[dict, dict]]:
    """(entry, setting) for every players count and soft-17 rule of every ``cutcurve`` entry."""
    out, seen = [], {name["name"]: "blackjack.cutcard" for name in section.get("cutcard", []) or []}
    for i, exp in enumerate(section.get("cutcurve", []) or []):
        where = f"blackjack.cutcurve[{i}]"
        if exp["name"] in seen:
            raise CardlabError(
                f"{where}.name: {exp['name']!r} is already the name of an experiment in {seen[exp['name']]}"
            )
        seen[exp["name"]] = where
        decks = str(exp.get("decks", 1))
        if decks not in CURVE_DECKS:
            raise CardlabError(
                f"{where}.decks: the pass over compositions takes one deck or half of one (0.5), not {decks}: two "
                'decks have 1.28e10 compositions (docs/blackjack.md, "The cut card at every depth")'
            )
        for players in exp.get("players", [0]):
            for soft17 in exp.get("soft17", ["stand"]):
                setting = {"decks": decks, "soft17": parse_choice(f"{where}.soft17", soft17, SOFT17)}
                setting |= {"players": int(players), "rounds": bool(exp.get("rounds", True))}
                out.append((exp, setting))
    return out


class CutcardCurve(ShardKind):
    """One shard per ``cutcurve`` entry, players count and soft-17 rule: the forward pass, every cut."""

    name = "cutcurve"
    stage = "cutcurve"
    tables = tuple(CURVE_TABLES)
    work_unit = "curves"
    result_version = CURVE_RESULT_VERSION
    resources = Resources(runtime_min=60, mem_mb=6000)

    def plan(self, section: Mapping[str, Any], planned: Sequence[Mapping[str, Any]]) -> list[dict]:
        specs = []
        for exp, setting in curve_settings(section):
            variant = f"decks={setting['decks']}+players={setting['players']}+soft17={setting['soft17']}"
            specs.append(
                {"experiment": exp["name"], "variant": variant, "shard": 0, "kind": self.name, **setting,
                 "range": [0, 1], "work": 1}
            )  # fmt: skip
        return specs

    def run(self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str) -> dict[str, dict]:
        shoe = curve_shoe(spec["decks"])
        curve = cut_curve(shoe, int(spec["players"]), spec["soft17"], layered=bool(spec["rounds"]))
        law = full_shoe_law_of(shoe, spec["soft17"])
        cols = {name: [] for name in CURVE_TABLES["blackjack_cutcard_curve"].names}
        bound = curve.relative_error
        for cut in range(1, curve.max_cut + 1):
            rows = [(0, curve.rounds(cut), curve.average(cut))]
            if spec["rounds"]:
                rows += [(r + 1, dealt, probs) for r, (dealt, probs) in enumerate(curve.per_round(cut))]
            for rnd, dealt, probs in rows:
                for o, p in enumerate(probs):
                    row = {"experiment": spec["experiment"], "decks": spec["decks"], "soft17": spec["soft17"]}
                    row |= {"players": int(spec["players"]), "cut": cut, "penetration": cut / sum(shoe)}
                    row |= {"round": rnd, "outcome": OUTCOMES[o], "outcome_order": o, "dealt": float(dealt)}
                    row |= {"probability": float(p), "relative_error": bound}
                    row |= {"full_shoe": float(law[o]), "full_shoe_exact": fraction_text(law[o])}
                    append_row(cols, row)
        progress.update(1)
        return {"blackjack_cutcard_curve": cols}
