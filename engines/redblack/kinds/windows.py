"""Cost windows: exhaustive owner-rule shards of a size k at seeded, stratified uniform rank positions.

A campaign's cost per deal varies a lot along the ranks (low ranks hold structured deals
that play several times longer), so the cost to finish a size is measured the way its
campaign runs: ``windows`` windows of ``window`` consecutive ranks each, window i at a
position drawn uniformly in the i-th of ``windows`` equal parts of the size's ranks, each
searched exactly like a campaign shard.  The
CPU seconds per deal of each (its job's timing record, the warehouse's
``shard_timings``) give the projection and its interval between windows
(``redblack_cost`` in views.sql).

A window is a real search: it writes the same tables as an exhaustive shard of the same
ranks (method ``exhaustive``, so its deals add to the size's coverage and any infinite
deal it meets is a result), under its own experiment, ``exhaustive_kNN_windows``, whose
shard i is the i-th window drawn.

A job's timing record counts its start-up too (loading the compiled kernels: about 0.4
CPU-s here, as much as a million deals' search), so each block also plans start-up
probes (variant ``startup``), jobs that load and run the kernel on a few ranks and write
no rows: probe 0 runs before every window (on a cold numba cache it compiles the kernels,
so no window's time includes compiling), probes 1..STARTUP_PROBES after it measure a
warm job's start-up, which the view subtracts from each window's time.  Sharing one job
(engines/pipeline/planning/batches.py; the group is the size's, whole or not at all), probe 0 loads
the kernels in that process and the others measure what is left to subtract: almost nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ...core.errors import CardlabError
from ...core.grid import setting_blocks
from ...core.rng import seed_derivation, shard_seed
from ...kinds import DEFAULT_BACKEND, Schedule
from ..rules import canonical_deals
from ..tables import SEARCH_TABLES, columns
from .search import EXHAUSTIVE_VARIANT, ExhaustiveSearch, block_sizes, exhaustive_experiment, search_tables

WINDOW_METHOD = "owner"  # the campaign's method: the cost measured is the cost of the owner rule
WINDOW_VARIANT = EXHAUSTIVE_VARIANT[WINDOW_METHOD]
DEFAULT_WINDOWS, DEFAULT_WINDOW = 32, 1_000_000
STARTUP_VARIANT = "startup"
STARTUP_PROBES = 3  # probes that measure a warm job's start-up (after the warm-up, probe 0)
PROBE_DEALS = 100  # ranks a probe searches (from its block's first window): the kernel's path, no time


def window_experiment(k: int) -> str:
    """``exhaustive_kNN_windows``: under the reserved ``exhaustive_`` prefix, beside the campaign's experiment."""
    return f"{exhaustive_experiment(k)}_windows"


def cost_window_blocks(section: Mapping[str, Any]) -> list[dict]:
    """The ``cost_windows`` setting as a list of blocks (one mapping or a list): k, windows, window, seed."""
    out, seen = [], set()
    for where, block in setting_blocks(section, "cost_windows", "redblack.cost_windows"):
        (k,) = block_sizes({"k": [block["k"]]}, where)
        if k in seen:
            raise CardlabError(f"{where}: k={k} already has cost windows; give each size one block")
        seen.add(k)
        windows, window = int(block.get("windows", DEFAULT_WINDOWS)), int(block.get("window", DEFAULT_WINDOW))
        slots = canonical_deals(k) // window
        if windows > slots:
            raise CardlabError(
                f"{where}: {windows:,} windows of {window:,} ranks do not fit in the {canonical_deals(k):,} "
                f"canonical deals of k={k} ({slots:,} at most)"
            )
        out.append({"where": where, "k": k, "windows": windows, "window": window, "seed": int(block["seed"])})
    return out


def window_starts(k: int, windows: int, window: int, root: int, game: str) -> list[int]:
    """The first rank of each window, in the order drawn: distinct multiples of ``window``.

    Stratified: the slots (multiples of ``window`` whose whole window lies inside the ranks)
    are cut into ``windows`` equal strata, and window i draws its slot uniformly from the
    i-th, from its own seeded stream.  So windows never overlap and the bottom of the ranks,
    where a deal costs several times the average, always gets its share: with uniform draws
    over all the ranks, none of k = 21's 64 windows fell in its bottom 3 %, and the cost of
    the ranks searched came out 1.34 times the windows' prediction
    (docs/history/redblack-measurements.md)."""
    slots = canonical_deals(k) // window
    starts = []
    for i in range(windows):
        first, stop = i * slots // windows, (i + 1) * slots // windows
        draw = np.random.default_rng(shard_seed(root, game, window_experiment(k), WINDOW_VARIANT, i))
        starts.append((first + int(draw.integers(stop - first))) * window)
    return starts


