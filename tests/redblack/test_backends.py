"""A search backend is a choice inside the exhaustive kind: it never changes a spec, a result version or a result."""

from __future__ import annotations

import pytest

from engines.core.errors import CardlabError
from engines.core.progress import Progress
from engines.interface import result_version
from engines.kinds import chosen_backend
from engines.pipeline.planning.plan import validate_config
from engines.redblack.engine import SEARCH_RESULT_VERSION, RedBlackEngine
from engines.redblack.exhaustive import search_range
from engines.redblack.kinds.search import ExhaustiveSearch
from engines.registry import engine

BLOCKS = [
    {"k_min": 1, "k_max": 5, "method": "brute", "deals_per_shard": 100},
    {"k": [7], "method": "owner", "deals_per_shard": 500},
]


def section(**block_extra) -> dict:
    return {"exhaustive": [{**b, **block_extra} for b in BLOCKS], "basins": True}


def test_the_default_backend_is_scalar_and_naming_it_changes_no_spec():
    eng = engine("redblack")
    plain, named = eng.plan(section()), eng.plan(section(backend="scalar"))
    assert plain == named and [result_version(eng, s) for s in named] == [result_version(eng, s) for s in plain]
    searches = [s for s in named if s["kind"] == "exhaustive"]
    assert searches and all("backend" not in s for s in named)
    assert {chosen_backend(eng.kind_of(s), section(backend="scalar"), s) for s in searches} == {"scalar"}
    assert {chosen_backend(eng.kind_of(s), section(), s) for s in searches} == {"scalar"}
    assert {result_version(eng, s) for s in searches} == {SEARCH_RESULT_VERSION}


def test_an_unknown_backend_in_the_config_names_the_field_and_the_known_ones():
    config = {"redblack": {"exhaustive": [BLOCKS[0], {**BLOCKS[1], "backend": "tpu"}]}}
    known = r"redblack\.exhaustive\[1\]\.backend: unknown backend 'tpu'.*known: scalar, gpu"
    with pytest.raises(CardlabError, match=known):
        validate_config(config)


class Recorded:
    """A second backend for the test: the scalar search, noting each call."""

    def __init__(self):
        self.calls: list[tuple] = []

    def __call__(self, k, start, stop, progress=None, method="brute"):
        self.calls.append((k, start, stop, method))
        return search_range(k, start, stop, progress, method=method)


def test_a_second_backend_is_chosen_by_config_and_gives_the_same_spec_version_and_tables():
    twin = Recorded()

    class TwinSearch(ExhaustiveSearch):
        backends = {"scalar": search_range, "twin": twin}

    class TwinEngine(RedBlackEngine):
        __module__ = RedBlackEngine.__module__  # its package (and source version) is RedBlack's
        kinds = (TwinSearch(),) + RedBlackEngine.kinds[1:]

    eng, base = TwinEngine(), engine("redblack")
    config = section(backend="twin")
    specs = eng.plan(config)
    assert specs == base.plan(section())
    assert [result_version(eng, s) for s in specs] == [result_version(base, s) for s in specs]
    spec = next(s for s in specs if s["kind"] == "exhaustive" and s["k"] == 7)
    assert chosen_backend(eng.kind_of(spec), config, spec) == "twin"
    progress = Progress(spec["work"], "deals", enabled=False)
    chosen = eng.kind_of(spec).compute(spec, progress, [], backend=chosen_backend(eng.kind_of(spec), config, spec))
    assert twin.calls == [(7, *spec["range"], "owner")]
    scalar = base.kind_of(spec).compute(spec, Progress(spec["work"], "deals", enabled=False), [])
    assert {t: {c: list(v) for c, v in cols.items()} for t, cols in chosen.items()} == {
        t: {c: list(v) for c, v in cols.items()} for t, cols in scalar.items()
    }
