"""cardlab: exact, reproducible questions about card games at scale.

Layout: one package per game (``narcotic``, ``redblack``, ``blackjack``),
each implementing :class:`engines.interface.Engine` and listed in
:mod:`engines.registry`; ``core`` (seeds, shards, atomic Parquet writes,
provenance, progress, errors), ``pipeline`` (Snakemake glue, config,
warehouse, verify) and ``report`` (generic report and index code).
"""

from .registry import GAMES

__all__ = ["GAMES"]
