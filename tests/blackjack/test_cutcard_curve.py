"""The cut card at every depth (engines/blackjack/cutcard_curve.py): the forward pass over compositions
against the exact fractions of the layered DP (engines/blackjack/cutcard_exact.py) at every cut those
reach, against the full shoe's law at cut 1, and against the seeded simulation of the same model."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.blackjack.cutcard import max_dealer_cards, simulate_cutcard
from engines.blackjack.cutcard_curve import cut_curve
from engines.blackjack.cutcard_exact import exact_rounds
from engines.blackjack.cutcard_law import fractions_reach
from engines.blackjack.kinds.cutcard import full_shoe_law_of
from engines.blackjack.kinds.cutcurve import CURVE_RESULT_VERSION, curve_shoe
from engines.core.errors import CardlabError

HALF = curve_shoe("0.5")  # 26 cards: two of each rank
AGREE = 1e-12  # measured: about 1e-13 (the bound the pass states is looser: cutcard_curve.relative_error)


def exact_cuts(shoe, players: int, soft17: str, most: int):
    for cut in range(1, most + 1):
        if not fractions_reach(shoe, cut, players, soft17):
            return
        yield cut


def assert_agrees(curve, shoe, players, soft17, most: int | None = None):
    cuts = list(exact_cuts(shoe, players, soft17, most or curve.max_cut))
    assert cuts, "no cut to compare"
    for cut in cuts:
        law = exact_rounds(shoe, cut, players, soft17)
        np.testing.assert_allclose(curve.average(cut), [float(x) for x in law["average"]], rtol=AGREE, atol=1e-15)
        assert math.isclose(curve.rounds(cut), float(law["rounds"]), rel_tol=AGREE)
        per_round = curve.per_round(cut)
        assert len(per_round) == len(law["dealt"])
        for (dealt, probs), d, row in zip(per_round, law["dealt"], law["outcomes"]):
            assert math.isclose(dealt, float(d), rel_tol=AGREE)
            np.testing.assert_allclose(probs, [float(x) for x in row], rtol=1e-11, atol=1e-15)
    return cuts


SETTINGS = [(p, s) for p in (0, 1, 2) for s in ("stand", "hit")]


@pytest.mark.parametrize("players,soft17", SETTINGS)
def test_the_pass_equals_the_exact_fractions_at_shallow_cuts(players, soft17):
    """Cuts 1..6 of every setting here; every cut the exact DP reaches below (for one, and all in -m slow)."""
    curve = cut_curve(HALF, players, soft17, layered=True)
    cuts = assert_agrees(curve, HALF, players, soft17, most=6)
    assert curve.max_cut == sum(HALF) - players - max_dealer_cards(HALF, soft17) + 1 > cuts[-1] == 6


@pytest.mark.parametrize(
    "players,soft17", [pytest.param(*s, marks=[] if s == (0, "stand") else pytest.mark.slow) for s in SETTINGS]
)
def test_the_pass_equals_the_exact_fractions_at_every_cut_they_reach(players, soft17):
    curve = cut_curve(HALF, players, soft17, layered=True)
    cuts = assert_agrees(curve, HALF, players, soft17)
    assert len(cuts) >= 10 - 2 * players


@pytest.mark.parametrize("soft17", ["stand", "hit"])
def test_cut_one_is_the_full_shoe(soft17):
    """Every round of a shoe cut after one card is its first: the full shoe's law, to float64."""
    curve = cut_curve(HALF, 0, soft17)
    assert curve.rounds(1) == 1.0
    np.testing.assert_allclose(curve.average(1), [float(x) for x in full_shoe_law_of(HALF, soft17)], rtol=1e-13)


def test_the_unlayered_pass_gives_the_same_averages():
    layered, plain = cut_curve(HALF, 0, "stand", layered=True), cut_curve(HALF, 0, "stand")
    for cut in range(1, plain.max_cut + 1):
        np.testing.assert_allclose(plain.average(cut), layered.average(cut), rtol=1e-13)
    with pytest.raises(CardlabError, match="did not count rounds by number"):
        plain.per_round(plain.max_cut)
    with pytest.raises(CardlabError, match=f"cuts 1..{plain.max_cut}"):
        plain.average(plain.max_cut + 1)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(0, 2), min_size=9, max_size=9),
    st.integers(2, 6),
    st.sampled_from([0, 1]),
    st.sampled_from(["stand", "hit"]),
)
def test_any_small_shoe(low, tens, players, soft17):
    shoe = (0, *low, tens)
    try:
        curve = cut_curve(shoe, players, soft17, layered=True)
    except CardlabError:
        return  # a shoe too small for one round: refused, as the model says
    assert_agrees(curve, shoe, players, soft17)


