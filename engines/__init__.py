"""cardlab: exact, reproducible questions about card games at scale.

One module per game (``narcotic``, ``redblack``, ``blackjack``) holds that
game's rules, its numba kernel and a plain-Python reference; the shared core
(``rng``, ``shards``, ``store``, ``provenance``) plans shards, derives seeds
and writes Parquet with provenance.
"""

__all__ = ["GAMES"]

GAMES = ("narcotic", "redblack", "blackjack")
