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
  :mod:`.ir` and :mod:`.intrinsics`.  Each rule combination is compiled separately
  with the rules as constants.  What made it fast is in docs/narcotic.md.

Decks are dealt by :mod:`.decks`.
"""

from __future__ import annotations

import numba
import numpy as np

from .decks import deal_deck, shuffled_decks
from .lanes import play_many
from .rules import Rules

__all__ = ["GAMES_PER_CALL", "deal_deck", "play", "shuffled_decks"]

GAMES_PER_CALL = 50_000  # games per kernel call by the callers: progress between calls, bounded memory


def play(decks: np.ndarray, rules: Rules) -> dict[str, np.ndarray]:
    """Play many decks (rows, seed order) with the kernel."""
    decks = np.ascontiguousarray(decks, dtype=np.uint8)
    m, g, p = rules.codes()
    # Games differ in length a hundredfold: small dynamic chunks keep threads busy.
    with numba.parallel_chunksize(1):
        won, passes, time_s, cstart, clen = play_many(decks, m, g, p)
    return {"won": won, "passes": passes, "time_s": time_s, "cycle_start": cstart, "cycle_length": clen}
