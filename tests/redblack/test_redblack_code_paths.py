"""Every code path of RedBlack's lane kernels gives the same search results.

The lane layout is chosen when numba compiles (engines/redblack/lanes.py
``compiles_for_avx512``): on AVX-512 a vector is four 512-bit registers (32 lanes of 64
bits, 64 of 32), elsewhere two of 256 bits (8 and 16 lanes), which LLVM lowers to SSE2
on numba's generic CPU.  Each target (bench/code_targets.py) is compiled in a child
process with its own numba cache and searches the same ranges: every canonical deal of
k = 6..10 (32-bit lanes) and a window of k = 17 (64-bit lanes), by brute force and by the
owner rule; every target's results must equal the generic CPU's.  A target this CPU
cannot run is skipped, naming the features it lacks.  Each target's searches run once per test
session, whichever pytest-xdist worker asks first (tests/redblack_searches.py), and
tests/redblack/test_lane_layouts.py reuses the AVX2 target's compiled kernels.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from redblack_searches import searched_once, searches

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from code_targets import BY_NAME, CI_TARGET_NAMES, TARGET_NAMES  # noqa: E402


@pytest.fixture(scope="module")
def generic() -> dict:
    avx512, results = searches(searched_once("generic"))
    assert not avx512
    return results


@pytest.mark.parametrize("target_name", CI_TARGET_NAMES)
def test_every_path_searches_like_the_generic_one(target_name, generic):
    avx512, results = searches(searched_once(target_name))
    assert avx512 == BY_NAME[target_name].redblack_avx512, f"compiled for {target_name}, the lanes took avx512={avx512}"
    assert results.keys() == generic.keys()
    for search, want in generic.items():
        assert results[search] == want, f"{search}: the {target_name} path differs from the generic path"
    assert any(res["infinite"] for res in results.values())  # the ranges hold infinite deals (k = 6)


@pytest.mark.slow
@pytest.mark.parametrize("target_name", [n for n in TARGET_NAMES if n not in CI_TARGET_NAMES])
def test_other_targets_search_like_the_generic_one(target_name, generic):
    test_every_path_searches_like_the_generic_one(target_name, generic)
