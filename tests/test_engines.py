"""One conformance test, parametrised over the registry: every engine keeps the interface's promises."""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from wfhelp import ROOT

from engines.core import layout
from engines.core.errors import CardlabError
from engines.core.progress import Progress
from engines.core.store import read_meta
from engines.interface import SPEC_KEYS, Engine, result_version, source_version, stages_of, unit_of
from engines.kinds import Schedule, ShardKind, chosen_backend, default_backend
from engines.pipeline.compute import jobs
from engines.pipeline.planning.plan import validate_config
from engines.registry import ENGINES, GAMES, engine


@pytest.fixture(params=GAMES)
def eng(request) -> Engine:
    return engine(request.param)


def tiny_plan(eng: Engine) -> list[dict]:
    section = eng.tiny_config()
    validate_config({eng.name: section}, "tiny config")  # the engine's own example passes its schema
    return eng.plan(section)


def test_registry_entries_are_engines(eng):
    assert isinstance(eng, Engine) and eng.name in ENGINES and eng.name == type(eng).name
    assert set(eng.tables) and all(t.startswith(f"{eng.name}_") for t in eng.tables)
    # every table is written by exactly one stage
    staged = [t for stage in stages_of(eng).values() for t in stage.tables]
    assert sorted(staged) == sorted(eng.tables)


def test_engine_without_the_required_methods_is_refused():
    with pytest.raises(TypeError):
        type("Half", (Engine,), {"name": "half", "title": "t", "question": "q", "tables": {}})()


MAX_ENGINE_NAMES = 16


def test_the_engine_contract_stays_small():
    """What a game declares and must provide; what is derived from it (stages, versions, units, the report's
    files, the config schema, the views) are engines.interface's functions, not members each game inherits.
    What a shard needs is its kind's (``eng.kind_of(spec).tables``), not a forwarding method here."""
    names = public_names(Engine)
    assert len(names) <= MAX_ENGINE_NAMES, names
    assert not {"stages", "result_version", "source_version", "views_sql", "report_outputs"} & set(names)
    assert Engine.__abstractmethods__ == {"tiny_config", "reference_checks"}


MAX_KIND_NAMES = 15


def public_names(cls: type) -> list[str]:
    """Every public name of a class: methods, properties, class data and declared attributes."""
    declared = {n for c in cls.__mro__ for n in getattr(c, "__annotations__", {})}
    return sorted(n for n in set(dir(cls)) | declared if not n.startswith("_"))


def test_the_shard_kind_contract_stays_small():
    """A kind says what its shards are; how they are scheduled and priced is data it returns in one
    structure (``kind.schedule(section, spec)``: a Schedule), not a method or attribute each."""
    names = public_names(ShardKind)
    assert len(names) <= MAX_KIND_NAMES, names
    assert "schedule" in names and not {"threads", "batch_cpu_s", "kernels", "compile_cpu_s"} & set(names)
    assert dataclasses.is_dataclass(Schedule) and Schedule.__dataclass_params__.frozen


@pytest.mark.parametrize("missing", ["tiny_config", "reference_checks"])
def test_a_game_missing_an_abstract_method_is_refused(missing):
    provided = {"tiny_config": lambda self: {}, "reference_checks": lambda self, n: ()}
    del provided[missing]
    game = type("Partial", (toy_engine((Toy(),)),), provided)
    with pytest.raises(TypeError, match=missing):
        game()
    provided[missing] = lambda self, *a: {}
    assert isinstance(type("Whole", (toy_engine((Toy(),)),), provided)(), Engine)


class Toy(ShardKind):
    name, tables = "toy", ("toy_rows",)

    def plan(self, section, planned):
        return []

    def run(self, spec, progress, inputs, backend):
        return {}


def toy_engine(kinds: tuple, tables=("toy_rows",)) -> type:
    attrs = {"name": "toy", "title": "t", "question": "q", "tables": dict.fromkeys(tables), "kinds": kinds}
    return type("ToyEngine", (Engine,), attrs)


