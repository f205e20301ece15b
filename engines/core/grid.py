"""Shard grids over ranked spaces: every item of a space has a rank, shard i covers a fixed range of them.

RedBlack's exhaustive search (canonical deals by rank) and Narcotic's exhaustive shards
(value sequences by rank) plan their shards here, one way: a fixed grid whatever the
window asked for, so windows run at different times add up to the whole space.  (A module
of its own, not :mod:`.shards`: that one is part of every shard's source version, and
planning a grid never changes what a shard computes.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import CardlabError
from .layout import MAX_SHARD

MAX_PLANNED_SHARDS = 20_000  # one config plans at most this many shards of a grid (Snakemake: ~2 ms a job)


@dataclass(frozen=True)
class GridNames:
    """How a config names a ranked space in messages: its ``size`` (``k=21``), the window's key
    (``ranks``), the shard size's key (``deals_per_shard``) and what the ranks count (``ranks``)."""

    size: str
    window: str
    per_shard: str
    items: str


def grid_shards(
    total: int, per_shard: int, window: Sequence[int] | None, where: str, names: GridNames
) -> list[tuple[int, int, int]]:
    """(shard, start, stop) of the shards of a space of ``total`` ranks that lie in ``window`` (all by default).

    Shard i covers ranks [i * per_shard, (i + 1) * per_shard) whatever the window, so a shard's
    number, range and file are the same in every plan that contains it."""
    start, stop = (0, total) if window is None else (int(window[0]), int(window[1]))
    if not 0 <= start < stop <= total:
        raise CardlabError(
            f"{where}.{names.window}: [{start}, {stop}) is not a non-empty window inside [0, {total}) for {names.size}"
        )
    if start % per_shard or (stop % per_shard and stop != total):
        raise CardlabError(
            f"{where}.{names.window}: [{start}, {stop}) must start on a shard boundary (a multiple of "
            f"{names.per_shard} = {per_shard:,}) and end on one or at {total:,} (all {names.items} of {names.size})"
        )
    first, last = start // per_shard, -(-stop // per_shard)
    if last - 1 > MAX_SHARD:
        raise CardlabError(
            f"{where}: {names.size} needs shard numbers up to {last - 1:,} with {names.per_shard} = {per_shard:,}; "
            f"at most {MAX_SHARD:,}: raise {names.per_shard}"
        )
    if last - first > MAX_PLANNED_SHARDS:
        raise CardlabError(
            f"{where}: {names.size} would plan {last - first:,} shards; at most {MAX_PLANNED_SHARDS:,} at a time "
            f"(Snakemake plans about 500 jobs a second): raise {names.per_shard} or plan a window of "
            f"{names.items} ({names.window}: [start, stop])"
        )
    return [(i, i * per_shard, min((i + 1) * per_shard, total)) for i in range(first, last)]


def setting_blocks(section: Mapping[str, Any], key: str, where: str) -> list[tuple[str, Mapping[str, Any]]]:
    """(where, block) of a setting given as one block (a mapping) or a list of blocks, each
    named as a message names it (``redblack.exhaustive`` or ``redblack.exhaustive[1]``)."""
    raw = section.get(key) or []
    if isinstance(raw, Mapping):
        return [(where, raw)]
    return [(f"{where}[{i}]", block) for i, block in enumerate(raw)]
