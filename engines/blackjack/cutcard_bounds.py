"""The cut-card command's domains, declared once (the parser and the library both check them).

Light on purpose: command-line start-up imports it (no numpy or numba)."""

from __future__ import annotations

MOST_CARDS = 52 * 8  # the largest shoe: the parser's bound on --cut and --players; the shoe's own is checked after
# A bound of time, not memory (cutcard_law simulates a chunk of shoes a call, a few MB): measured here
# about 0.25 CPU-s a deck per million shoes (4e6 shoes of 1 deck 1.1 CPU-s, 4e5 of 8 decks 0.74), so
# 10^9 shoes of 8 decks is about half a CPU-hour; its 95 % intervals there are about +-0.0003 points.
MAX_SHOES = 10**9
DEFAULT_SHOES = 1_000_000  # simulated when the exact methods cannot reach the cut and --shoes is not given
