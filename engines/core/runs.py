"""Shard numbers as runs and items as windows: interval arithmetic by ``portion``, one formatter.

A campaign names its shards as sorted disjoint inclusive runs ``(first, last)`` (a ledger's file
holds them so: engines/core/ledger.py) and the items they cover as half-open windows
``[start, stop)``.  Both are unions of integer intervals; ``portion`` joins, subtracts and
orders them (a run ``(a, b)`` is the interval ``[a, b + 1)``, so adjacent runs join), and
:func:`runs_text` is the one way a list of shards is written for a person: ``12, 190..195``.
"""

from __future__ import annotations

from collections.abc import Iterable

import portion

Run = tuple[int, int]


def _of_runs(runs: Iterable[Run]) -> portion.Interval:
    return portion.Interval(*(portion.closedopen(a, b + 1) for a, b in runs))


def _of_windows(windows: Iterable[tuple[int, int]]) -> portion.Interval:
    return portion.Interval(*(portion.closedopen(a, b) for a, b in windows if a < b))


def _windows(interval: portion.Interval) -> list[tuple[int, int]]:
    return [(int(i.lower), int(i.upper)) for i in interval if not i.empty]


def _runs(interval: portion.Interval) -> tuple[Run, ...]:
    return tuple((a, b - 1) for a, b in _windows(interval))


def runs_of(numbers: Iterable[int]) -> tuple[Run, ...]:
    """Shard numbers (any order, repeats allowed) as sorted disjoint inclusive runs."""
    return _runs(portion.Interval(*(portion.closedopen(n, n + 1) for n in {int(n) for n in numbers})))


def merge_runs(*parts: Iterable[Run]) -> tuple[Run, ...]:
    """The union of runs, as sorted disjoint runs (adjacent ones joined)."""
    return _runs(_of_runs(r for part in parts for r in part))


def subtract_runs(runs: Iterable[Run], gone: Iterable[Run]) -> tuple[Run, ...]:
    """``runs`` less ``gone``, as runs."""
    return _runs(_of_runs(runs) - _of_runs(gone))


def merge_windows(windows: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Windows [start, stop) as the fewest windows, in order (adjacent and overlapping ones joined)."""
    return _windows(_of_windows(windows))


def windows_left(windows: Iterable[tuple[int, int]], total: int) -> list[tuple[int, int]]:
    """What [0, total) has outside the windows, as windows in order."""
    return _windows(portion.closedopen(0, total) - _of_windows(windows)) if total > 0 else []


def runs_text(runs: Iterable[Run]) -> str:
    """Runs as a person reads them, in order: 12, 190..195."""
    return ", ".join(f"{a}" if a == b else f"{a}..{b}" for a, b in runs)
