"""Shard kinds: each type of shard a game plans (a simulation, an exhaustive window, a basin job) as one object.

A kind says everything the pipeline needs about its shards: the ``kind`` string
its specs carry, the tables it writes, the Snakemake stage (rule) that runs it
and that stage's resources, its result version, how it plans its specs from the
game's config section, how it computes one, how many rows it writes, which other
shards it reads, and its numba threads.  An :class:`engines.interface.Engine`
composes kinds (``kinds = (ExhaustiveSearch(), SampleSearch(), ...)``) and
dispatches on a spec's ``kind`` through them.

A *backend* (scalar, SIMD, GPU) is a way a kind computes its shards that never
changes their results: it is chosen outside the spec (like threads), so a spec and
its result version are the same whichever backend computed it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .core.errors import CardlabError
from .core.prices import kind_price

if TYPE_CHECKING:
    from .core.ledger import LedgerGrid

DEFAULT_BACKEND = "scalar"


@dataclass(frozen=True)
class Resources:
    """What one job of a stage asks the scheduler for (Snakemake's ``runtime`` and ``mem_mb``)."""

    runtime_min: int = 60
    mem_mb: int = 1000


BATCH_ESTIMATES: dict[str, tuple[str, float]] = {
    "narcotic/sim": ("unit", 3.0e-5),
    "redblack/exhaustive/brute": ("unit", 3.0e-7),
    "redblack/exhaustive/owner": ("unit", 1.0e-6),
    "redblack/sample": ("unit", 5.0e-6),
    "redblack/cost_window": ("unit", 2.5e-7),
    "redblack/cost_window/probe": ("shard", 0.5),
    "blackjack/exact": ("shard", 2.0),
    "blackjack/sim/fresh": ("unit", 1.5e-7),
    "blackjack/sim/continuous": ("unit", 1.5e-7),
    "blackjack/cutexact": ("shard", 10.0),
    "blackjack/cutsim": ("unit", 1.5e-6),
}
"""CPU seconds a shard (``shard``) or a unit of its work (``unit``) is estimated at when small shards are
packed into jobs (engines/pipeline/planning/batches.py), by price key.  Frozen here, apart from the
measured prices in engines/prices.yaml they were first copied from: Snakemake reruns a shard whose job
changes, so the job grouping must not follow a better measurement (a price is a measurement, not an
input of results).  Editing an entry may move shards between jobs, and Snakemake reruns those."""


@dataclass(frozen=True)
class Schedule:
    """How the pipeline runs, batches and prices one shard: hints that never change what it computes.

    A kind returns one from :meth:`ShardKind.schedule`; Snakemake's rules read ``threads``, the job
    its ``backend``, engines/pipeline/planning/batches.py the ``batch_*`` fields and the live view's ETA
    ``kernels``, ``compile_cpu_s`` and ``cost_follows_shard``, engines/pipeline/commands/campaign_work.py its ``ledger``.
    A kind names its prices (``price``: measured data in engines/prices.yaml, which no version covers);
    ``schedule`` methods are left out of result versions (``core.provenance.SCHEDULING_HOOKS``)."""

    threads: int = 1
    """numba threads of the shard's job (Snakemake's threads); never in the spec: threads never change results."""
    backend: str | None = None
    """The backend the config chooses for the shard (:func:`chosen_backend`); None: the kind's first."""
    price: str = ""
    """The shard's prices in engines/prices.yaml (``game/kind[/what]``); "": none (not batched, priced by
    the live view's defaults)."""
    units: float = 0
    """The units of work its ``per_unit`` price counts (a spec's work; Blackjack's cut card: hands times decks)."""
    batch_group: str = ""
    """Shards share a job only with shards of the same stage and group; "": the shard's experiment, so
    that an edit of one experiment leaves every other's jobs as they were."""
    batch_whole: bool = False
    """The group shares one job whole or not at all (cost windows: their start-up probes time the windows
    that run in the same process after them)."""
    kernels: str = ""
    """Which compiled kernels the shard's job loads: the first job of a kind and kernels on a cold numba
    cache compiles them (numba caches them for the next).  "": one set for the kind."""
    cost_follows_shard: bool = False
    """A unit of work costs more in some shards than in others, and the neighbours of a shard cost about
    what it does (RedBlack's ranks: the lowest cost several times the highest).  The live view then
    prices a shard left by its group's measured shards on either side of it, not by the group's mean."""
    ledger: LedgerGrid | None = None
    """The grid of the campaign ledger that plans the shard (engines/core/ledger.py), where the plan holds
    it because a ledger keeps it, not because the config names it: such a shard is recomputed unasked only
    up to a core-hour of them (engines/pipeline/commands/campaign_work.py).  None: the config's."""

    @property
    def cpu_estimate_s(self) -> float | None:
        """The shard's CPU seconds on one warm core before any is measured, from its prices in
        engines/prices.yaml (the live view's ETA, a campaign's price, recompute caps): its ``shard``
        price, else ``per_unit`` times its units; None where the file prices neither."""
        shard = kind_price(self.price, "shard")
        per_unit = kind_price(self.price, "per_unit")
        return shard if shard is not None else None if per_unit is None else per_unit * self.units

    @property
    def batch_cpu_s(self) -> float | None:
        """A generous estimate of the shard's CPU seconds on one warm core, for a kind whose small shards may
        share one job (a job's start-up would cost more than such a shard's work): its :data:`BATCH_ESTIMATES`
        entry, a shard's or a unit's.  None keeps every shard a job of its own, as does a ledger's grid
        (a job that reran one shard of a batch would rewrite every kept file of it)."""
        if self.ledger is not None or self.price not in BATCH_ESTIMATES:
            return None
        per, seconds = BATCH_ESTIMATES[self.price]
        return seconds if per == "shard" else seconds * self.units

    @property
    def compile_cpu_s(self) -> float | None:
        """CPU seconds the first job of the shard's kernels spends compiling them on a cold numba cache (the live
        view prices it before that job has run); None: not measured (priced at the mean of the kinds')."""
        return kind_price(self.price, "compile")


class ShardKind(ABC):
    """One type of shard: its spec's ``kind``, tables, stage, resources, result version, plan and run.

    An instance belongs to one engine, which binds it to its game name (seeds are
    derived from it) when the engine class is defined; a kind used on its own (a bench)
    is given its game when made: ``ExhaustiveSearch("redblack")``.  How its shards are
    scheduled and priced is data the kind returns, :meth:`schedule`.
    """

    name: ClassVar[str]
    """The ``kind`` value of the specs this kind plans."""
    tables: ClassVar[tuple[str, ...]]
    """The tables every shard of this kind writes (a subset of the engine's tables)."""
    stage: ClassVar[str] = "shard"
    """The Snakemake rule (``<game>_<stage>``) that runs these shards; kinds sharing a stage write the same tables."""
    resources: ClassVar[Resources] = Resources()
    backends: ClassVar[Mapping[str, Any]] = {DEFAULT_BACKEND: None}
    """Backend name -> what :meth:`run` computes with under it (None where the kind has one way); first: the default."""
    work_unit: ClassVar[str | None] = None
    """What a shard's ``work`` counts when it is not the engine's unit (e.g. ``basin jobs``); a spec's
    own ``work_unit`` comes first.  The live view never adds work of different units."""
    result_version: ClassVar[str | None] = None
    """An explicit, test-guarded result version (kept campaigns outlive refactors), or None: the engine's source hash."""

    game: str = ""
    """The engine's name, set when an engine composes the kind."""

    def __init__(self, game: str = "") -> None:
        if game:
            self._bind(game)

    def _bind(self, game: str) -> None:
        if self.game and self.game != game:
            raise TypeError(f"shard kind {self.name!r} already belongs to game {self.game!r}, not {game!r}")
        self.game = game

    @abstractmethod
    def plan(self, section: Mapping[str, Any], planned: Sequence[Mapping[str, Any]]) -> list[dict]:
        """This kind's specs for the game's config section, in a fixed order.

        ``planned``: the specs the engine's earlier kinds planned (a second-stage kind reads them)."""

    @abstractmethod
    def run(self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str) -> dict[str, dict]:
        """Compute one shard with ``backend``: table name -> columns, calling ``progress.update(n)``."""

    def compute(
        self, spec: Mapping[str, Any], progress, inputs: Sequence[str], backend: str | None = None
    ) -> dict[str, dict]:
        """What a shard job calls: :meth:`run` with ``backend`` checked, or the kind's first backend."""
        chosen = default_backend(self) if backend is None else check_backend(self, backend, f"{self.game} shard")
        return self.run(spec, progress, inputs, chosen)

    def expected_rows(self, spec: Mapping[str, Any], table: str) -> int | None:
        """Rows a shard's table must hold by its spec; None when only the computation knows."""
        return None

    def inputs(self, spec: Mapping[str, Any], plan: Sequence[Mapping[str, Any]]) -> list[tuple[str, dict]]:
        """(table, spec) of the shard files this shard reads; none for a first-stage kind."""
        return []

    def schedule(self, section: Mapping[str, Any], spec: Mapping[str, Any]) -> Schedule:
        """How a shard of the game's config ``section`` is run and priced (:class:`Schedule`); the
        default: one thread, the kind's first backend, a job of its own, one set of kernels."""
        return Schedule()

    def device(self, backend: str) -> str | None:
        """What computes a shard under ``backend`` when it is not the job's CPU, for its timing record:
        a GPU's name with GPU_MARK (``NVIDIA H200 (gpu, numba-cuda)``), so that CPU seconds of a CPU
        kind never price work done elsewhere (:func:`on_gpu`).  None: the CPU."""
        return None


def default_backend(kind: ShardKind) -> str:
    """The kind's first backend: what computes its shards unless the config chooses another."""
    return next(iter(kind.backends))


def check_backend(kind: ShardKind, backend: str, where: str) -> str:
    """``backend`` if ``kind`` has it, else a CardlabError naming ``where`` and the known ones."""
    if backend not in kind.backends:
        raise CardlabError(
            f"{where}: unknown backend {backend!r} for {kind.name} shards; known: {', '.join(kind.backends)}"
        )
    return backend


def chosen_backend(kind: ShardKind, section: Mapping[str, Any], spec: Mapping[str, Any]) -> str:
    """The backend the game's config ``section`` chooses for a shard (its schedule's), else the kind's first."""
    return kind.schedule(section, spec).backend or default_backend(kind)


GPU_BACKEND = "gpu"
"""The backend name that computes on a GPU: its shards ask the scheduler for one (workflow/rules/shards.smk)."""

GPU_MARK = "(gpu"
"""In a timing record's ``machine``: the shard was computed on a GPU (:meth:`ShardKind.device`)."""


def on_gpu(machine: str | None) -> bool:
    """A timing record's machine names a GPU: its process's CPU seconds only waited on the device."""
    return GPU_MARK in (machine or "")


def kind_registry(game: str, kinds: Sequence[ShardKind], tables: Mapping[str, Any]) -> dict[str, ShardKind]:
    """Kind name -> kind for an engine, each bound to the game; TypeError on what the engine declares wrongly.

    Checks: names unique, every kind's tables among the engine's, kinds of one stage
    writing the same tables with the same resources."""
    registry: dict[str, ShardKind] = {}
    stages: dict[str, ShardKind] = {}
    for kind in kinds:
        if not isinstance(kind, ShardKind):
            raise TypeError(f"engine {game}: {kind!r} is not a ShardKind")
        if kind.name in registry:
            raise TypeError(f"engine {game}: two shard kinds named {kind.name!r}")
        unknown = set(kind.tables) - set(tables)
        if unknown or not kind.tables:
            raise TypeError(f"engine {game}: kind {kind.name!r} writes tables the engine lacks: {sorted(unknown)}")
        first = stages.setdefault(kind.stage, kind)
        if (first.tables, first.resources) != (kind.tables, kind.resources):
            raise TypeError(
                f"engine {game}: kinds {first.name!r} and {kind.name!r} share stage {kind.stage!r} "
                "but not its tables and resources"
            )
        kind._bind(game)
        registry[kind.name] = kind
    return registry
