"""Narcotic on smaller decks: the deck-size rule, and the seed's Ruby as the oracle on EVERY sequence of r <= 3."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import narcotic as N
from engines.core.errors import CardlabError
from engines.narcotic.exact import ranked_sequences, sequence_count
from engines.registry import engine

DATA = Path(__file__).parent / "data"
SMALL = (1, 2, 3)


def generator_module():
    """The fixture's generator (its plain-Python enumeration is independent of exact.py)."""
    spec = importlib.util.spec_from_file_location("make_small_deck_fixture", DATA / "make_small_deck_fixture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ruby_results() -> dict[int, list[tuple[int, bool]]]:
    """r -> (time, looped) of every sequence, in rank order, as the seed's Ruby printed them."""
    out: dict[int, list[tuple[int, bool]]] = {}
    r = None
    for line in (DATA / "narcotic_small_decks.txt").read_text().splitlines():
        if line.startswith("#"):
            continue
        if line.startswith("r="):
            r = int(line.split()[0][2:])
            out[r] = []
            assert int(line.split("sequences=")[1]) == sequence_count(r)
            continue
        out[r] += [(int(tok.rstrip("L")), tok.endswith("L")) for tok in line.split()]
    return out


RUBY = ruby_results()


def outcomes(res: dict) -> list[tuple]:
    return list(
        zip(
            res["won"].tolist(),
            res["passes"].tolist(),
            res["time_s"].tolist(),
            res["cycle_start"].tolist(),
            res["cycle_length"].tolist(),
        )
    )


def reference_outcome(deck: list[int], rules: N.Rules) -> tuple:
    ref = N.play_reference(deck, rules)
    return (ref.won, ref.passes, ref.time_s, ref.cycle_start, ref.cycle_length)


# -- the deck-size rule ----------------------------------------------------------


@pytest.mark.parametrize("bad", [0, 14, -1, 2.5, "4", True])
def test_ranks_must_be_an_integer_1_to_13(bad):
    with pytest.raises(CardlabError, match=r"ranks must be an integer 1\.\.13"):
        N.Rules(ranks=bad)


def test_full_deck_names_are_unchanged_and_small_decks_add_their_size():
    assert N.Rules().variant == "deal.top-right.keep" and N.Rules(ranks=13) == N.Rules()
    assert N.Rules(ranks=4).variant == "deal.top-right.keep.r4"
    assert N.Rules.preset("seed").preset_name == "seed" and N.Rules(ranks=4).preset_name is None
    assert "ranks" not in N.Rules().spec_fields() and N.Rules(ranks=3).spec_fields()["ranks"] == 3
    assert N.Rules.of_spec(N.Rules("cascade", "top-left", "discard", 5).spec_fields()) == N.Rules(
        "cascade", "top-left", "discard", 5
    )


def test_full_deck_specs_carry_no_ranks_and_small_ones_do():
    section = {
        "experiments": [
            {"name": "full", "rules": "seed", "games": 10, "shards": 1, "seed": 1},
            {"name": "small", "rules": "seed", "ranks": 4, "games": 10, "shards": 1, "seed": 1},
        ]
    }
    full, small = engine("narcotic").plan(section)
    assert "ranks" not in full and full["variant"] == "deal.top-right.keep"
    assert small["ranks"] == 4 and small["variant"] == "deal.top-right.keep.r4"
    assert full["seed"] != small["seed"]  # seeds derive from the variant: the small deck's games are its own


def test_fresh_and_checked_decks_of_any_size():
    assert N.fresh_deck(2) == [1, 2, 1, 2, 1, 2, 1, 2]
    assert N.fresh_deck() == [i % 13 + 1 for i in range(52)]
    assert N.check_deck([1, 1, 1, 1], 1) is None
    assert "expected 8 cards" in N.check_deck([1, 1, 1, 1], 2)
    assert "out of range 1..2" in N.check_deck([3, 1, 1, 1, 2, 2, 2, 2], 2)
    assert "value 1 appears 3 times, expected exactly 4 of each value 1..2" in N.check_deck(
        [2] + N.fresh_deck(2)[1:], 2
    )


def test_shuffled_decks_of_a_small_deck_and_the_full_deck_unchanged():
    assert np.array_equal(N.shuffled_decks(np.uint64(9), 0, 50), N.shuffled_decks(np.uint64(9), 0, 50, 13))
    small = N.shuffled_decks(np.uint64(9), 0, 50, 3)
    assert small.shape == (50, 12) and all(N.check_deck(list(d), 3) is None for d in small)
    assert N.deal_deck(9, 7, 3) == small[7].tolist()


def test_play_refuses_decks_of_the_wrong_size():
    with pytest.raises(CardlabError, match="rows of 16 cards"):
        N.play(N.shuffled_decks(np.uint64(1), 0, 3, 3), N.Rules(ranks=4))


# -- every sequence of r <= 3: the seed's Ruby, the reference and the kernel -----


@pytest.mark.parametrize("r", SMALL)
def test_sequences_are_every_distinct_one_in_lexicographic_order(r):
    expected = generator_module().lexicographic_sequences(dict.fromkeys(range(1, r + 1), 4))
    got = ranked_sequences(r, 0, sequence_count(r))
    assert got.tolist() == expected
    assert len(RUBY[r]) == len(expected) == sequence_count(r)


@pytest.mark.parametrize("r", SMALL)
def test_kernel_and_reference_equal_the_seed_ruby_on_every_sequence(r):
    rules = N.Rules(ranks=r)
    seqs = ranked_sequences(r, 0, sequence_count(r))
    res = N.play(seqs, rules)
    kernel = [(t, not w) for w, t in zip(res["won"].tolist(), res["time_s"].tolist())]
    assert kernel == RUBY[r]
    reference = [(o.time_s, not o.won) for o in (N.play_reference(s, rules) for s in seqs.tolist())]
    assert reference == RUBY[r]


def assert_kernel_equals_reference_on_sequences(rules: N.Rules, stride: dict[int, int]) -> None:
    """Kernel == reference on every ``stride[r]``-th sequence (in rank order) of each small deck size r."""
    for r in SMALL:
        small = N.Rules(rules.matching, rules.gather, rules.pile_four, r)
        seqs = ranked_sequences(r, 0, sequence_count(r))[:: stride[r]]
        got = outcomes(N.play(np.ascontiguousarray(seqs), small))
        want = [reference_outcome(s, small) for s in seqs.tolist()]
        assert got == want, small.variant


@pytest.mark.slow
@pytest.mark.parametrize("rules", N.all_rules(), ids=lambda r: r.variant)
def test_kernel_equals_reference_on_every_sequence_of_small_decks(rules):
    """Every rule combination, every sequence of r = 1, 2, 3 (34,721 games each, ~94 CPU-s in all)."""
    assert_kernel_equals_reference_on_sequences(rules, dict.fromkeys(SMALL, 1))


@pytest.mark.parametrize("rules", N.all_rules(), ids=lambda r: r.variant)
def test_kernel_equals_reference_on_every_sequence_of_r2_and_every_seventh_of_r3(rules):
    """CI's part of the exhaustive check above: 5,021 games per rule combination."""
    assert_kernel_equals_reference_on_sequences(rules, {1: 1, 2: 1, 3: 7})


def test_small_decks_have_both_outcomes():
    """The oracle is not trivial: r = 2 and 3 have wins and loops, r = 1 is always won in one pass."""
    assert RUBY[1] == [(9, False)]
    for r in (2, 3):
        assert {looped for _, looped in RUBY[r]} == {True, False}


# -- random decks of random sizes -------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 13).flatmap(lambda r: st.permutations(N.fresh_deck(r))), st.sampled_from(N.all_rules()))
def test_cards_are_conserved_on_decks_of_any_size(deck, rules):
    """A pass only removes cards in fours of one value: every value keeps 0 or 4 cards, and values
    outside the deck never appear."""
    r = len(deck) // 4
    rules = N.Rules(rules.matching, rules.gather, rules.pile_four, r)
    deck = list(deck)
    for _ in range(3):
        piles = [[] for _ in range(4)]
        while deck:
            N.deal_round(piles, [deck.pop() for _ in range(4)], rules)
        deck = N.gather(piles, rules.gather)
        counts = np.bincount(deck, minlength=r + 1)
        assert counts[0] == 0 and len(counts) == r + 1
        assert all(c in (0, 4) for c in counts[1:])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 13).flatmap(lambda r: st.permutations(N.fresh_deck(r))), st.sampled_from(N.all_rules()))
def test_kernel_matches_reference_on_decks_of_any_size(deck, rules):
    rules = N.Rules(rules.matching, rules.gather, rules.pile_four, len(deck) // 4)
    res = N.play(np.array([deck], dtype=np.uint8), rules)
    assert outcomes(res)[0] == reference_outcome(list(deck), rules)
