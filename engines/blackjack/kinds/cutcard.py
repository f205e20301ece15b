"""Shard kinds of the cut-card model (:mod:`engines.blackjack.cutcard`): the exact law by DP, and seeded
simulated shoes (the curve over every cut: :mod:`.cutcurve`).

Both kinds form the stage ``cutcard`` and write both of its tables (the one that does not
apply is empty).  ``round`` 1, 2, ... is the round's number within its shoe; ``round`` 0 is
every round of the shoe together (per round dealt).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
import pyarrow as pa

from ...core.errors import CardlabError
from ...core.rng import seed_derivation, shard_seed
from ...core.shards import split_range
from ...kinds import Schedule, ShardKind
from ..cutcard import (
    BLOCK_SHOES,
    MOMENT_ROWS,
    check_cut,
    cut_of,
    max_rounds,
    shoe_of_decks,
    simulate_cutcard,
    simulate_cutcard_py,
)
from ..cutcard_exact import check_exact, exact_rounds
from ..exact import exact_outcomes
from ..rules import OUTCOMES, SOFT17, UPCARD_VALUE, UPCARDS, parse_choice

SETTING = [
    ("experiment", pa.string()),
    ("decks", pa.string()),
    ("soft17", pa.string()),
    ("players", pa.int32()),
    ("cut", pa.int32()),
    ("penetration", pa.float64()),
    ("round", pa.int32()),
    ("outcome", pa.string()),
    ("outcome_order", pa.int32()),
]
FULL_SHOE = [("full_shoe", pa.float64()), ("full_shoe_exact", pa.string())]
CUT_TABLES = {
    "blackjack_cutcard_exact": pa.schema(
        SETTING
        + [
            ("dealt", pa.float64()),
            ("dealt_exact", pa.string()),
            ("probability", pa.float64()),
            ("exact", pa.string()),
        ]
        + FULL_SHOE
    ),
    "blackjack_cutcard_counts": pa.schema(
        SETTING[:1]
        + [("shard", pa.int32())]
        + SETTING[1:]
        + [
            ("shoes", pa.int64()),
            ("rounds", pa.int64()),
            ("count", pa.int64()),
            ("count_sq", pa.int64()),
            ("count_rounds", pa.int64()),
            ("rounds_sq", pa.int64()),
        ]
        + FULL_SHOE
    ),
}


@cache
def full_shoe_law_of(shoe: tuple[int, ...], soft17: str) -> tuple[Fraction, ...]:
    """The dealer's outcome law from a full shoe of any composition, the upcard being whatever it deals
    (upcards the shoe holds none of weigh nothing)."""
    n = sum(shoe)
    law = [Fraction(0)] * len(OUTCOMES)
    for u in UPCARDS:
        v = UPCARD_VALUE[u]
        if shoe[v]:
            for o, p in enumerate(exact_outcomes(shoe, v, soft17)):
                law[o] += Fraction(shoe[v], n) * p
    return tuple(law)


def full_shoe_law(decks: int, soft17: str) -> tuple[Fraction, ...]:
    """The dealer's outcome law from a full shoe of ``decks`` decks: round 1's law."""
    return full_shoe_law_of(shoe_of_decks(decks), soft17)


def fraction_text(f: Fraction) -> str:
    return f"{f.numerator}/{f.denominator}"


def setting_of(exp: Mapping[str, Any], where: str) -> dict:
    """The model's parameters of one configured experiment, checked (a CardlabError naming ``where``)."""
    decks = int(exp["decks"])
    soft17 = parse_choice(f"{where}.soft17", exp.get("soft17", "stand"), SOFT17)
    players = int(exp.get("players", 0))
    if ("cut" in exp) == ("penetration" in exp):
        raise CardlabError(f"{where}: give exactly one of cut (cards) and penetration (fraction of the shoe)")
    cut = int(exp["cut"]) if "cut" in exp else cut_of(decks, float(exp["penetration"]))
    check_cut(shoe_of_decks(decks), cut, players, soft17, where)
    return {"decks": str(decks), "soft17": soft17, "players": players, "cut": cut}


