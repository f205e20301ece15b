"""The cost to finish a size in the report's words: the one figure per kind of CPU (engines/redblack/
report/cost.py), how the windows measured it, the measured misses, and the sample method's cross-check."""

from __future__ import annotations

from ...core.fmt import hours_text, plural, value
from .cost import Check, CostToFinish, cost_line, how_text, machine_name
from .figures import COST_PNG

CLUSTER_CORES = 1000  # the size of cluster a projection is also given for


def finish_text(c: dict, costs: list[CostToFinish], w: dict) -> str:
    """**Cost to finish**: the figure on each kind of CPU, how each was made, the windows, then the sample
    method as a labelled cross-check (no figure of its own)."""
    lines = [f"- {cost_line(x)}{cluster_text(x.hours)}: {how_text(x)}." for x in costs]
    return (
        "**Cost to finish**, one figure per kind of CPU (the windows' own kind first; engines/redblack/report/"
        "cost.py):\n\n" + "\n".join(lines) + f"\n\n{windows_text(w)}{cross_check_text(c, costs[0])}"
    )


def windows_text(w: dict) -> str:
    """How the cost windows measure CPU per deal, and their spread (the view's summary over all kinds)."""
    if not w:
        return ""
    drawn = value(w["windows"] + w["windows_searched"])
    left_out = (
        f" (of {drawn} drawn, the {value(w['windows_searched'])} that fall in ranks a campaign has searched are "
        "left out: the rest are draws over the ranks left, and those left out check the campaign below)"
        if w["windows_searched"]
        else ""
    )
    return (
        f"The windows: {plural(w['windows'], 'window')} of {value(w['window_deals'])} consecutive ranks at "
        f"stratified positions (window i uniform in the i-th of {drawn} equal parts of the ranks){left_out}, each "
        f"searched exhaustively with the owner rule like a campaign shard, took {w['ns_per_deal']:,.0f} ns of CPU per "
        f"deal on average (95 % interval {w['lo95_ns_per_deal']:,.0f}–{w['hi95_ns_per_deal']:,.0f} ns: mean ± t·s/√n "
        f"over the windows, Student's t = {w['t95']:.3f} with {w['windows'] - 1:,} degrees of freedom, which errs wide "
        f"for stratified draws; {startup_text(w)}). Between windows: min {w['min_ns_per_deal']:,.0f}, median "
        f"{w['median_ns_per_deal']:,.0f}, max {w['max_ns_per_deal']:,.0f} ns per deal ({w['rounds_per_deal']:,.1f} "
        f"rounds per deal over the windows; figure `{COST_PNG}`)."
    )


def startup_text(w: dict) -> str:
    """How a warm job's start-up left the windows' times (the probes say whether there was any)."""
    probes = plural(w["probes"], "probe")
    if w["startup_cpu_s"] >= 0.005:
        return (
            f"each window's job time less a warm job's start-up, {w['startup_cpu_s']:.2f} CPU-s, the mean of {probes}"
        )
    return (
        "each window's job time as measured: the windows ran in one job after a warm-up that loaded the kernels, "
        f"and the {probes} after it measured no start-up (under 0.01 CPU-s)"
    )


def cluster_text(hours: float) -> str:
    """``, 17.0 hours on a 1,000-core cluster ...``: for work that takes a cluster hours, else nothing."""
    if hours / CLUSTER_CORES < 0.1:
        return ""
    return (
        f", {hours / CLUSTER_CORES:,.1f} hours on a {CLUSTER_CORES:,}-core cluster through the SLURM profile "
        "(docs/scaling.md)"
    )


def cross_check_text(c: dict, cost: CostToFinish) -> str:
    """The sample method (rounds per deal × CPU per round), labelled a cross-check: it prices the ranks
    left at the whole size's rounds per deal, the wrong population where the ranks left are the dear ones."""
    hours = c.get("sample_core_hours_left")
    if hours is None:
        return ""
    return (
        f" Cross-check only, not a cost to finish (the sample method: {c['rounds_per_deal']:,.1f} rounds per deal "
        f"measured on {rounds_basis(c)}, at {1e9 * c['cpu_s_per_round']:,.1f} ns of CPU per round, "
        f"{round_cost_basis(c)}, averages over the whole size, not the ranks left): about {hours_text(hours)} "
        f"core-hours; the cost to finish on the windows' own kind of CPU is {cost.hours / hours:,.2f} times that."
    )


def sample_only_text(c: dict) -> str:
    """A size with no cost windows: only the sample method, said to be a rough estimate."""
    hours = c.get("sample_core_hours_left")
    if hours is None:
        return ""
    return (
        f" No cost windows price this size; a rough estimate only (the sample method: {c['rounds_per_deal']:,.1f} "
        f"rounds per deal measured on {rounds_basis(c)} at {1e9 * c['cpu_s_per_round']:,.1f} ns of CPU per round, "
        f"{round_cost_basis(c)}): about {hours_text(hours)} core-hours{cluster_text(hours)}."
    )


def round_cost_basis(c: dict) -> str:
    """Where a size's CPU per round was measured, in words."""
    if c["cpu_s_per_round_from"] == "cost windows":
        return "measured by the same cost windows, on the same machine"
    return "measured on this size's timed shards"


def rounds_basis(c: dict) -> str:
    """What a size's rounds per deal were measured on, in words."""
    if c["rounds_per_deal_from"] == "uniform sample":
        return f"a uniform sample of {plural(c['rounds_per_deal_sample'], 'deal')}"
    return "the ranks searched"


def cost_check_section(checks: list[Check]) -> list[str]:
    """The cost windows' prediction for the ranks campaigns have searched since, beside what they took:
    the measured misses the cost to finish is scaled by."""
    if not checks:
        return []
    return [
        "## The cost windows, checked against the campaigns",
        "",
        "A cost window whose ranks a campaign has searched since is left out of the cost to finish, and "
        "checks it instead: the windows that fall in a campaign's ranks are uniform draws over them, so they "
        "predict what the campaign's shards took on each kind of CPU that timed them (`shard_timings.machine`). "
        "What the shards took over that prediction is the windows' measured miss on that kind: the cost to finish "
        "there is scaled by it, and its interval spans the misses' own (engines/redblack/report/cost.py).",
        "",
        *(f"- {cost_check_text(c)}" for c in checks),
        "",
    ]


def cost_check_text(c: Check) -> str:
    """``k = 21, shards on <CPU>: the 34 windows in their ranks predicted 5.00 core-hours ...; they took 5.30 ...``."""
    lo, hi = c.deals * c.rate.lo / 3600, c.deals * c.rate.hi / 3600
    taken = c.taken_cpu_s / 3600
    verdict = (
        "inside the interval" if lo <= taken <= hi else "above the interval" if taken > hi else "below the interval"
    )
    windows = "" if c.window_machine == c.machine else f" (timed on {machine_name(c.window_machine)})"
    miss = f"the miss {c.ratio_lo:.2f}–{c.ratio_hi:.2f}" if c.bounded else "too few windows to bound the miss: not used"
    return (
        f"k = {c.k}, shards timed on {machine_name(c.machine)}: the {plural(c.rate.windows, 'window')} in their "
        f"ranks{windows} predicted {hours_text(c.predicted_cpu_s / 3600)} core-hours (95 % interval "
        f"{hours_text(lo)}–{hours_text(hi)}) for the {value(c.deals)} deals of the {plural(c.shards, 'shard')}; they "
        f"took {hours_text(taken)} ({c.ratio:.2f} times the prediction, {verdict}; {miss})."
    )
