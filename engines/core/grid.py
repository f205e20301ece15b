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


def windows_of(window: Sequence[int] | Sequence[Sequence[int]] | None, total: int) -> list[tuple[int, int]]:
    """A window setting as a list of [start, stop) pairs: ``[start, stop]``, a list of such pairs, or
    None (every rank)."""
    if window is None:
        return [(0, total)]
    if len(window) and not isinstance(window[0], Sequence):
        return [(int(window[0]), int(window[1]))]
    return [(int(w[0]), int(w[1])) for w in window]


def grid_shards(
    total: int, per_shard: int, window: Sequence[int] | Sequence[Sequence[int]] | None, where: str, names: GridNames
) -> list[tuple[int, int, int]]:
    """(shard, start, stop) of the shards of a space of ``total`` ranks that lie in ``window`` (all by default;
    one ``[start, stop]`` or a list of them, which must not overlap), in rank order.

    Shard i covers ranks [i * per_shard, (i + 1) * per_shard) whatever the window, so a shard's
    number, range and file are the same in every plan that contains it."""
    pairs = sorted(windows_of(window, total))
    for (a0, a1), (b0, b1) in zip(pairs, pairs[1:]):
        if b0 < a1:
            raise CardlabError(f"{where}.{names.window}: [{a0}, {a1}) and [{b0}, {b1}) overlap")
    shards = [s for start, stop in pairs for s in window_shards(total, per_shard, start, stop, where, names)]
    if len(shards) > MAX_PLANNED_SHARDS:
        raise CardlabError(
            f"{where}: {names.size} would plan {len(shards):,} shards; at most {MAX_PLANNED_SHARDS:,} at a time "
            f"(Snakemake plans about 500 jobs a second): raise {names.per_shard} or plan a window of "
            f"{names.items} ({names.window}: [start, stop])"
        )
    return shards


def window_shards(
    total: int, per_shard: int, start: int, stop: int, where: str, names: GridNames
) -> list[tuple[int, int, int]]:
    """The shards of one window [start, stop) of the grid."""
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
    if last - first > MAX_PLANNED_SHARDS:  # before the list is built: a wrong shard size can ask for billions
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