@pytest.mark.parametrize(
    "kinds, tables, problem",
    [
        ((Toy(), Toy()), ("toy_rows",), "two shard kinds named 'toy'"),
        ((Toy(),), ("toy_other",), "writes tables the engine lacks"),
        (
            (Toy(), type("Wide", (Toy,), {"name": "wide", "tables": ("toy_rows", "toy_more")})()),
            ("toy_rows", "toy_more"),
            "share stage",
        ),
        (("toy",), ("toy_rows",), "is not a ShardKind"),
    ],
)
def test_engine_with_badly_declared_kinds_is_refused(kinds, tables, problem):
    with pytest.raises(TypeError, match=problem):
        toy_engine(kinds, tables)


def test_a_kind_belongs_to_one_game():
    kind = Toy()
    toy_engine((kind,))
    with pytest.raises(TypeError, match="already belongs to game 'toy'"):
        type(
            "Other",
            (Engine,),
            {"name": "other", "title": "t", "question": "q", "tables": {"toy_rows": None}, "kinds": (kind,)},
        )


def test_kinds_declare_the_engines_tables_and_stages(eng):
    stages = stages_of(eng)
    assert eng.kinds and len({k.name for k in eng.kinds}) == len(eng.kinds)
    for kind in eng.kinds:
        assert isinstance(kind, ShardKind) and kind.game == eng.name
        assert kind.tables and set(kind.tables) <= set(eng.tables), kind.name
        assert stages[kind.stage].tables == kind.tables
        assert (stages[kind.stage].runtime_min, stages[kind.stage].mem_mb) == (
            kind.resources.runtime_min,
            kind.resources.mem_mb,
        )
        assert default_backend(kind) in kind.backends


def test_every_kind_plans_deterministic_specs_of_its_own(eng):
    """The tiny config exercises every kind; a kind's plan, given the same earlier specs, is the same."""
    section, specs = eng.tiny_config(), tiny_plan(eng)
    by_kind = {kind.name: [s for s in specs if s["kind"] == kind.name] for kind in eng.kinds}
    assert all(by_kind.values()), f"the tiny config plans no shard of {[k for k, v in by_kind.items() if not v]}"
    assert sum(map(len, by_kind.values())) == len(specs)
    planned: list[dict] = []
    for kind in eng.kinds:
        mine = kind.plan(section, tuple(planned))
        assert mine == by_kind[kind.name] == kind.plan(section, tuple(planned))
        assert all(eng.kind_of(s) is kind for s in mine)
        planned += mine


def test_every_kind_has_one_stable_result_version(eng):
    for kind in eng.kinds:
        versions = {result_version(eng, s) for s in tiny_plan(eng) if s["kind"] == kind.name}
        assert versions == {kind.result_version or source_version(eng)}, kind.name
        assert versions == {result_version(eng, s) for s in tiny_plan(eng) if s["kind"] == kind.name}


def test_an_unknown_kind_is_refused(eng):
    spec = {**tiny_plan(eng)[0], "kind": "no-such-kind"}
    known = ", ".join(k.name for k in eng.kinds)
    with pytest.raises(CardlabError, match=f"{eng.name}: unknown shard kind 'no-such-kind'; known: {known}"):
        eng.kind_of(spec)  # every question about one shard goes through its kind
    # a file an older engine wrote, of a kind since removed, is stale (the source hash), not an error
    assert result_version(eng, spec) == source_version(eng)


def test_an_unknown_backend_is_refused(eng):
    specs = tiny_plan(eng)
    spec = next(s for s in specs if not eng.kind_of(s).inputs(s, specs))
    assert chosen_backend(eng.kind_of(spec), eng.tiny_config(), spec) in eng.kind_of(spec).backends
    with pytest.raises(CardlabError, match="unknown backend 'no-such-backend'"):
        eng.kind_of(spec).compute(spec, Progress(1, "items", enabled=False), [], backend="no-such-backend")


def test_plan_is_deterministic_and_json(eng):
    specs = tiny_plan(eng)
    assert specs, "the tiny config plans no shard"
    assert json.loads(json.dumps(specs)) == specs == tiny_plan(eng)
    for spec in specs:
        assert set(SPEC_KEYS) <= set(spec), f"spec lacks {set(SPEC_KEYS) - set(spec)}: {spec}"
    keys = [(s["experiment"], s["variant"], s["shard"]) for s in specs]
    assert len(keys) == len(set(keys)), "two shards share a path"


