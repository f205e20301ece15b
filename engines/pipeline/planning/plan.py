"""The plan: every shard a config asks for, built once per process and read by everyone.

The Snakefile, the warehouse job, ``cardlab verify``, ``status``, ``clean``, ``repair``, the
live view and the campaign command all ask a :class:`Plan`: the validated config, each game's
shard specs in plan order (each with its kind, tables, files, log and result version), the
small shards that share a job, and a lookup by (game, experiment, variant, shard).  No module
plans again or searches a list for a spec.  (Imports stay light: ``cardlab --help`` loads this
module without YAML, JSON schema or an engine.)
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.errors import CardlabError
from ...core.layout import RESULTS, log_path, shard_path
from ...interface import source_version
from ...registry import GAMES, engine

if TYPE_CHECKING:
    from ...kinds import ShardKind
    from .batches import Batch

ShardKey = tuple[str, str, str, int]
"""(game, experiment, variant, shard): what a shard's path and its Snakemake wildcards name."""


@dataclass(frozen=True)
class PlannedShard:
    """One planned shard: its game, spec and kind, and the files it writes under the plan's results tree."""

    game: str
    spec: Mapping[str, Any]
    kind: ShardKind
    results: str = RESULTS

    @property
    def key(self) -> ShardKey:
        return self.game, self.spec["experiment"], self.spec["variant"], int(self.spec["shard"])

    @property
    def experiment(self) -> str:
        return self.spec["experiment"]

    @property
    def variant(self) -> str:
        return self.spec["variant"]

    @property
    def shard(self) -> int:
        return int(self.spec["shard"])

    @property
    def work(self) -> int:
        return int(self.spec.get("work", 0) or 0)

    @property
    def unit(self) -> str:
        """What ``work`` counts: the spec's own unit, else its kind's, else the game's."""
        return self.spec.get("work_unit") or self.kind.work_unit or engine(self.game).work_unit

    @property
    def tables(self) -> tuple[str, ...]:
        return self.kind.tables

    @property
    def files(self) -> dict[str, str]:
        """table -> the shard's file of that table."""
        return {t: shard_path(self.game, t, self.spec, root=self.results) for t in self.kind.tables}

    @property
    def log(self) -> str:
        return log_path(self.game, self.experiment, self.variant, self.shard, root=self.results)

    @property
    def version(self) -> str:
        """The result version the shard's files must carry (an edit that changes it reruns the shard)."""
        return self.kind.result_version or source_version(engine(self.game))


@dataclass
class Plan:
    """Every shard of a validated config, per game in plan order, and the jobs small ones share."""

    config: dict
    results: str = RESULTS
    shards: dict[str, tuple[PlannedShard, ...]] = field(default_factory=dict)

    @classmethod
    def build(cls, config: Any, source: str = "config", results: str = RESULTS) -> Plan:
        """The plan of a config, checked field by field first; a CardlabError names every problem."""
        from ...core.ledger import LedgerError, ledger_root
        from .config import check_config, invalid

        config = check_config(config, source)
        plan, problems = cls(config, results), []
        with ledger_root(results):
            for game in GAMES:
                if not config.get(game):
                    continue
                eng = engine(game)
                try:
                    specs = eng.plan(config[game])
                except LedgerError:  # a campaign's ledger, not the config, is at fault: its own words
                    raise
                except CardlabError as exc:  # what only a game's planner can judge
                    problems.append(str(exc))
                    continue
                plan.shards[game] = tuple(PlannedShard(game, s, eng.kind_of(s), results) for s in specs)
        if problems:
            raise invalid(source, problems)
        return plan

    @property
    def games(self) -> list[str]:
        """The games that plan at least one shard, in registry order."""
        return [g for g in GAMES if self.shards.get(g)]

    def __iter__(self):
        return (s for g in GAMES for s in self.shards.get(g, ()))

    def specs(self, game: str) -> list[Mapping[str, Any]]:
        return [s.spec for s in self.shards.get(game, ())]

    @cached_property
    def _by_key(self) -> dict[ShardKey, PlannedShard]:
        return {s.key: s for s in self}

    def shard(self, game: str, experiment: str, variant: str, shard: str | int) -> PlannedShard:
        """The planned shard a path or Snakemake's wildcards name."""
        found = self._by_key.get((game, experiment, variant, int(shard)))
        if found is None:
            raise CardlabError(f"no planned shard {game} {experiment}/{variant}/{shard} in the config")
        return found

    def inputs(self, shard: PlannedShard) -> list[PlannedShard]:
        """The planned shards whose files a second-stage shard reads (RedBlack's basins)."""
        read = shard.kind.inputs(shard.spec, self.specs(shard.game))
        return [self.shard(shard.game, s["experiment"], s["variant"], s["shard"]) for _, s in read]

    def input_files(self, shard: PlannedShard) -> list[str]:
        read = shard.kind.inputs(shard.spec, self.specs(shard.game))
        return [shard_path(shard.game, t, s, root=self.results) for t, s in read]

    @cached_property
    def files(self) -> dict[str, tuple[str, str, Mapping[str, Any]]]:
        """path -> (game, table, spec) of every file the plan writes."""
        return {path: (s.game, table, s.spec) for s in self for table, path in s.files.items()}

    def game_files(self, game: str) -> list[str]:
        return [path for s in self.shards.get(game, ()) for path in s.files.values()]

    @cached_property
    def batches(self) -> dict[str, list[Batch]]:
        """game -> the jobs that compute several small shards each (engines/pipeline/planning/batches.py)."""
        from .batches import batch_limit, plan_batches

        limit = batch_limit(self.config)
        return {g: plan_batches(engine(g), self.config[g], self.specs(g), limit) for g in self.games}


