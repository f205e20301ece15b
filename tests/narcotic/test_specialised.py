"""The kernel specialised to a rule combination (campaign shards: engines/narcotic/kernel.py)
plays every game as the shared kernel does, and is called through its compiled entry point."""

from __future__ import annotations

import numpy as np
import pytest

from engines.narcotic import lanes
from engines.narcotic.decks import shuffled_decks
from engines.narcotic.kernel import SPECIALISED, play
from engines.narcotic.rules import Rules


@pytest.mark.parametrize("preset", ["seed", "classic"])
def test_specialised_kernel_plays_as_the_shared_one(preset):
    rules = Rules.preset(preset)
    assert rules in SPECIALISED
    decks = shuffled_decks(np.uint64(20261201), 0, 3000, rules.ranks)
    shared = play(decks, rules, games=len(decks))
    own = play(decks, rules, games=10**9)  # a campaign's count: the specialised kernel
    assert all(np.array_equal(shared[k], own[k]) for k in shared)
    # dispatching on literal rule codes costs milliseconds a call: the blocks call the entry point
    entry = lanes.specialised_entry(*rules.codes())
    assert entry is lanes.specialised_entry(*rules.codes())
    assert entry is not lanes._play_block_specialised