def test_plan_tiles_its_work_exactly(eng):
    """Per experiment and variant: shards 0..n-1 whose ranges cover [0, total) once, in order."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for spec in tiny_plan(eng):
        groups[spec["experiment"], spec["variant"]].append(spec)
    configured = {e["name"]: e for e in eng.tiny_config().get("experiments", [])}
    for (experiment, variant), specs in groups.items():
        specs.sort(key=lambda s: s["shard"])
        assert [s["shard"] for s in specs] == list(range(len(specs)))
        edges = [tuple(s["range"]) for s in specs]
        assert edges[0][0] == 0 and all(a[1] == b[0] for a, b in zip(edges, edges[1:])), edges
        assert all(lo <= hi for lo, hi in edges)
        if experiment in configured and eng.sharded_field:
            assert edges[-1][1] == configured[experiment][eng.sharded_field]


def test_seeds_are_distinct(eng):
    seeds = [s["seed"] for s in tiny_plan(eng) if "seed" in s]
    assert len(seeds) == len(set(seeds))


def run_plan(eng: Engine, root: Path) -> dict[str, str]:
    """Run every shard of the tiny plan through jobs.run_shard; sha256 of each file written."""
    specs = tiny_plan(eng)
    out = {}
    for spec in specs:
        inputs = [layout.shard_path(eng.name, t, s, root=str(root)) for t, s in eng.kind_of(spec).inputs(spec, specs)]
        outputs = {t: layout.shard_path(eng.name, t, spec, root=str(root)) for t in eng.kind_of(spec).tables}
        jobs.run_shard(eng.name, spec, outputs, inputs=inputs, log=str(root / "shard.log"))
        for table, path in outputs.items():
            meta = read_meta(path)
            assert (meta["game"], meta["table"], meta["spec"]) == (eng.name, table, spec)
            assert meta["engine_version"] == result_version(eng, spec)
            pf = pq.ParquetFile(path)
            assert pf.schema_arrow.remove_metadata().equals(eng.tables[table].remove_metadata())
            want = eng.kind_of(spec).expected_rows(spec, table)
            assert want is None or pf.metadata.num_rows == want
            out[str(Path(path).relative_to(root))] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return out


def test_shards_fit_their_tables_and_reproduce(eng, tmp_path):
    first = run_plan(eng, tmp_path / "a")
    assert first and first == run_plan(eng, tmp_path / "b"), "same spec, different bytes"


def test_kernel_equals_reference(eng):
    cases = list(eng.reference_checks(40))
    assert cases, "the engine offers no reference cases"
    for label, kernel, reference in cases:
        assert kernel == reference, label


def test_progress_counts_the_planned_work(eng, tmp_path):
    specs = tiny_plan(eng)
    spec = next(s for s in specs if not eng.kind_of(s).inputs(s, specs))
    progress = Progress(spec["work"], unit_of(eng, spec), enabled=False)
    eng.kind_of(spec).compute(spec, progress, [])
    assert progress.done == spec["work"]


def test_declared_reports_have_captions(eng):
    for f in eng.report_files:
        assert f.caption is None or (ROOT / "workflow" / "report" / f"{f.caption}.rst").exists(), f


def test_the_report_is_declared_in_one_shape_and_versioned_whole(eng):
    """The report step and the index use the declared GameReport; its version covers every renderer."""
    from engines.interface import game_directory, report_sources
    from engines.report.common import game_report
    from engines.report.game import GameReport

    report = game_report(eng.name)
    assert isinstance(report, GameReport) and report.writers and report.queries
    renderers = (*report.writers, report.answer, report.tables)
    home = game_directory(eng)
    used = {Path(inspect.getfile(f)).resolve() for f in renderers if f.__module__.startswith(f"engines.{eng.name}")}
    assert used and {str(p.relative_to(home)) for p in used} <= set(report_sources(eng))


@pytest.fixture(scope="module")
def empty_warehouse(tmp_path_factory) -> Path:
    from engines.pipeline.catalog import warehouse

    return warehouse.build([], tmp_path_factory.mktemp("empty") / "warehouse.duckdb", log=None)


def test_every_named_report_query_runs_on_an_empty_warehouse(eng, empty_warehouse):
    import duckdb

    from engines.report.common import game_report

    con = duckdb.connect(str(empty_warehouse), read_only=True)
    try:
        for sql in game_report(eng.name).queries.values():
            con.execute(sql, [0] * sql.count("?")).fetchall()  # raises on a query its views cannot answer
    finally:
        con.close()
