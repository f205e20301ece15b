"""Narcotic: the kernel against the reference, the seed's own examples and Ruby program."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from system_tools import missing

from engines import narcotic as N
from engines.registry import engine

DATA = Path(__file__).parent / "data"


def outcome_tuple(res: dict, i: int) -> tuple:
    return (
        bool(res["won"][i]),
        int(res["passes"][i]),
        int(res["time_s"][i]),
        int(res["cycle_start"][i]),
        int(res["cycle_length"][i]),
    )


# -- the seed's commented examples of proper_piles -----------------------------


def test_proper_piles_seed_examples():
    assert N.proper_piles([4, 4, 3, 1]) == [[4, 4], [], [3], [1]]
    assert N.proper_piles([1, 4, 4, 4]) == [[1], [4, 4, 4], [], []]


def test_proper_piles_four_equal_are_removed():
    assert N.proper_piles([7, 7, 7, 7]) == [[], [], [], []]


@given(st.lists(st.integers(1, 13), min_size=4, max_size=4))
def test_proper_piles_conserves_cards_and_groups_values(cards):
    piles = N.proper_piles(cards)
    if len(set(cards)) == 1:
        assert piles == [[], [], [], []]
        return
    assert sorted(c for p in piles for c in p) == sorted(cards)
    for i, p in enumerate(piles):
        assert len(set(p)) <= 1
        if p:  # a pile's cards sit on the leftmost dealt card of that value
            assert cards.index(p[0]) == i


# -- kernel == reference on many random decks, every rule combination ----------


# Random decks per rule combination, (seed and classic presets, the other fourteen): the
# exhaustive comparison (more than 10,000 decks, ~4 CPU-min of plain Python) runs with
# `pytest -m slow`; CI plays the first fifth of the same decks.
FULL_GAMES, CI_GAMES = (2500, 700), (500, 140)


def games_of(rules: N.Rules, sizes: tuple[int, int]) -> int:
    return sizes[0] if rules.preset_name in ("seed", "classic") else sizes[1]


def assert_kernel_matches_reference(rules: N.Rules, games: int) -> None:
    decks = N.shuffled_decks(np.uint64(97 + N.all_rules().index(rules)), 0, games)
    res = N.play(decks, rules)
    for i in range(games):
        ref = N.play_reference(list(decks[i]), rules)
        assert outcome_tuple(res, i) == (ref.won, ref.passes, ref.time_s, ref.cycle_start, ref.cycle_length), (
            rules.variant,
            i,
        )


@pytest.mark.parametrize("rules", N.all_rules(), ids=lambda r: r.variant)
def test_kernel_matches_reference(rules):
    assert_kernel_matches_reference(rules, games_of(rules, CI_GAMES))


@pytest.mark.slow
@pytest.mark.parametrize("rules", N.all_rules(), ids=lambda r: r.variant)
def test_kernel_matches_reference_on_ten_thousand_decks(rules):
    assert_kernel_matches_reference(rules, games_of(rules, FULL_GAMES))


def test_replay_kernel_matches_fast_path():
    """play_kernel (every earlier deck in a hash table) replays the rare games the
    fast path gives up on (no win and no cycle shorter than its ring); it must agree."""
    from engines.narcotic.replay import play_kernel

    decks = N.shuffled_decks(np.uint64(4242), 0, 150)
    for rules in N.all_rules():
        res = N.play(decks, rules)
        for i in range(len(decks)):
            w, p, t, s, l = play_kernel(decks[i], *rules.codes(), 11)
            assert (w == 1, p, t, s, l) == outcome_tuple(res, i), (rules.variant, i)


@pytest.mark.parametrize("rules", N.all_rules(), ids=lambda r: r.variant)
def test_kernel_matches_reference_on_decks_with_runs(rules):
    """Nearly sorted decks: long runs of equal cards make deep cascades, pile fours
    and the fast cascade path's rare replays (eight or more cards to give)."""
    rng = np.random.default_rng(31)
    decks = []
    for swaps in (0, 1, 2, 3, 5, 8, 12, 20) * 25:
        deck = sorted(N.fresh_deck(), key=lambda v: (v, rng.random()))
        if swaps == 0:
            deck = deck[::-1] if rng.random() < 0.5 else deck
        for _ in range(swaps):
            i, j = rng.integers(0, 52, 2)
            deck[i], deck[j] = deck[j], deck[i]
        decks.append(deck)
    res = N.play(np.array(decks, dtype=np.uint8), rules)
    for i, deck in enumerate(decks):
        ref = N.play_reference(deck, rules)
        assert outcome_tuple(res, i) == (ref.won, ref.passes, ref.time_s, ref.cycle_start, ref.cycle_length), i