class CostWindows(ExhaustiveSearch):
    """Exhaustive owner-rule windows of ranks at seeded stratified positions, to measure a size's cost per deal.

    Computed exactly as :class:`ExhaustiveSearch` computes a shard of the same ranks (same
    tables), on one thread with the default backend, so the CPU seconds of each window
    measure one core."""

    name = "cost_window"
    # A window's result is its CPU time, which a faster kernel changes where the search's
    # pinned version would not: it carries the game's source hash, so an engine edit re-times
    # the windows (about 20 CPU-s) and the cost to finish is priced by the code that will run.
    result_version = None

    def plan(self, section: Mapping[str, Any], planned: Sequence[Mapping[str, Any]]) -> list[dict]:
        specs: list[dict] = []
        for block in cost_window_blocks(section):
            k, window, root = block["k"], block["window"], block["seed"]
            starts = window_starts(k, block["windows"], window, root, self.game)
            specs += [self.probe_spec(k, p, starts[0]) for p in range(STARTUP_PROBES + 1)]
            specs += [self.window_spec(k, i, start, start + window, root) for i, start in enumerate(starts)]
        return specs

    def probe_spec(self, k: int, probe: int, start: int) -> dict:
        """Start-up probe ``probe`` of size k's windows: 0 the warm-up, the others measure a job's start-up."""
        return {
            **self.spec(k, WINDOW_METHOD, probe, probe * PROBE_DEALS, (probe + 1) * PROBE_DEALS),
            "experiment": window_experiment(k),
            "variant": STARTUP_VARIANT,
            "ranks": [start, start + PROBE_DEALS],
        }

    def window_spec(self, k: int, i: int, start: int, stop: int, root: int) -> dict:
        experiment = window_experiment(k)
        # ``range`` places the window in its experiment (window i: [i * window, (i + 1) * window)),
        # like a sample shard's; ``ranks`` are the ranks it searches
        return {
            **self.spec(k, WINDOW_METHOD, i, i * (stop - start), (i + 1) * (stop - start)),
            "experiment": experiment,
            "ranks": [start, stop],
            "root_seed": root,
            "seed": shard_seed(root, self.game, experiment, WINDOW_VARIANT, i),
            "seed_derivation": seed_derivation(root, self.game, experiment, WINDOW_VARIANT, i),
        }

    def schedule(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> Schedule:
        """The owner rule's kernels on one thread of the CPU, whatever the search blocks say.  A size's
        probes and windows share one job whole or none: in one job the warm-up probe loads the kernels
        first, so no window's time holds a start-up and the measuring probes read (almost) zero; split
        over jobs, each would hold its own."""
        return replace(
            super().schedule(section, spec),
            threads=1,
            backend=DEFAULT_BACKEND,
            price="redblack/cost_window/probe" if self.is_probe(spec) else "redblack/cost_window",
            units=int(spec["work"]),
            batch_group=spec["experiment"],
            batch_whole=True,
        )

    @staticmethod
    def is_probe(spec: Mapping[str, Any]) -> bool:
        return spec["variant"] == STARTUP_VARIANT

    def inputs(self, spec: Mapping[str, Any], plan: Sequence[Mapping[str, Any]]) -> list[tuple[str, dict]]:
        """Every window and measuring probe reads the warm-up's (empty) counts: it runs after the warm-up."""
        if self.is_probe(spec) and spec["shard"] == 0:
            return []
        warm_up = (window_experiment(int(spec["k"])), STARTUP_VARIANT, 0)
        return [
            ("redblack_counts", dict(s))
            for s in plan
            if s["kind"] == self.name and (s["experiment"], s["variant"], s["shard"]) == warm_up
        ]

    def run(self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str) -> dict[str, dict]:
        """A window: exactly an exhaustive shard of its ranks.  A probe: the same kernel on a few ranks, no rows."""
        k, (r0, r1) = int(spec["k"]), spec["ranks"]
        res = self.backends[backend](k, int(r0), int(r1), progress, method=spec["method"])
        if self.is_probe(spec):
            return {t: columns(t, []) for t in SEARCH_TABLES}
        return search_tables(spec, res, "exhaustive", True, canonical_deals(k), r0, r1)

    def expected_rows(self, spec: Mapping[str, Any], table: str) -> int | None:
        return 0 if self.is_probe(spec) else super().expected_rows(spec, table)
