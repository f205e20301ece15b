"""Campaign work no command asked for: a run that would recompute more than a core-hour of it asks first.

A campaign block plans the shards its ledger keeps (engines/core/ledger.py), so a kept shard that is
deleted or damaged is recomputed by the next plain run.  That is right for a shard or two; it is not
for a ledger that claims 311 shards whose files are not there (copied from another machine without its
shards, or edited by hand): a plain `make run` would queue some 230 core-hours of work and say nothing.

So before a run starts, the ledger-planned shards (their kind's :class:`engines.kinds.Schedule`, ``ledger``) whose
files are missing, or would be rewritten (written by another result version or for another spec), are
priced as the live view prices the work left (engines/pipeline/progress/costs.py: measured rates from the jobs'
timing records, else the kinds' prices).  Above ``LIMIT_CPU_S`` the run needs leave:

* ``cardlab run`` asks y/N on a terminal, and without one needs ``--allow-campaign-work``;
* a plain ``snakemake`` needs ``--config allow_campaign_work=True`` (the Snakefile checks; ``True``:
  Snakemake's spelling of a boolean on its command line, where ``true`` stays a string);
* ``cardlab redblack campaign K --run N`` sets it in its run config: that command asks for the work.

The default config.yaml's campaign blocks keep only shards whose files are there: it needs no leave.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ...core.errors import CardlabError
from ...core.fmt import hours_text, plural
from ...core.layout import ledger_path
from ...core.ledger import LedgerError, ledger_root, runs_of, runs_text
from ..bookkeeping.records import shard_records
from ..catalog.warehouse import rewritten_by_run
from ..planning.plan import Plan, PlannedShard, load_plan
from ..progress.costs import UNESTIMATED_S, priced, rates_of
from ..progress.model import Snapshot, shard_states
from ..progress.snapshot import planned_shards
from ..snakemake.options import config_entry, config_given, with_config

LIMIT_CPU_S = 3600.0
"""Campaign work a run may queue unasked: one core-hour."""
CONFIG_KEY = "allow_campaign_work"
FLAG = "--allow-campaign-work"
LEAVE = config_entry(CONFIG_KEY, True)
"""The ``--config`` entry that gives leave on a snakemake command line."""


@dataclass(frozen=True)
class CampaignWork:
    """The ledger-planned shards a run would compute, their estimated job-seconds, and per campaign the
    command that rebuilds its ledger from the shard files present."""

    shards: tuple[PlannedShard, ...]
    cpu_s: float
    results: str
    rebuild: Mapping[tuple[str, str, str], str] = field(default_factory=dict)

    @property
    def too_much(self) -> bool:
        return self.cpu_s > LIMIT_CPU_S

    def campaigns(self) -> dict[tuple[str, str, str], list[int]]:
        by: dict[tuple[str, str, str], list[int]] = {}
        for s in self.shards:
            by.setdefault((s.game, s.experiment, s.variant), []).append(s.shard)
        return by

    def summary(self) -> str:
        """'this run would compute 311 campaign shards that no command asked for (about 183 core-hours): ...'."""
        places = [
            f"{game} {experiment}/{variant} shards {runs_text(runs_of(numbers))}"
            for (game, experiment, variant), numbers in self.campaigns().items()
        ]
        shown = ", ".join(places[:3]) + (f" and {len(places) - 3} more campaigns" if len(places) > 3 else "")
        return (
            f"this run would compute {plural(len(self.shards), 'campaign shard')} that no command asked for, "
            f"about {hours_text(self.cpu_s / 3600)} core-hours (a run computes at most one unasked): {shown}, "
            f"which their ledgers keep but whose files under {self.results}/ are missing or stale"
        )

    def refusal(self, how: str) -> str:
        """The one-line error of a run without leave; ``how``: the words that give it."""
        fixes = [
            f"rm {ledger_path(*place, self.results)} && {self.rebuild[place]}"
            for place in self.campaigns()
            if place in self.rebuild
        ]
        return (
            f"{self.summary()}. To compute them, {how}; if the files were lost, restore them "
            f"(git checkout -- {self.results})"
            + (f"; if a ledger keeps shards never computed, rebuild it from the files present: {'; '.join(fixes)}"
               if fixes else "")
        )  # fmt: skip


def priced_seconds(plan: Plan, shards: Sequence[PlannedShard]) -> float:
    """The job-seconds of ``shards`` (:func:`shard_prices`), a shard nothing prices at ``UNESTIMATED_S``."""
    return sum(UNESTIMATED_S if s is None else s for s in shard_prices(plan, shards).values())


def shard_prices(plan: Plan, shards: Sequence[PlannedShard]) -> dict[str, float | None]:
    """Each shard's job-seconds by its log, as the live view prices the work left
    (engines/pipeline/progress/costs.py): at its group's measured rate (a RedBlack size's shards by the
    measured ones around them, along its kind's cost shape), else its kind's estimate at this machine's scale,
    from every planned shard's timing record.  None where neither prices it (a kind with no price of its work
    and no measured shard): a caller with a cap counts it as over the cap."""
    progress, units = planned_shards(plan)
    wanted = {s.log for s in shards}
    files = frozenset(f for s in progress if s.log not in wanted for f in s.files if os.path.isfile(f))
    logs = shard_records(progress)
    states = shard_states(Snapshot(tuple(progress), units, files, logs, alive=False, now=time.time()))
    measured = rates_of(states)
    rates = priced(states, measured)
    return {
        s.spec.log: None
        if m is None and s.spec.estimate_s is None
        else max(0.0, s.spec.work - s.done_work) / rate
        if rate
        else UNESTIMATED_S
        for s, m, rate in zip(states, measured, rates, strict=True)
        if s.spec.log in wanted
    }


def to_compute(plan: Plan, shard: PlannedShard) -> bool:
    """Whether a run computes the shard: a file missing, or one Snakemake reruns (another version or spec)."""
    for path in shard.files.values():
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            return True
        if rewritten_by_run(plan, path, mtime):
            return True
    return False


def campaign_work(plan: Plan) -> CampaignWork:
    """The ledger-planned shards of the plan that a run would compute, priced."""
    with ledger_root(plan.results):  # the rebuild commands name the plan's results tree
        grids = {s.key: g for s in plan if (g := s.kind.schedule(plan.config.get(s.game) or {}, s.spec).ledger)}
    shards = tuple(s for s in plan if s.key in grids and to_compute(plan, s))
    rebuild = {s.key[:3]: grids[s.key].rebuild for s in shards}
    return CampaignWork(shards, priced_seconds(plan, shards) if shards else 0.0, plan.results, rebuild)


def allowed_by(config: dict) -> bool:
    """Whether the config (with Snakemake's ``--config`` overrides) gives leave."""
    return config.get(CONFIG_KEY) is True


def check_snakemake_run(plan: Plan) -> None:
    """The Snakefile's check before a run: a CardlabError where it would queue too much campaign work unasked."""
    if allowed_by(plan.config):
        return
    work = campaign_work(plan)
    if work.too_much:
        raise CardlabError(work.refusal(f"add --config {LEAVE} (cardlab run: {FLAG})"))


def allowed_on_command_line(cmd: Sequence[str]) -> bool:
    """Whether a snakemake command line's ``--config`` gives leave (``allow_campaign_work=True``)."""
    return allowed_by(config_given(cmd))


def with_leave(cmd: Sequence[str]) -> list[str]:
    """A snakemake command line that gives leave (beside any ``--config`` entries given)."""
    return with_config(cmd, LEAVE)


def ask_leave(work: CampaignWork, ask=input, out=None) -> bool:
    """On a terminal: say what the run would compute and ask y/N (anything but yes is no)."""
    out = out or sys.stdout
    print(f"cardlab run: {work.summary()}.", file=out, flush=True)
    try:
        answer = ask(f"Compute them ({hours_text(work.cpu_s / 3600)} core-hours)? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def leave_for_run(cmd: list[str], config_files: Sequence[str], allow: bool, interactive: bool, ask=input) -> list[str]:
    """``cardlab run``'s check: the snakemake command line to start (with leave where it was given or the
    user said yes), or a CardlabError where the run would queue too much campaign work unasked."""
    if allow or allowed_on_command_line(cmd):
        return with_leave(cmd) if allow and not allowed_on_command_line(cmd) else cmd
    try:
        plan = load_plan(list(config_files))
    except LedgerError:  # a campaign's ledger: its own line, now
        raise
    except CardlabError:  # snakemake says what is wrong with the config, in the run's own words
        return cmd
    if allowed_by(plan.config):
        return cmd
    work = campaign_work(plan)
    if not work.too_much:
        return cmd
    if interactive:
        if ask_leave(work, ask):
            return with_leave(cmd)
        raise CardlabError(f"nothing started: the campaign work was not allowed (cardlab run {FLAG} allows it)")
    raise CardlabError(work.refusal(f"give {FLAG} (no terminal to ask on; snakemake: --config {LEAVE})"))
