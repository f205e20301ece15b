"""Damage any bookkeeping file any way (a field of any JSON value, NaN, Infinity, huge numbers, a field
missing, bytes that are no text, a folder in its place): its table still builds, the file is either a
record every reader believes (its values then typed, finite and within bounds) or left out and named by
:func:`engines.core.bookkeeping.left_out`, never both and never neither, and the progress model reads past it.
Fast under CI's profile; ``-m slow`` draws ten times as many."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
import yaml
from bookkeeping_tree import CHECKS, GOOD_MEASUREMENT, MEASUREMENT, TIMING, folder, inside, make_tree, rebuild, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.core.bookkeeping import INT64_MAX, TEN_YEARS_S, left_out
from engines.core.store import read_meta
from engines.pipeline.bookkeeping.records import finished_timing, parse, read_record, read_shard_record, step_cpu
from engines.pipeline.catalog.check_records import check_records_table, kept_now
from engines.pipeline.catalog.measurements import measurements_table
from engines.pipeline.catalog.warehouse import timing_table
from engines.pipeline.planning.plan import load_plan

FIELDS = {
    "timing record": ("state", "work", "unit", "wall_s", "cpu_s", "threads", "machine", "peak_mb", "step", "reading"),
    "check record": ("shard", "matched", "engine_version", "date", "machine", "cpu_s", "files"),
    "measurement": ("bench", "measured_on", "metrics"),
}
PATHS = {"timing record": TIMING, "check record": CHECKS, "measurement": MEASUREMENT}

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, -1, 2**31, 2**63, 2**64, 1e12, 1e300, -1e300, 2.5, "2026-13-45", "2026-12-04", "abc", ""]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    with inside(make_tree(tmp_path_factory.mktemp("fuzz") / "tree")) as wd:
        originals = {kind: Path(p).read_bytes() for kind, p in PATHS.items()}
        plan = load_plan("config.yaml")
        metas = {f: read_meta(f) for f in plan.files}
        yield wd, originals, metas


@st.composite
def damages(draw):
    """(kind, what the file becomes: bytes, or None for a folder in its place)."""
    kind = draw(st.sampled_from(sorted(PATHS)))
    how = draw(st.sampled_from(["field", "missing", "bytes", "folder", "json"]))
    if how == "folder":
        return kind, None
    if how == "bytes":
        return kind, draw(st.binary(max_size=40))
    if how == "json":
        return kind, json.dumps(draw(values)).encode()
    return kind, draw(field_damage(kind, how))


@st.composite
def field_damage(draw, kind: str, how: str):
    base = good(kind)
    field = draw(st.sampled_from(FIELDS[kind]))
    if how == "missing":
        base.pop(field, None)
    else:
        base[field] = draw(values)
    return (json.dumps(base) + ("\n" if kind == "check record" else "")).encode()  # NaN, Infinity as Python writes them


def good(kind: str) -> dict:
    if kind == "measurement":
        return json.loads(json.dumps(GOOD_MEASUREMENT))
    if kind == "timing record":
        return json.loads(Path(TIMING).read_text() or "{}") if Path(TIMING).is_file() else {"state": "done"}
    return {"shard": 0, "matched": True, "engine_version": "v", "date": "2026-12-01", "machine": "m", "cpu_s": 1.0}


def damaged_once(tree, kind: str, content: bytes | None) -> bool:
    """Write the damage, check every reader of that kind, restore the file; whether it was left out."""
    wd, originals, metas = tree
    path = PATHS[kind]
    if content is None:
        folder(path)
    else:
        write(path, content)
    try:
        named = [bad for bad in left_out("results") if bad.path == path]
        assert all("\n" not in bad.message() and path in bad.message() for bad in named)
        if kind == "timing record":
            timings_agree(metas, path, bool(named))
        elif kind == "check record":
            table = check_records_table("results", kept_now(metas)).to_pylist()
            assert {r["line"] for r in table if r["status"] == "invalid"} == {bad.line for bad in named}
            assert all(r["shard"] is None or 0 <= r["shard"] < 2**31 for r in table)
        else:
            table = measurements_table("results").to_pylist()
            assert (not table) == bool(named)
            assert all(math.isfinite(r["value"]) for r in table)
        return bool(named)
    finally:
        if os.path.isdir(path):
            folder_gone(path)
        write(path, originals[kind])


def folder_gone(path: str) -> None:
    import shutil

    shutil.rmtree(path)


def timings_agree(metas: dict, path: str, named: bool) -> None:
    """The warehouse's timing rows, the live view's reading and the step prices all read past the record."""
    rows = timing_table(metas).to_pylist()
    row = [r for r in rows if r["experiment"] == "exhaustive_k02"]
    assert len(rows) - len(row) == 3  # every other shard's row
    found = read_record(path)
    timed = found is not None and finished_timing(parse(found.text)) is not None
    assert len(row) == (0 if named else int(timed))  # a record believed is loaded; one left out is not
    for r in rows:
        for c in ("wall_s", "cpu_s", "peak_mb"):
            assert r[c] is None or 0 <= r[c] <= TEN_YEARS_S * 1e3
        assert r["work"] is None or 0 <= r["work"] <= INT64_MAX
    if found is not None:
        read_shard_record(found.text, found.mtime, 10)  # the live view: no traceback
        assert all(math.isfinite(v) and v >= 0 for v in step_cpu({path: found.text}).values())


SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@settings(max_examples=150, **SETTINGS)
@given(damage=damages())
def test_any_damage_to_a_bookkeeping_file_is_read_past_or_left_out_and_named(tree, damage):
    damaged_once(tree, *damage)


@pytest.mark.slow
@settings(max_examples=1500, **SETTINGS)
@given(damage=damages())
def test_any_damage_to_a_bookkeeping_file_is_read_past_or_left_out_and_named_at_length(tree, damage):
    damaged_once(tree, *damage)


@settings(max_examples=4, **SETTINGS)
@given(damage=damages())
def test_the_whole_warehouse_builds_past_a_damaged_bookkeeping_file(tree, damage):
    kind, content = damage
    path = PATHS[kind]
    wd, originals, _ = tree
    folder(path) if content is None else write(path, content)
    try:
        rebuild()
    finally:
        if os.path.isdir(path):
            folder_gone(path)
        write(path, originals[kind])


# The other files cardlab reads, damaged the same ways: each is refused in one CardlabError line naming the
# file (a ledger, the prices file, a config) or counts as absent (the run lock's record, a campaign run's
# note); never another exception, never a value believed out of its domain.
def any_content():
    return st.one_of(
        st.binary(max_size=60),
        values.map(lambda v: json.dumps(v).encode()),
        st.none(),  # a folder in the file's place
    )


def put(path: Path, content: bytes | None) -> None:
    import shutil

    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)


@settings(max_examples=120, **SETTINGS)
@given(content=any_content(), field=st.sampled_from(["", "per_shard", "shards", "game"]), value=values)
def test_a_damaged_ledger_is_read_or_refused_in_one_line_naming_it(tmp_path_factory, content, field, value):
    from engines.campaign.book import Campaign
    from engines.core.errors import CardlabError
    from engines.core.ledger import read_ledger

    root = tmp_path_factory.mktemp("ledger")
    camp = Campaign(
        "redblack", "exhaustive_k24", "owner", "k = 24", 10**6, "deals", ("t",), "cardlab campaign redblack 24"
    )
    path = root / "ledger" / "redblack" / "exhaustive_k24" / "owner.json"
    if field:  # one field of a good ledger damaged
        good = {
            "game": "redblack",
            "experiment": "exhaustive_k24",
            "variant": "owner",
            "per_shard": 1000,
            "shards": [[0, 3]],
        }
        content = json.dumps({**good, field: value}).encode()
    put(path, content)
    try:
        ledger = read_ledger(*camp.place, camp.grid(), root=str(root))
    except CardlabError as exc:
        assert str(path) in str(exc) and "\n" not in str(exc)
        return
    if ledger is not None:
        assert 1 <= ledger.per_shard <= camp.total and all(0 <= n < camp.total for n in ledger)


GOOD_PRICES = yaml.safe_load(Path(__file__).parent.parent.joinpath("engines/prices.yaml").read_text())


@settings(max_examples=120, **SETTINGS)
@given(content=any_content(), key=st.sampled_from(["", "kinds", "run"]), value=values)
def test_a_damaged_prices_file_is_refused_in_one_line_naming_it(tmp_path_factory, monkeypatch, content, key, value):
    from engines.core import prices
    from engines.core.errors import CardlabError

    path = tmp_path_factory.mktemp("prices") / "prices.yaml"
    if key:
        content = yaml.safe_dump({**GOOD_PRICES, key: value}).encode()
    put(path, content)
    monkeypatch.setattr(prices, "PRICES", path)
    prices._prices.cache_clear()
    try:
        per_unit = prices.kind_price("narcotic/sim", "per_unit")
        start = prices.run_price("job_start")
    except CardlabError as exc:
        assert str(path) in str(exc) and "\n" not in str(exc)
    else:
        assert per_unit is None or 0 <= per_unit <= prices.MAX_PRICE
        assert 0 <= start <= prices.MAX_PRICE
    finally:
        prices._prices.cache_clear()


@settings(max_examples=120, **SETTINGS)
@given(content=any_content(), field=st.sampled_from(["", "pid", "config", "targets", "started"]), value=values)
def test_a_damaged_run_state_file_counts_as_absent(tmp_path_factory, content, field, value):
    from engines.pipeline.bookkeeping import runstate

    where = tmp_path_factory.mktemp("state")
    config = where / "run.yaml"
    config.write_text("{}")
    if field:
        good = {"pid": os.getpid(), "command": "c", "config": str(config), "targets": [], "started": 1.0}
        content = json.dumps({**good, field: value}).encode()
    put(where / "cardlab-run-1.json", content)
    put(where / "cardlab-run.lock", content)
    run = runstate.running_campaign(str(where))
    assert run is None or (run.config == str(config) and all(isinstance(t, str) for t in run.targets))
    started = runstate.run_start(str(where / "cardlab-run.lock"))
    assert started is None or 0 <= started <= 2**33


@settings(max_examples=60, **SETTINGS)
@given(content=any_content())
def test_a_damaged_config_is_refused_in_one_line_naming_it(tmp_path_factory, content):
    from engines.core.errors import CardlabError
    from engines.pipeline.planning.config import read_config
    from engines.pipeline.planning.plan import Plan

    path = tmp_path_factory.mktemp("config") / "config.yaml"
    put(path, content)
    try:
        Plan.build(*read_config([str(path)]))
    except CardlabError as exc:
        assert "\n" not in str(exc).strip() or str(path) in str(exc)
