"""The prices the pipeline plans and estimates with are data (engines/prices.yaml), each one used."""

from __future__ import annotations

import yaml

from engines.core.prices import PRICES, kind_price, run_price
from engines.core.provenance import code_of
from engines.pipeline.running.plan import DEFAULT_CONFIG, load_plan


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


def test_no_engine_s_version_reads_the_prices():
    """A better measurement reruns nothing: the file is data, outside every hashed module's code."""
    from engines.interface import result_files
    from engines.registry import engines

    hashed = [code_of(PRICES.parent / e.name / f) for e in engines() for f in result_files(e)]
    assert hashed and not any(b"prices" in code for code in hashed)