def test_reference_comparisons_cover_ten_thousand_decks():
    """The slow comparison above plays at least 10,000 decks in all, CI's at least 2,500."""
    assert sum(games_of(r, FULL_GAMES) for r in N.all_rules()) >= 10_000
    assert sum(games_of(r, CI_GAMES) for r in N.all_rules()) >= 2_500


# -- the seed's Ruby program itself ---------------------------------------------


def ruby_fixture():
    lines = [l for l in (DATA / "narcotic_ruby_fixture.txt").read_text().splitlines() if l and not l.startswith("#")]
    decks = np.array([[int(x) for x in l.split("|")[0].split()] for l in lines], dtype=np.uint8)
    expected = [(int(l.split("|")[1].split()[0]), l.split("|")[1].split()[1] == "true") for l in lines]
    return decks, expected


def test_kernel_reproduces_seed_ruby_output():
    """3,000 decks run through the seed's own Ruby code (tests/data/make_narcotic_fixture.py)."""
    decks, expected = ruby_fixture()
    res = N.play(decks, N.Rules.preset("seed"))
    got = [(int(res["time_s"][i]), not bool(res["won"][i])) for i in range(len(decks))]
    assert got == expected


def test_fixture_decks_are_the_seeded_shuffles():
    decks, _ = ruby_fixture()
    header = (DATA / "narcotic_ruby_fixture.txt").read_text().splitlines()[0]
    seed = int(header.split("seed=")[1].split()[0])
    assert np.array_equal(decks, N.shuffled_decks(np.uint64(seed), 0, len(decks)))


def test_kernel_matches_live_ruby_on_fresh_decks():
    if shutil.which("ruby") is None:  # the fixture test covers the seed's program meanwhile
        missing("Ruby not installed, so the seed's own program is not run")
    decks = N.shuffled_decks(np.uint64(777), 0, 200)
    text = "".join(" ".join(map(str, d)) + "\n" for d in decks)
    out = subprocess.run(
        ["ruby", str(DATA / "narcotic_seed.rb")], input=text, text=True, capture_output=True, check=True
    ).stdout.split("\n")
    res = N.play(decks, N.Rules())
    for i in range(len(decks)):
        t, loop = out[i].split()
        assert (int(res["time_s"][i]), not bool(res["won"][i])) == (int(t), loop == "true")


# -- rules and invariants ------------------------------------------------------


def test_time_model_won_game_charges_last_gather():
    # A deck that is won in one pass: every deal is four equal cards.
    deck = [v for v in range(1, 14) for _ in range(4)]
    out = N.play_reference(deck)
    assert out.won and out.passes == 1 and out.time_s == 13 * 4 + 5
    res = N.play(np.array([deck], dtype=np.uint8), N.Rules())
    assert outcome_tuple(res, 0) == (True, 1, 57, 0, 0)


def test_loop_has_consistent_cycle():
    decks = N.shuffled_decks(np.uint64(5), 0, 400)
    res = N.play(decks, N.Rules())
    lost = np.flatnonzero(~res["won"])
    assert len(lost) > 50
    for i in lost[:50]:
        start, length, passes = (int(res["cycle_start"][i]), int(res["cycle_length"][i]), int(res["passes"][i]))
        assert length >= 1 and start + length == passes
        # replay: the deck after pass `start` equals the deck after pass `passes`
        rules = N.Rules()
        deck = list(decks[i])
        seen = []
        for _ in range(passes):
            piles = [[] for _ in range(4)]
            while deck:
                N.deal_round(piles, [deck.pop() for _ in range(4)], rules)
            deck = N.gather(piles, rules.gather)
            seen.append(tuple(deck))
        assert seen[start - 1] == seen[passes - 1]
        assert len(set(seen[: passes - 1])) == passes - 1