def variant_of(setting: Mapping[str, Any]) -> str:
    return f"decks={setting['decks']}+cut={setting['cut']}+players={setting['players']}+soft17={setting['soft17']}"


def setting_columns(spec: Mapping[str, Any], rnd: int, o: int) -> dict:
    decks = int(spec["decks"])
    law = full_shoe_law(decks, spec["soft17"])
    return {
        "experiment": spec["experiment"],
        "decks": spec["decks"],
        "soft17": spec["soft17"],
        "players": int(spec["players"]),
        "cut": int(spec["cut"]),
        "penetration": int(spec["cut"]) / (52 * decks),
        "round": rnd,
        "outcome": OUTCOMES[o],
        "outcome_order": o,
        "full_shoe": float(law[o]),
        "full_shoe_exact": fraction_text(law[o]),
    }


def empty_cut_tables() -> dict[str, dict]:
    return {table: {name: [] for name in schema.names} for table, schema in CUT_TABLES.items()}


def append_row(cols: dict[str, list], row: Mapping[str, Any]) -> None:
    for name, values in cols.items():
        values.append(row[name])


class CutcardKind(ShardKind):
    """What both cut-card kinds share: their stage and tables, and one batch group."""

    tables = tuple(CUT_TABLES)
    stage = "cutcard"

    def schedule(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> Schedule:
        """All small cut-card shards may share a job: the default config's take ~8 CPU-s together,
        less than nine jobs' start-up."""
        return Schedule(batch_group="cutcard")


def configured(section: Mapping[str, Any]) -> list[tuple[dict, str]]:
    """The cut-card experiments with where each is in the config; a CardlabError for a repeated name."""
    out, seen = [], {}
    for i, exp in enumerate(section.get("cutcard", []) or []):
        where = f"blackjack.cutcard[{i}]"
        if exp["name"] in seen:
            raise CardlabError(f"{where}.name: {exp['name']!r} is already the name of {seen[exp['name']]}")
        seen[exp["name"]] = where
        out.append((exp, where))
    return out


class CutcardExact(CutcardKind):
    """One shard per cut-card experiment with ``exact: true``: the DP of :mod:`.cutcard_exact`."""

    name = "cutexact"
    work_unit = "exact laws"

    def plan(self, section: Mapping[str, Any], planned: Sequence[Mapping[str, Any]]) -> list[dict]:
        specs = []
        for exp, where in configured(section):
            setting = setting_of(exp, where)
            if exp.get("exact", False):
                check_exact(
                    shoe_of_decks(int(setting["decks"])), setting["cut"], setting["players"], setting["soft17"], where
                )
                specs.append(
                    {
                        "experiment": exp["name"],
                        "variant": "exact+" + variant_of(setting),
                        "shard": 0,
                        "kind": self.name,
                        **setting,
                        "range": [0, 1],
                        "work": 1,
                    }
                )
        return specs

    def schedule(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> Schedule:
        return replace(super().schedule(section, spec), price="blackjack/cutexact")

    def run(self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str) -> dict[str, dict]:
        law = exact_rounds(shoe_of_decks(int(spec["decks"])), int(spec["cut"]), int(spec["players"]), spec["soft17"])
        cols = empty_cut_tables()
        exact = cols["blackjack_cutcard_exact"]
        rows = [(0, law["rounds"], law["average"])] + [
            (r + 1, d, probs) for r, (d, probs) in enumerate(zip(law["dealt"], law["outcomes"]))
        ]
        for rnd, dealt, probs in rows:
            for o, p in enumerate(probs):
                row = setting_columns(spec, rnd, o)
                row |= {"dealt": float(dealt), "dealt_exact": fraction_text(dealt)}
                row |= {"probability": float(p), "exact": fraction_text(p)}
                append_row(exact, row)
        progress.update(1)
        return cols


class CutcardSimulation(CutcardKind):
    """Each cut-card experiment's shoes cut into ``shards`` ranges; shoe i uses stream (shard seed, i)."""

    name = "cutsim"
    work_unit = "shoes"

    def plan(self, section: Mapping[str, Any], planned: Sequence[Mapping[str, Any]]) -> list[dict]:
        specs = []
        for exp, where in configured(section):
            setting, name = setting_of(exp, where), exp["name"]
            variant, root = variant_of(setting), int(exp["seed"])
            for shard, (start, stop) in enumerate(split_range(int(exp["shoes"]), int(exp.get("shards", 1)))):
                specs.append(
                    {
                        "experiment": name,
                        "variant": variant,
                        "shard": shard,
                        "kind": self.name,
                        **setting,
                        "range": [start, stop],
                        "work": stop - start,
                        "root_seed": root,
                        "seed": shard_seed(root, self.game, name, variant, shard),
                        "seed_derivation": seed_derivation(root, self.game, name, variant, shard),
                    }
                )
        return specs

    def schedule(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> Schedule:
        units = int(spec["work"]) * int(spec["decks"])
        return replace(super().schedule(section, spec), price="blackjack/cutsim", units=units)

    def expected_rows(self, spec: Mapping[str, Any], table: str) -> int:
        """Rounds 0..max rounds, each outcome; no exact rows."""
        if table != "blackjack_cutcard_counts":
            return 0
        return (max_rounds(int(spec["cut"]), int(spec["players"])) + 1) * len(OUTCOMES)

    def run(self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str) -> dict[str, dict]:
        start, stop = spec["range"]
        shoe = shoe_of_decks(int(spec["decks"]))
        cut, players = int(spec["cut"]), int(spec["players"])
        counts = np.zeros((max_rounds(cut, players), len(OUTCOMES)), np.int64)
        moments = np.zeros((MOMENT_ROWS, 2), np.int64)
        for lo in range(start, stop, BLOCK_SHOES * 16):  # progress every 65,536 shoes
            n = min(stop, lo + BLOCK_SHOES * 16) - lo
            c, m = simulate_cutcard(int(spec["seed"]), shoe, cut, players, spec["soft17"], n, first=lo)
            counts += c
            moments += m
            progress.update(n)
        counts, m = counts.tolist(), moments.tolist()
        cols = empty_cut_tables()
        table = cols["blackjack_cutcard_counts"]
        shoes = stop - start
        per_round = [sum(row) for row in counts]
        for o in range(len(OUTCOMES)):
            row = setting_columns(spec, 0, o) | {"shard": int(spec["shard"]), "shoes": shoes}
            row |= {"rounds": sum(per_round), "count": sum(r[o] for r in counts)}
            row |= {"count_sq": m[o][0], "count_rounds": m[o][1], "rounds_sq": m[-1][0]}
            append_row(table, row)
        for r, row_counts in enumerate(counts):
            for o in range(len(OUTCOMES)):
                row = setting_columns(spec, r + 1, o) | {"shard": int(spec["shard"]), "shoes": shoes}
                row |= {"rounds": per_round[r], "count": row_counts[o]}
                row |= {"count_sq": 0, "count_rounds": 0, "rounds_sq": 0}
                append_row(table, row)
        return cols


def cutcard_reference_checks(n: int) -> Iterator[tuple[str, list, list]]:
    """(label, kernel, reference) for ``n`` shoes of a few settings: counts and moments must be equal."""
    for decks, cut, players, soft17 in ((1, 5, 0, "stand"), (1, 39, 2, "hit"), (6, 234, 6, "stand")):
        args = (98, shoe_of_decks(decks), cut, players, soft17, n)
        counts, moments = simulate_cutcard(*args)
        yield (
            f"cut card {decks} decks, cut {cut}, {players} player cards, {soft17}",
            [counts.tolist(), moments.tolist()],
            list(simulate_cutcard_py(*args)),
        )
