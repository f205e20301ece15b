"""Every code path of RedBlack's lane kernels gives the same search results.

The lane layout is chosen when numba compiles (engines/redblack/lanes.py
``compiles_for_avx512``): on AVX-512 a vector is four 512-bit registers (32 lanes of 64
bits, 64 of 32), elsewhere two of 256 bits (8 and 16 lanes), which LLVM lowers to SSE2
on numba's generic CPU.  Each target (bench/code_targets.py) is compiled in a child
process with its own numba cache and searches the same ranges: every canonical deal of
k = 6..10 (32-bit lanes) and a window of k = 17 (64-bit lanes), by brute force and by the
owner rule; every target's results must equal the generic CPU's.  A target this CPU
cannot run is skipped, naming the features it lacks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from code_targets import BY_NAME, CI_TARGET_NAMES, TARGET_NAMES, run_child  # noqa: E402

# A child: whether it compiled the AVX-512 layout, then one JSON line of every search's result.
CHILD = """
import json, sys
from dataclasses import asdict
from engines import redblack as rb
from engines.redblack.lanes import compiles_for_avx512

print(json.dumps(compiles_for_avx512()))
results = {}
for k, start, stop in json.loads(sys.argv[1]):
    for method in ("brute", "owner"):
        res = asdict(rb.search_range(k, start, stop, method=method))
        res["lengths"] = res["lengths"].tolist()
        results[f"k={k} [{start}, {stop}) {method}"] = res
print(json.dumps(results, default=int))
"""

RANGES = [[k, 0, None] for k in range(6, 11)] + [[17, 1_000_000, 1_040_000]]


def search_on(target_name: str, folder: Path) -> tuple[bool, dict]:
    """(whether the child compiled the AVX-512 layout, its results) for one target, or skip where this CPU cannot run it."""
    from engines import redblack as rb

    target = BY_NAME[target_name]
    if missing := target.missing():
        pytest.skip(f"this CPU lacks {', '.join(missing)}: the {target.name} path cannot run here")
    ranges = [[k, start, rb.canonical_deals(k) if stop is None else stop] for k, start, stop in RANGES]
    layout, results = run_child(CHILD, target, folder / "cache", json.dumps(ranges)).splitlines()
    return json.loads(layout), json.loads(results)


@pytest.fixture(scope="module")
def generic(tmp_path_factory) -> dict:
    avx512, results = search_on("generic", tmp_path_factory.mktemp("generic"))
    assert not avx512
    return results


@pytest.mark.parametrize("target_name", CI_TARGET_NAMES)
def test_every_path_searches_like_the_generic_one(target_name, generic, tmp_path):
    avx512, results = search_on(target_name, tmp_path) if target_name != "generic" else (False, generic)
    assert avx512 == BY_NAME[target_name].redblack_avx512, f"compiled for {target_name}, the lanes took avx512={avx512}"
    assert results.keys() == generic.keys()
    for search, want in generic.items():
        assert results[search] == want, f"{search}: the {target_name} path differs from the generic path"
    assert any(res["infinite"] for res in results.values())  # the ranges hold infinite deals (k = 6)


@pytest.mark.slow
@pytest.mark.parametrize("target_name", [n for n in TARGET_NAMES if n not in CI_TARGET_NAMES])
def test_other_targets_search_like_the_generic_one(target_name, generic, tmp_path):
    test_every_path_searches_like_the_generic_one(target_name, generic, tmp_path)
