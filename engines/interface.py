"""The one interface every game engine implements, enforced by an abstract base class.

A game is a package ``engines/<game>/`` whose ``engine.py`` defines a subclass
of :class:`Engine`, plus one line in :mod:`engines.registry`.  Everything else
(config checks, Snakemake rules, the warehouse, ``cardlab verify``, the report
index, provenance hashes, the CLI, the conformance tests) asks the engine
through this class and nothing else, so a game runs with no edit elsewhere
(docs/engines.md lists what a finished game adds: captions, config, docs).

An engine composes :class:`engines.kinds.ShardKind` objects, one per type of shard
it plans.  The engine plans (``plan``), groups (``stages``) and versions
(``result_version``) shards; everything about one shard (its tables, rows,
threads, backend, inputs, batching, computation) is its kind's, and callers ask
it directly: ``eng.kind_of(spec).tables``, ``eng.kind_of(spec).compute(spec, ...)``.
A game must provide ``tiny_config`` and ``reference_checks`` (abstract here).

Files the package may hold beside ``engine.py`` (found by name, all optional):

``kinds/``              the shard kinds the engine composes, one module per kind (or family)
``config.schema.yaml``  JSON schema of the game's config section
``views.sql``           views created in the warehouse over the game's tables
``report.py`` or        ``REPORT``, the game's :class:`engines.report.game.GameReport`
``report/``             (or the one the engine's ``report`` names)
``cli.py``              ``register(subparsers)``: ``cardlab <game> ...``

A shard *spec* has the same shape for every game: ``experiment`` (str),
``variant`` (str, safe as a path part), ``shard`` (int), ``kind`` (the shard's
type, e.g. ``"sim"``, ``"exhaustive"``), ``range`` (``[start, stop)`` of the
work items it covers, counted across the experiment), ``work`` (items, for
progress), optionally ``work_unit``, ``root_seed``, ``seed`` and
``seed_derivation``, plus the game's own parameters.  Specs are
JSON-serialisable and deterministic: they are recorded as provenance.  Threads
and backends never change results, so they stay out of the spec.
"""

from __future__ import annotations

import importlib
import importlib.util
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from .core.errors import CardlabError
from .core.provenance import CORE_FILES, files_version
from .kinds import ShardKind, kind_registry

if TYPE_CHECKING:  # pyarrow only types the interface: `cardlab --help` need not import it
    import pyarrow as pa

SPEC_KEYS = ("experiment", "variant", "shard", "kind", "range", "work")
"""Keys every spec carries (checked by the conformance test and by jobs.run_shard)."""


@dataclass(frozen=True)
class ReportFile:
    """One file a game's report job writes: ``reports/<name>``; CSV and PNG files get a caption."""

    name: str
    caption: str | None = None  # stem of workflow/report/<caption>.rst, for snakemake --report

    @property
    def path(self) -> str:
        return f"reports/{self.name}"


@dataclass(frozen=True)
class Stage:
    """A group of shards written by one Snakemake rule: the tables they write and the resources they need."""

    tables: tuple[str, ...]
    runtime_min: int = 60
    mem_mb: int = 1000


