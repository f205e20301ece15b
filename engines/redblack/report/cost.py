"""The cost to finish a size: one figure per size and per kind of CPU, computed here only.

The report (its Markdown and the index), ``cardlab redblack campaign K`` and anything that
quotes a cost call :func:`costs_to_finish`, so the same warehouse gives the same figure
everywhere.  The figure is the way a campaign runs: the mean CPU per deal of the size's cost
windows that lie in the ranks left (engines/redblack/kinds/windows.py) times the deals left,
times the windows' *measured miss* on the kind of CPU priced: what a campaign's shards took there
over what the windows in their ranks predicted.  The windows run in one warm job on a quiet
core, the shards for hours beside other work, often on another kind of CPU: on k = 21 and 22
the shards took 1.36-1.39 times the windows' prediction on the windows' own kind, outside the
windows' 95 % interval, so a figure that leaves the miss out promises too little.  The miss
also carries the windows' rates to a kind of CPU that timed campaign shards but no windows,
so each kind that ran a campaign gets its figure.  Which miss: the size's own campaign's
(its own measured rate, shaped by the windows: the ranks left cost more than those searched),
else the other sizes' campaigns on that kind; a check whose windows are too few to bound it
(its interval reaching zero) counts for nothing.  On the windows' own kind with no check, the
windows alone, and the text says so.  The interval multiplies the windows' 95 % interval by
the range of the misses' own intervals, so it holds what the campaigns showed.  Timings of two
kinds are never pooled: a GPU's, whose ``machine`` names it, stay a kind of their own.  The
other method (rounds per deal of a uniform sample times CPU per round) is the report's
labelled cross-check, never a cost.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import duckdb

from ...core.fmt import hours_text, plural
from ...kinds import on_gpu
from . import queries as q


@dataclass(frozen=True)
class Rate:
    """CPU seconds per deal, the mean over ``windows`` cost windows, with its 95 % interval
    (mean ± t·s/√n, Student's t: the windows are independent stratified draws, so it errs wide)."""

    windows: int
    mean: float
    sd: float
    t95: float

    @property
    def half_width(self) -> float:
        return self.t95 * (self.sd or 0.0) / math.sqrt(self.windows)

    @property
    def lo(self) -> float:
        return max(0.0, self.mean - self.half_width)

    @property
    def hi(self) -> float:
        return self.mean + self.half_width


@dataclass(frozen=True)
class Check:
    """A size's windows in ranks its campaign has searched, beside what that campaign's shards took
    on one kind of CPU (the windows may have run on another): the ratio is the windows' measured
    miss there."""

    k: int
    machine: str  # the shards' kind of CPU
    window_machine: str  # the windows'
    rate: Rate
    shards: int
    deals: int
    taken_cpu_s: float

    @property
    def predicted_cpu_s(self) -> float:
        return self.deals * self.rate.mean

    @property
    def ratio(self) -> float:
        return self.taken_cpu_s / self.predicted_cpu_s

    @property
    def ratio_lo(self) -> float:
        return self.taken_cpu_s / (self.deals * self.rate.hi)

    @property
    def ratio_hi(self) -> float:
        return self.taken_cpu_s / (self.deals * self.rate.lo)

    @property
    def bounded(self) -> bool:
        """Enough windows for the miss to have an upper bound (their interval stays above zero)."""
        return self.rate.lo > 0


@dataclass(frozen=True)
class Miss:
    """The factor a size's windows are scaled by, its range, and whose campaigns measured it."""

    factor: float
    lo: float
    hi: float
    basis: str

    @staticmethod
    def of(checks: list[Check], basis: str) -> Miss:
        """Pooled over the checks (their CPU over their prediction); the range spans each one's interval."""
        factor = sum(c.taken_cpu_s for c in checks) / sum(c.predicted_cpu_s for c in checks)
        return Miss(factor, min(c.ratio_lo for c in checks), max(c.ratio_hi for c in checks), basis)


NO_MISS = Miss(1.0, 1.0, 1.0, "no campaign on this kind of CPU bounds the windows' miss yet: the windows alone")


@dataclass(frozen=True)
class CostToFinish:
    """What the ranks left of size k cost on one kind of CPU, in core-hours, with a 95 % interval."""

    k: int
    machine: str | None  # the kind of CPU priced
    window_machine: str | None  # the kind that timed the windows
    deals_left: int
    rate: Rate
    miss: Miss

    @property
    def hours(self) -> float:
        return self.deals_left * self.rate.mean * self.miss.factor / 3600

    @property
    def lo95(self) -> float:
        return self.deals_left * self.rate.lo * self.miss.lo / 3600

    @property
    def hi95(self) -> float:
        return self.deals_left * self.rate.hi * self.miss.hi / 3600

    def with_deals_left(self, deals_left: int) -> CostToFinish:
        """The same rates priced on another count of deals left (shards finished since the warehouse)."""
        return replace(self, deals_left=deals_left)


def costs_to_finish(con: duckdb.DuckDBPyConnection) -> dict[int, list[CostToFinish]]:
    """Every size searched in part with two or more cost windows in its ranks left: one cost per kind of
    CPU, the windows' own kind first, then each kind a campaign's shards measured a miss on."""
    left, checks = q.deals_left(con), [c for c in window_checks(con) if c.bounded]
    out: dict[int, list[CostToFinish]] = {}
    for r in q.windows_left(con):
        k, timed_by = int(r["k"]), r["machine"]
        if k not in left:
            continue
        kinds = [timed_by] + sorted({c.machine for c in checks if c.window_machine == timed_by} - {timed_by})
        for kind in kinds:
            miss = miss_for(k, kind, timed_by, checks)
            out.setdefault(k, []).append(CostToFinish(k, kind, timed_by, left[k], rate_of(r), miss))
    return out


def window_checks(con: duckdb.DuckDBPyConnection) -> list[Check]:
    """Each size's checked windows per kind of CPU (the report lists them all, bounded or not)."""
    return [
        Check(
            int(r["k"]),
            r["machine"],
            r["window_machine"],
            rate_of(r),
            int(r["shards"]),
            int(r["deals"]),
            float(r["taken_cpu_s"]),
        )
        for r in q.window_checks(con)
    ]


def rate_of(row: dict) -> Rate:
    return Rate(int(row["windows"]), float(row["cpu_s_per_deal"]), float(row["sd"] or 0.0), float(row["t95"]))


def miss_for(k: int, kind: str | None, timed_by: str | None, checks: list[Check]) -> Miss:
    """The size's own campaign's miss on this kind of CPU, else the other sizes' campaigns' there, else
    (the windows' own kind only: other kinds get no figure without a miss) none."""
    mine = [c for c in checks if c.machine == kind and c.window_machine == timed_by]
    own = [c for c in mine if c.k == k]
    if own:
        return Miss.of(own, f"k = {k}'s own campaign, {plural(own[0].shards, 'shard')} on that machine")
    if mine:
        return Miss.of(mine, f"the campaigns of k = {sizes_text(mine)} on that machine")
    return NO_MISS


def sizes_text(checks: list[Check]) -> str:
    return ", ".join(str(k) for k in sorted({c.k for c in checks}))


def machine_name(machine: str | None) -> str:
    return machine or "a CPU its timing records do not name"


def cost_line(cost: CostToFinish) -> str:
    """``about 44.8 core-hours (95 % interval 30.1–61.0) on <CPU>``: the figure, wherever it is quoted.
    A GPU's figure is in GPU-hours: its shards' timing records time a host process that waits on the device."""
    unit = "GPU-hours" if on_gpu(cost.machine) else "core-hours"
    return (
        f"about {hours_text(cost.hours)} {unit} (95 % interval {hours_text(cost.lo95)}–"
        f"{hours_text(cost.hi95)}) on {machine_name(cost.machine)}"
    )


def how_text(cost: CostToFinish) -> str:
    """How the figure was made: the windows, the deals left, the miss applied (or why none)."""
    miss = cost.miss
    scaled = (
        f", times the measured miss {miss.factor:.2f} (range {miss.lo:.2f}–{miss.hi:.2f}, from {miss.basis})"
        if miss is not NO_MISS
        else f" ({miss.basis})"
    )
    where = "" if cost.machine == cost.window_machine else f" (timed on {machine_name(cost.window_machine)})"
    return (
        f"{cost.rate.windows:,} cost windows in the ranks left{where} at {1e9 * cost.rate.mean:,.0f} ns of CPU per "
        f"deal ({1e9 * cost.rate.lo:,.0f}–{1e9 * cost.rate.hi:,.0f}) for {cost.deals_left:,} deals{scaled}"
    )