def validate_config(config: Any, source: str = "config") -> dict:
    """The config if it is valid and plans (every field checked, then every game's planner);
    otherwise a CardlabError listing every problem.  A caller that goes on to use the plan
    builds :class:`Plan` instead, which does both once."""
    return Plan.build(config, source).config


def load_config(paths: str | Path | Sequence[str | Path]) -> dict:
    """The validated config of one file, or of several merged in order (as ``--configfile A B``)."""
    from .config import read_config

    return validate_config(*read_config(paths))


_LOADED: dict[tuple, Plan] = {}


def load_plan(config_files: str | Path | Sequence[str | Path], results: str = RESULTS) -> Plan:
    """The plan of config files (merged in order), built again only when a file changes: the
    live view asks every second, and validating costs a third of a CPU-second each time."""
    from .config import read_config

    files = [config_files] if isinstance(config_files, (str, Path)) else list(config_files)
    stamps = []
    for f in files:
        try:
            st = os.stat(f)
            stamps.append((st.st_mtime_ns, st.st_size))
        except OSError:
            stamps.append(None)
    key = (tuple(map(str, files)), results, tuple(stamps))
    if key not in _LOADED:
        config, source = read_config(files)
        _LOADED.clear()
        _LOADED[key] = Plan.build(config, source, results)
    return _LOADED[key]


def shard_priority(order: str | None, shard: int, last: int) -> int:
    """Snakemake's priority of a shard job (a larger one starts sooner) under the config's
    ``shard_order``: a run stopped part way then leaves its finished shards in one block of
    numbers (but for shards that ran side by side), not scattered over its range.  Positive:
    the ILP scheduler's objective adds them up."""
    if order == "descending":
        return shard + 1
    if order == "ascending":
        return last + 1 - shard
    return 0


DEFAULT_CONFIG = "config.yaml"
"""The config a run reads when none is given: spelt here only (the Snakefile and the commands import it)."""


def run_config_files(given: Sequence[str | Path] = ()) -> list[str]:
    """The config files a run reads: the files it is given when any are (only those, merged in order;
    Snakemake's command line is read in engines/pipeline/snakemake/options.py), else config.yaml.  The
    Snakefile, ``cardlab verify``, ``status`` and ``recompute`` all plan from this one rule (docs/config.md)."""
    return [str(p) for p in given] or [DEFAULT_CONFIG]


def add_plan_options(parser) -> None:
    """``--results DIR`` and ``--config FILE`` (repeatable, see :func:`run_config_files`) for a
    command that checks a results tree against what a run plans."""
    from ...core import argtypes

    parser.add_argument("--results", type=argtypes.folder, default=RESULTS, help="results tree (default: %(default)s)")
    parser.add_argument(
        "--config",
        action="append",
        type=argtypes.existing_file,
        metavar="FILE",
        help=f"config file; several are merged in order, as by `snakemake --configfile A B` (default: {DEFAULT_CONFIG})",
    )
