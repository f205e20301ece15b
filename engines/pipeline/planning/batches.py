"""Jobs from a plan: small shards share one Snakemake job.

Every job pays a start-up that has nothing to do with its shard: Python, numba and pyarrow
imports, loading the compiled kernels, Snakemake's script preamble and its bookkeeping in the
main process (about 1.7 CPU-s a job here, measured on a cold ``make run``).  A shard of a
second or two pays it once more than its own work; a hundred of them cost a cold run more
than all its searches.  So shards a kind estimates at no more than ``SMALL_SHARD_CPU_S``
(their kind's :class:`engines.kinds.Schedule`, ``batch_cpu_s``) are packed, in plan order, with the other small
shards of their stage and group into jobs of at most ``batch_cpu_s`` estimated CPU seconds
(the config's top-level ``batch_cpu_s``, default ``BATCH_CPU_S``; 0 gives every shard a job
of its own).  Each shard of a batch is still seeded, computed, timed, logged and written on its
own (engines/pipeline/compute/jobs.py), so its files are the same bytes whichever way shards are
grouped, and the batches follow from the config alone: every run of a config makes the same
jobs.  A batch holds shards of one group only, and is named by it: by default a group is an
experiment (a kind may declare a wider one, e.g. RedBlack's small exhaustive sizes), so
editing one experiment, and undoing the edit, changes no other experiment's batches and
Snakemake reruns none of their shards.  A kept campaign's shards, and shards that read other shards, are never batched.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...core.errors import CardlabError
from ...interface import Engine

BATCH_CPU_S = 60.0
"""Default estimated CPU seconds of one batch job: small against its start-up saved, and
short enough that a 2-core run keeps both cores busy to the end."""
SMALL_SHARD_CPU_S = 10.0
"""A shard estimated above this runs as a job of its own, whatever ``batch_cpu_s`` says."""


@dataclass(frozen=True)
class Batch:
    """Shards of one game and stage computed one after another by one Snakemake job."""

    game: str
    stage: str
    group: str  # the experiment, or the wider group the shards' kind declares
    index: int  # a group's batches are numbered 1.. in plan order
    specs: tuple[dict, ...]
    cpu_s: float  # the shards' estimates, summed

    @property
    def rule(self) -> str:
        """The Snakemake rule of the job, ``<game>_<stage>_<group>_<hash>_batch<index>``: the group's
        name made an identifier, and a short hash of it so that two names never meet."""
        slug = re.sub(r"\W", "_", self.group)
        tag = hashlib.sha256(self.group.encode()).hexdigest()[:6]
        return f"{self.game}_{self.stage}_{slug}_{tag}_batch{self.index}"


def batch_limit(config: Mapping[str, Any] | None) -> float:
    """The config's ``batch_cpu_s`` (validated by the schema), else ``BATCH_CPU_S``."""
    value = (config or {}).get("batch_cpu_s", BATCH_CPU_S)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise CardlabError(f"batch_cpu_s: {value!r} must be a number >= 0 (0: every shard its own job)")
    return float(value)


def plan_batches(
    eng: Engine, section: Mapping[str, Any], plan: Sequence[Mapping[str, Any]], limit: float = BATCH_CPU_S
) -> list[Batch]:
    """The game's batch jobs for its config ``section`` and the specs it plans, each of two or more
    shards; a shard in none runs as a job of its own.

    Small shards (see the module) of one (stage, group) are packed greedily in plan order
    while the batch's estimate stays within ``limit``.  A *whole* group (``batch_whole``)
    becomes one batch when all of it is small and fits, else none of it is batched."""
    if limit <= 0:
        return []
    groups: dict[tuple[str, str], list[tuple[dict, float]]] = {}
    whole: dict[tuple[str, str], bool] = {}
    unbatchable: set[tuple[str, str]] = set()
    for spec in plan:
        kind = eng.kind_of(spec)
        hints = kind.schedule(section, spec)
        stage, is_whole, cpu_s = kind.stage, hints.batch_whole, hints.batch_cpu_s
        key = (stage, hints.batch_group or spec["experiment"])
        whole[key] = is_whole
        # a shard reading others joins a batch only when it is whole and they come earlier in it
        earlier = {_name(s) for s, _ in groups.get(key, [])} if is_whole else set()
        reads = {_name(s) for _, s in kind.inputs(spec, plan)}
        small = cpu_s is not None and cpu_s <= SMALL_SHARD_CPU_S and reads <= earlier
        if not small:
            unbatchable.add(key)
            continue
        groups.setdefault(key, []).append((dict(spec), float(cpu_s)))
    out: list[Batch] = []
    numbered: dict[tuple[str, str], int] = {}  # (stage, group) -> batches so far
    for key, members in groups.items():
        if whole[key]:
            fits = key not in unbatchable and sum(c for _, c in members) <= limit
            packs = [members] if fits else []
        else:
            packs = _pack(members, limit)
        for pack in packs:
            if len(pack) < 2:
                continue  # one shard: its own job under the stage's rule
            specs = tuple(spec for spec, _ in pack)
            index = numbered[key] = numbered.get(key, 0) + 1
            out.append(Batch(eng.name, key[0], key[1], index, specs, sum(c for _, c in pack)))
    return out


def _name(spec: Mapping[str, Any]) -> tuple[str, str, int]:
    return spec["experiment"], spec["variant"], int(spec["shard"])


def _pack(members: list[tuple[dict, float]], limit: float) -> list[list[tuple[dict, float]]]:
    packs: list[list[tuple[dict, float]]] = []
    current: list[tuple[dict, float]] = []
    total = 0.0
    for spec, cpu_s in members:
        if current and total + cpu_s > limit:
            packs.append(current)
            current, total = [], 0.0
        current.append((spec, cpu_s))
        total += cpu_s
    if current:
        packs.append(current)
    return packs