@pytest.mark.parametrize("cut", [3, 10, 19])
def test_the_simulation_falls_within_its_interval_of_the_pass(cut):
    """Seeded shoes of the half deck: the bust share per round dealt within 4 standard errors of the pass
    (a ratio estimator, its variance from the shoes' moments)."""
    curve = cut_curve(HALF, 0, "stand")
    shoes = 200_000
    counts, moments = simulate_cutcard(11, HALF, cut, 0, "stand", shoes)
    busts, rounds = counts[:, 0].sum(), counts.sum()
    share = busts / rounds
    x2, xy, y2 = moments[0, 0], moments[0, 1], moments[-1, 0]
    var = (x2 - 2 * share * xy + share**2 * y2) / shoes / (rounds / shoes) ** 2
    assert abs(share - curve.average(cut)[0]) < 4 * math.sqrt(var / shoes)


def test_the_version_and_a_pinned_curve():
    """What a curve shard computes: a change here is a change of result (bump CURVE_RESULT_VERSION)."""
    assert CURVE_RESULT_VERSION == "blackjack-cutcurve-1"
    curve = cut_curve(HALF, 0, "stand")
    assert curve.max_cut == 19
    assert [round(float(x), 12) for x in (curve.rounds(19), curve.average(19)[0], curve.average(10)[0])] == [
        6.909371515763,
        0.285243063682,
        0.285292286746,
    ]


@pytest.mark.slow
@pytest.mark.parametrize("soft17", ["stand", "hit"])
def test_one_deck_equals_the_exact_fractions_up_to_cut_11(soft17):
    """The issue's check on the real shoe: one deck, dealer only (about 2 CPU-minutes and 4 GB each)."""
    from engines.blackjack.rules import ONE_DECK

    curve = cut_curve(ONE_DECK, 0, soft17)
    for cut in exact_cuts(ONE_DECK, 0, soft17, 11):
        law = exact_rounds(ONE_DECK, cut, 0, soft17)
        np.testing.assert_allclose(curve.average(cut), [float(x) for x in law["average"]], rtol=AGREE)


def test_the_default_config_s_curves_are_kept_and_not_recomputed(tmp_path):
    """Every cutcurve shard the default config plans is in the repository (with its timing record), and a fresh
    directory holding them and that section runs no curve job (a shard of one deck is minutes and 4 GB)."""
    import shutil

    import yaml
    from wfhelp import ROOT, snakemake, workdir

    from engines.core.layout import log_path, shard_path, timing_of
    from engines.pipeline.planning.plan import load_config
    from engines.registry import engine

    section = {"cutcurve": (load_config(ROOT / "config.yaml").get("blackjack") or {}).get("cutcurve")}
    specs = [s for s in engine("blackjack").plan(section) if s["kind"] == "cutcurve"]
    assert len(specs) == 5
    files = [shard_path("blackjack", "blackjack_cutcard_curve", s) for s in specs]
    files += [timing_of(log_path("blackjack", s["experiment"], s["variant"], s["shard"])) for s in specs]
    assert not [f for f in files if not (ROOT / f).is_file()]
    kept = sorted(
        str(p.relative_to(ROOT)) for p in (ROOT / "results/blackjack/blackjack_cutcard_curve").rglob("*.parquet")
    )
    assert kept == sorted(f for f in files if f.endswith(".parquet"))
    wd = workdir(tmp_path / "wd", yaml.safe_dump({"blackjack": {"exact": {"decks": []}, **section}}))
    for f in files:
        (wd / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, wd / f)
    dry = snakemake(wd, "-n", "--cores", "1").stdout
    assert not re.search(r"^blackjack_cutcurve\s+\d+$", dry, re.M), dry