class Engine(ABC):
    """A game: the shard kinds it plans, what they write, and the game's own declarations.

    Subclasses set the class attributes, ``kinds`` included, and the abstract methods; the
    rest has a declared default.  What is derived from them (stages, versions, units, the
    report's files, the config schema and views) are the module's functions below, never
    overridden: :func:`stages_of`, :func:`result_version`, :func:`unit_of`, ...
    """

    name: ClassVar[str]
    """Package name under engines/, prefix of its table names, its config section."""
    title: ClassVar[str]
    question: ClassVar[str]
    """The question the game answers, shown on the report index."""
    work_unit: ClassVar[str] = "items"
    """What ``progress.update`` counts (games, deals, hands) unless a spec or its kind names its own ``work_unit``."""
    tables: ClassVar[Mapping[str, pa.Schema]]
    kinds: ClassVar[tuple[ShardKind, ...]]
    """The shard kinds, in planning order (a kind that reads other shards comes after them)."""
    sharded_field: ClassVar[str | None] = None
    """The field of each configured experiment that shards split (each shard needs at least one unit)."""
    report_files: ClassVar[tuple[ReportFile, ...]] = ()
    figure_basis: ClassVar[Mapping[str, tuple[str, str]]] = {}
    """For a figure stem: (SQL giving one row, format string) saying what the figure is computed from."""
    tooling_modules: ClassVar[tuple[str, ...]] = ()
    """Modules beside the CLI that only read results or plan runs (a campaign's state, its next
    shards): no shard job imports them, so they stay out of the results' version and an edit of
    them leaves every result current (the conformance test checks that a shard job imports none)."""
    report: ClassVar[str | None] = None
    """``"module:attribute"`` of the game's :class:`engines.report.game.GameReport`, imported only
    by the report step and the index (an engine sits below the report layer and never imports
    it); unset, the ``REPORT`` of the package's ``report`` module when it has one, else None."""
    _kind_by_name: ClassVar[dict[str, ShardKind]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        missing = [a for a in ("name", "title", "question", "tables", "kinds") if not hasattr(cls, a)]
        if missing:
            raise TypeError(f"engine {cls.__name__} does not set {', '.join(missing)}")
        cls._kind_by_name = kind_registry(cls.name, cls.kinds, cls.tables)
        if cls.report is None:
            # the default stays out of engine.py: a line there would change every result's source hash
            package = cls.__module__.rsplit(".", 1)[0]
            found = importlib.util.find_spec(f"{package}.report") if "." in cls.__module__ else None
            cls.report = f"{package}.report:REPORT" if found is not None else None

    # ------------------------------------------------------------------ shards: planned, grouped, versioned

    def kind_of(self, spec: Mapping[str, Any]) -> ShardKind:
        """The kind of a spec; a CardlabError for a kind the engine does not have."""
        kind = self._kind_by_name.get(spec.get("kind"))
        if kind is None:
            raise CardlabError(
                f"{self.name}: unknown shard kind {spec.get('kind')!r}; known: {', '.join(self._kind_by_name)}"
            )
        return kind

    def plan(self, section: Mapping[str, Any]) -> list[dict]:
        """The shard specs of the game's (schema-valid) config section: each kind's, in the order of ``kinds``."""
        specs: list[dict] = []
        for kind in self.kinds:
            specs += kind.plan(section or {}, tuple(specs))
        return specs

    # ------------------------------------------------------------------ what a game must provide

    @abstractmethod
    def tiny_config(self) -> dict:
        """A config section small enough for the conformance test (seconds) that plans every kind."""

    @abstractmethod
    def reference_checks(self, n: int) -> Iterable[tuple[str, Any, Any]]:
        """(case label, kernel result, reference result) for ``n`` of the engine's own cases
        (a game with no separate reference returns none, and says why)."""

    # ------------------------------------------------------------------ defaults

    def warehouse_tables(self) -> dict[str, pa.Table]:
        """Small tables made from the engine's own constants, loaded before ``views.sql`` (e.g. rule presets),
        so that SQL never repeats what the Python rules define."""
        return {}


# ---------------------------------------------------------------------- the game's files, for the versions


def game_directory(eng: Engine) -> Path:
    """The directory of the game's package, ``engines/<game>/``."""
    package = type(eng).__module__.rsplit(".", 1)[0]
    return Path(importlib.import_module(package).__file__).resolve().parent


RESULT_FOLDERS = ("", "kinds")
"""The folders of a game's package whose modules define its results: the package itself and its shard
kinds (``report/``, ``cli/`` and ``campaign/`` only read results or plan runs)."""


def result_files(eng: Engine) -> list[str]:
    """The package's result-defining sources, relative to it: every module of :data:`RESULT_FOLDERS`
    but the report, the CLI, its tooling modules and the test-only plain reference (shards never
    run it; tests compare the kernels with it)."""
    skip = {"report.py", "cli.py", "__init__.py", "reference.py", *eng.tooling_modules}
    home = game_directory(eng)
    return sorted(
        str(p.relative_to(home))
        for folder in RESULT_FOLDERS
        for p in (home / folder).glob("*.py")
        if p.name not in skip
    )


def report_sources(eng: Engine) -> list[str]:
    """The modules of the game's declared report, relative to its package: the module, or
    every module of a report package; none for a game without a report."""
    if eng.report is None:
        return []
    where = importlib.util.find_spec(eng.report.partition(":")[0])
    if where is None or where.origin is None:
        return []
    origin = Path(where.origin).resolve()
    home = game_directory(eng)
    if where.submodule_search_locations:  # a package: every module of it
        return sorted(str(p.relative_to(home)) for p in origin.parent.glob("*.py"))
    return [str(origin.relative_to(home))]


# ---------------------------------------------------------------------- derived from an engine, never overridden


def _kind_named(eng: Engine, spec: Mapping[str, Any]) -> ShardKind | None:
    return type(eng)._kind_by_name.get(spec.get("kind"))


def stages_of(eng: Engine) -> dict[str, Stage]:
    """Shard groups, each one Snakemake rule: the kinds' stages, in the order of ``kinds``."""
    out: dict[str, Stage] = {}
    for kind in eng.kinds:
        out.setdefault(kind.stage, Stage(kind.tables, kind.resources.runtime_min, kind.resources.mem_mb))
    return out


def result_version(eng: Engine, spec: Mapping[str, Any]) -> str:
    """The version a shard's results carry: its kind's explicit version, else a hash of the game's
    result-defining source and the core.

    A shard whose recorded version differs is stale and recomputed.  A kind may declare
    an explicit, test-guarded version for shards whose results must survive edits that
    do not change them (e.g. a long search campaign).  A spec of no known kind (a file
    an older engine wrote) gets the source hash, so it reads as stale, not as an error."""
    kind = _kind_named(eng, spec)
    return (kind.result_version if kind else None) or source_version(eng)


def unit_of(eng: Engine, spec: Mapping[str, Any]) -> str:
    """What a spec's ``work`` counts: the spec's ``work_unit``, else its kind's, else the engine's."""
    kind = _kind_named(eng, spec)
    return spec.get("work_unit") or (kind.work_unit if kind else None) or eng.work_unit


def report_outputs_of(eng: Engine) -> tuple[ReportFile, ...]:
    """``report_files`` plus the readable HTML page rendered from each Markdown report (``<name>.html``)."""
    pages = tuple(
        ReportFile(f.name.removesuffix(".md") + ".html", "report_page")
        for f in eng.report_files
        if f.name.endswith(".md")
    )
    return tuple(eng.report_files) + pages


def source_version(eng: Engine) -> str:
    """A shard's version: the code (comments and docstrings left out) of :func:`result_files` and the core."""
    return files_version([f"{eng.name}/{f}" for f in result_files(eng)] + list(CORE_FILES))


def report_version(eng: Engine) -> str:
    """A report's version: the code of every module of the game's declared report, of its views
    and of the shared report helpers, so that an edit of any of them rebuilds the report."""
    views = ["views.sql"] if (game_directory(eng) / "views.sql").exists() else []
    files = [f"{eng.name}/{f}" for f in (*report_sources(eng), *views)]
    return files_version(sorted(files) + ["report/common.py"])


def config_schema_of(eng: Engine) -> dict:
    """The JSON schema of the game's config section (its package's ``config.schema.yaml``)."""
    from .core.yamlfile import read_yaml  # PyYAML: 8 ms that `cardlab --help` (which imports this module) skips

    path = game_directory(eng) / "config.schema.yaml"
    return read_yaml(path, "config schema") if path.exists() else {"type": "object"}


def views_sql(eng: Engine) -> list[str]:
    """The statements of ``views.sql``: comment lines dropped (they may hold ';'), then split on ';'."""
    path = game_directory(eng) / "views.sql"
    if not path.exists():
        return []
    code = "\n".join(ln for ln in path.read_text().splitlines() if not ln.lstrip().startswith("--"))
    return [stmt.strip() for stmt in code.split(";") if stmt.strip()]
