"""Shard planning: how a piece of work is cut into independent Snakemake jobs."""

from __future__ import annotations


def split_range(total: int, shards: int) -> list[tuple[int, int]]:
    """Cut ``range(total)`` into ``shards`` contiguous [start, stop) pieces, sizes differing by at most one."""
    if shards < 1:
        raise ValueError(f"shards must be >= 1, got {shards}")
    if total < 0:
        raise ValueError(f"total must be >= 0, got {total}")
    base, extra = divmod(total, shards)
    out, start = [], 0
    for i in range(shards):
        stop = start + base + (1 if i < extra else 0)
        out.append((start, stop))
        start = stop
    return out