@settings(max_examples=60, deadline=None)
@given(st.permutations(N.fresh_deck()), st.sampled_from(N.all_rules()))
def test_cards_are_conserved_each_pass(deck, rules):
    """A pass only removes cards in fours of one value; every value keeps a multiple of four."""
    deck = list(deck)
    piles = [[] for _ in range(4)]
    while deck:
        N.deal_round(piles, [deck.pop() for _ in range(4)], rules)
    nxt = N.gather(piles, rules.gather)
    counts = np.bincount(nxt, minlength=14)[1:]
    assert all(c in (0, 4) for c in counts)


@settings(max_examples=40, deadline=None)
@given(st.permutations(N.fresh_deck()), st.sampled_from(N.all_rules()))
def test_kernel_matches_reference_hypothesis(deck, rules):
    ref = N.play_reference(list(deck), rules)
    res = N.play(np.array([deck], dtype=np.uint8), rules)
    assert outcome_tuple(res, 0) == (ref.won, ref.passes, ref.time_s, ref.cycle_start, ref.cycle_length)


def test_gathers_name_the_card_dealt_first():
    piles = [[1, 2], [3], [4, 5], [6]]  # bottom to top
    # the last element of a deck is dealt first
    assert N.gather(piles, "top-right")[-1] == 6  # top of the rightmost pile
    assert N.gather(piles, "bottom-left")[-1] == 1  # bottom of the leftmost pile
    assert N.gather(piles, "top-left")[-1] == 2  # top of the leftmost pile
    assert N.gather(piles, "bottom-right")[-1] == 6  # bottom of the rightmost pile (one card)
    assert N.gather([[1], [2], [3], [4, 5]], "bottom-right")[-1] == 4


def test_cascade_moves_tops_left_and_uncovers():
    piles = [[5], [9, 7], [], []]
    N.deal_round(piles, [1, 2, 3, 7], N.Rules.preset("classic"))
    # tops after the deal: 1, 2, 3, 7; no pair -> nothing moves
    assert piles == [[5, 1], [9, 7, 2], [3], [7]]
    piles = [[5], [9, 7], [], []]
    N.deal_round(piles, [1, 7, 3, 1], N.Rules.preset("classic"))
    # tops 1,7,3,1: pile 3's 1 moves onto pile 0; then no equal tops remain
    assert piles == [[5, 1, 1], [9, 7, 7], [3], []]


def test_pile_four_discard():
    rules = N.Rules("deal", "top-right", "discard")
    piles = [[2, 2], [], [], []]
    N.deal_round(piles, [2, 2, 5, 6], rules)
    assert piles == [[], [], [5], [6]]


def test_seeded_decks_are_reproducible_and_full():
    a = N.shuffled_decks(np.uint64(11), 100, 200)
    b = N.shuffled_decks(np.uint64(11), 0, 200)[100:]
    assert np.array_equal(a, b)
    for d in a[:20]:
        assert N.check_deck(list(d)) is None
    assert N.deal_deck(11, 150) == list(b[50])


def test_check_deck_messages():
    assert "expected 52" in N.check_deck([1] * 51)
    assert "out of range" in N.check_deck([0] + N.fresh_deck()[1:])
    assert "value 1 appears 3 times" in N.check_deck([2] + N.fresh_deck()[1:])


def test_plan_is_deterministic_and_covers_games():
    section = {"experiments": [{"name": "x", "rules": "all", "games": 1001, "shards": 3, "seed": 9}]}
    p1, p2 = engine("narcotic").plan(section), engine("narcotic").plan(section)
    assert p1 == p2 and len(p1) == 16 * 3
    seeds = {s["seed"] for s in p1}
    assert len(seeds) == len(p1)
    one = [s for s in p1 if s["variant"] == "deal.top-right.keep"]
    assert sum(s["range"][1] - s["range"][0] for s in one) == 1001
