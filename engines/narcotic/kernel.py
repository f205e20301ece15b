"""numba kernels of the Narcotic rules (:mod:`.rules`): the entry point and the map of the parts.

Two kernels, with identical results for every deck (tests compare them with each
other and with the plain-Python reference):

* :func:`.replay.play_kernel`: one game card by card on fixed arrays, every earlier
  deck in a hash table.  Slow but obvious; the fast kernel hands it the rare games
  it gives up on.
* the fast kernel (:func:`.lanes.play_many`): two games side by side per thread, a
  loop found by comparing the new deck's fingerprint with the previous RING-1 decks
  (:mod:`.lanes`); a deal-matching pass is a handful of 64-byte vector operations
  written as LLVM IR (:mod:`.deal_pass`), a cascade pass works on pile windows as
  words (:mod:`.cascade`); the IR helpers and small intrinsics they share live in
  :mod:`.ir` and :mod:`.intrinsics`.  One kernel takes the rules as arguments and
  plays every combination; long runs of the seed and classic rules get kernels of their
  own with the rules as constants (:func:`specialise`).  What made it fast is in docs/narcotic.md.

Decks are dealt by :mod:`.decks`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from ..core.errors import CardlabError
from ..core.kernel_cache import compiling_alone
from .decks import deal_deck, shuffled_decks
from .lanes import block_kernel, play_many
from .replay import WON
from .rules import VALUES, Rules

__all__ = ["GAMES_PER_CALL", "SPECIALISED", "deal_deck", "play", "shuffled_decks"]

GAMES_PER_CALL = 50_000  # games per kernel call by the callers: progress between calls, bounded memory


# The rule combinations with a kernel of their own, their rules compiled in as constants;
# every combination (these too) can be played by one shared kernel with the rules as
# arguments.  A specialised kernel costs a compile of its own (about 26 CPU-s) and plays
# the seed rules about 3 % faster, the classic ones 8 % (measured with bench/narcotic.py):
# it pays from about 10^8 games (seed) or 2.5e7 (classic), so a run of fewer
# games than SPECIALISE_FROM_GAMES uses the shared kernel, and a fresh machine compiles one
# Narcotic kernel for the default config instead of three (docs/narcotic.md, "Cold start").
SPECIALISED = frozenset(Rules.preset(name) for name in ("seed", "classic"))
SPECIALISE_FROM_GAMES = 50_000_000

# numba checks a cached kernel against the file of its entry point only (lanes.py), not
# the modules it calls: after an edit of any of them the kernel must be compiled again.
KERNEL_MODULES = ("cascade", "deal_pass", "decks", "exact", "intrinsics", "ir", "lanes", "replay", "rules")
PACKAGE = Path(__file__).parent


def specialise(rules: Rules, games: int) -> bool:
    """Whether `games` games of `rules` are played fastest by a kernel of their own, counting its compile."""
    return games >= SPECIALISE_FROM_GAMES and replace(rules, ranks=VALUES) in SPECIALISED


def play(decks: np.ndarray, rules: Rules, games: int | None = None) -> dict[str, np.ndarray]:
    """Play many decks (rows of ``rules.cards`` cards, seed order) with the kernel.

    ``games``: how many games of these rules the caller plays in all (default: these), which
    decides whether a specialised kernel pays for its compile; results are the same."""
    decks = np.ascontiguousarray(decks, dtype=np.uint8)
    if decks.ndim != 2 or decks.shape[1] != rules.cards:
        raise CardlabError(f"decks of {rules.ranks} values are rows of {rules.cards} cards, got shape {decks.shape}")
    own = specialise(rules, len(decks) if games is None else games)  # the rules' kernel whatever the deck size
    with compiling_alone([block_kernel(own)], PACKAGE, KERNEL_MODULES, extra=["core/rng.py"]):
        out = play_many(decks, *rules.codes(), specialised=own)
    return {
        "won": out[:, 0] == WON,
        "passes": out[:, 1].astype(np.int32),
        "time_s": out[:, 2].copy(),
        "cycle_start": out[:, 3].astype(np.int32),
        "cycle_length": out[:, 4].astype(np.int32),
    }
