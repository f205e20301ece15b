"""The prices the pipeline plans and estimates with are data (engines/prices.yaml), each one used."""

from __future__ import annotations

import pytest
import yaml

from engines.core.prices import PRICES, kind_price, run_price
from engines.core.provenance import code_of
from engines.pipeline.planning.plan import DEFAULT_CONFIG, load_plan


def test_every_planned_shard_names_prices_the_file_has_and_every_price_is_named():
    plan = load_plan(DEFAULT_CONFIG, "results")
    named = {s.kind.schedule(plan.config.get(s.game) or {}, s.spec).price for s in plan}
    listed = set(yaml.safe_load(PRICES.read_text())["kinds"])
    assert named - {""} <= listed, named - listed
    # the default config plans no cost windows' probes nor a Narcotic exhaustive size of its own: they are
    # named by their kinds' code
    unused = listed - named
    assert unused <= {"redblack/cost_window", "redblack/cost_window/probe", "redblack/sample"}, unused


def test_a_price_is_a_number_and_an_unknown_one_is_none():
    assert kind_price("narcotic/sim", "per_unit") > 0 and kind_price("narcotic/sim", "shard") is None
    assert kind_price("", "compile") is None and kind_price("no/such", "compile", 5.0) == 5.0
    assert run_price("job_start") > 0


def test_a_price_given_twice_is_refused_naming_the_file_and_line(tmp_path, monkeypatch):
    """The prices file is read as strictly as a config (engines/core/yamlfile.py): PyYAML alone would keep
    the second of two prices under one name without a word."""
    from engines.core import prices
    from engines.core.errors import CardlabError

    twice = tmp_path / "prices.yaml"
    twice.write_text("run:\n  job_start: 1.3\n  job_start: 13\nkinds: {}\n")
    monkeypatch.setattr(prices, "PRICES", twice)
    prices._prices.cache_clear()
    try:
        with pytest.raises(CardlabError, match=r"prices.yaml: line 3, column 3: duplicate key 'job_start'"):
            run_price("job_start")
    finally:
        prices._prices.cache_clear()


def test_no_engine_s_version_reads_the_prices():
    """A better measurement reruns nothing: the file is data, outside every hashed module's code."""
    from engines.interface import result_files
    from engines.registry import engines

    hashed = [code_of(PRICES.parent / e.name / f) for e in engines() for f in result_files(e)]
    assert hashed and not any(b"prices" in code for code in hashed)


def test_the_bench_measures_a_price_from_the_timing_records(tmp_path, monkeypatch):
    """bench/measure_prices.py: CPU seconds per thread over the units its price counts, per price key, from
    the finished CPU shards' records; a shard without a record, or computed on a GPU, counts nothing."""
    import importlib.util

    from engines.core.layout import timing_of
    from engines.pipeline.bookkeeping.records import write_record
    from engines.pipeline.compute.jobs import timing

    spec_of = importlib.util.spec_from_file_location("measure_prices", PRICES.parent.parent / "bench/measure_prices.py")
    bench = importlib.util.module_from_spec(spec_of)
    spec_of.loader.exec_module(bench)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text(
        "narcotic:\n  experiments:\n    - {name: seed, rules: seed, games: 3000, shards: 3, seed: 1}\n"
    )
    shards = [s for s in load_plan("config.yaml", "results") if s.game == "narcotic"]
    assert len(shards) == 3 and all(s.work == 1000 for s in shards)
    write_record(timing_of(shards[0].log), {"state": "done", **timing({"work": 1000}, "games", 0.5, 0.02, 1)})
    write_record(timing_of(shards[1].log), {"state": "done", **timing({"work": 1000}, "games", 0.5, 0.04, 2)})
    gpu = timing({"work": 1000}, "games", 0.5, 9.0, 1, device="NVIDIA H200 (gpu, numba-cuda)")
    write_record(timing_of(shards[2].log), {"state": "done", **gpu})
    cpu, units, jobs, machines = bench.measured("config.yaml", "results")["narcotic/sim"]
    assert jobs == 2 and units == 2000 and cpu == pytest.approx(0.04)  # 0.02 and 0.04 over 2 threads
    assert len(machines) == 1 and "H200" not in next(iter(machines))
