"""The lane layout follows numba's target CPU (engines/redblack/lanes.py): four 512-bit registers a
vector on AVX-512, two 256-bit ones elsewhere.  Both layouts give the same results, deal for deal;
this host runs its own layout here and the AVX2 one in a process compiled for an AVX2 CPU without
AVX-512 (bench/code_targets.py's "pshufb" target), loading the kernels that
tests/redblack/test_redblack_code_paths.py compiled for that target once per session
(tests/redblack_searches.py): the same kernels, compiled once rather than twice."""

from __future__ import annotations

import dataclasses
import json

import numba
import numpy as np
import pytest
from redblack_searches import run_with_kernels_of

import engines.redblack as rb
from engines.redblack import lanes

# (k, start, stop, method): 32-bit lanes (k <= 15) and 64-bit ones, both methods, ranges shorter
# than a lane count and far longer, and the window where k = 22's published cycle is met
RANGES = [
    (6, 0, 40, "brute"),
    (12, 0, 1_352_078, "owner"),
    (15, 77_400_000, 77_558_760, "brute"),
    (15, 30_000_000, 30_600_000, "owner"),
    (16, 3_000_000, 3_000_029, "owner"),
    (19, 5_000_000_000, 5_000_400_000, "brute"),
    (22, 8_237_600_000, 8_237_800_000, "owner"),
    (26, 120_000_000_000_000, 120_000_000_300_000, "owner"),
]

SEARCH = """
import dataclasses, json, sys
import numba
numba.set_num_threads(1)
import engines.redblack as rb
from engines.redblack import lanes
out = {"lanes": [lanes.WIDE.count, lanes.NARROW.count], "results": []}
for k, start, stop, method in json.loads(sys.argv[1]):
    res = dataclasses.asdict(rb.search_range(k, start, stop, method=method))
    res["lengths"] = [int(x) for x in res["lengths"]]
    out["results"].append(res)
print(json.dumps(out))
"""


def search_here(k: int, start: int, stop: int, method: str) -> dict:
    res = dataclasses.asdict(rb.search_range(k, start, stop, method=method))
    res["lengths"] = [int(x) for x in np.asarray(res["lengths"])]
    return json.loads(json.dumps(res))  # tuples as lists, as the other process reports them


def test_the_avx2_layout_finds_what_this_hosts_layout_finds():
    # AVX2, no AVX-512 (numba compiles for the features given, else the host's): the layout of the
    # machines without AVX-512; the session's searches on that target left its kernels in the cache
    there = json.loads(run_with_kernels_of("pshufb", SEARCH, json.dumps(RANGES)))
    assert there["lanes"] == [8, 16]
    for spec, theirs in zip(RANGES, there["results"], strict=True):
        assert search_here(*spec) == theirs, spec


@pytest.mark.parametrize(
    "features, avx512",
    [("+avx2,+avx512f,+avx512bw", True), ("+avx2,-avx512f", False), ("+avx2", False)],
)
def test_the_layout_follows_numbas_target(monkeypatch, features, avx512):
    monkeypatch.setattr(numba.config, "CPU_FEATURES", features)
    assert lanes.compiles_for_avx512() is avx512
    wide, narrow = lanes._layouts(avx512)
    # a vector is four registers on AVX-512 (32 of them), two elsewhere (16)
    assert wide.width * wide.count == narrow.width * narrow.count == (2048 if avx512 else 512)


def test_the_lane_state_has_this_layouts_lanes():
    assert lanes.lane_state(15).shape == (lanes.ROWS, lanes.NARROW.count)
    assert lanes.lane_state(16).shape == (lanes.ROWS, lanes.WIDE.count)


def _log2_kernel(layout: lanes._Lanes):
    """An njit function writing layout.log2 of each vector's worth of an array in place."""
    from numba import njit, types
    from numba.extending import intrinsic

    dtype = types.int64 if layout.width == 64 else types.int32

    @intrinsic
    def log2_in_place(typingctx, arr):
        def codegen(context, b, sig, args):
            data = context.make_array(sig.args[0])(context, b, args[0]).data
            ptr = b.bitcast(data, layout.vec.as_pointer())
            b.store(layout.log2(b, b.load(ptr, align=layout.width // 8)), ptr, align=layout.width // 8)
            return context.get_dummy_value()

        return types.none(types.Array(dtype, 1, "C")), codegen

    @njit
    def run(arr):
        log2_in_place(arr)

    return run


@pytest.mark.parametrize("register", [256, 512])
@pytest.mark.parametrize("width", [64, 32])
def test_log2_of_every_power_of_two_a_lane_holds(width, register):
    # both ways of reading log2 (the exponent of a float, a leading-zero count) compile on any
    # x86-64 host: LLVM lowers a vector too wide for its registers to several
    layout = lanes._Lanes(width, register * 2 // width, register)
    top = 52 if width == 64 else 31  # the floating-point way holds below 2^52 (2^31 for 32-bit lanes)
    exponents = np.arange(top)
    run = _log2_kernel(layout)
    for first in range(0, top, layout.count):
        chunk = np.resize(exponents[first : first + layout.count], layout.count)
        arr = (np.ones(layout.count, dtype=np.int64) << chunk).astype(np.int64 if width == 64 else np.int32)
        run(arr)
        assert arr.tolist() == chunk.tolist()
