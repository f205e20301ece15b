"""The gpu backend (engines/redblack/gpu.py) gives exactly the CPU search's results, on numba-cuda's simulator.

The simulator runs in a subprocess (NUMBA_ENABLE_CUDASIM must be set before numba.cuda is
imported, and must never reach the other tests of this pytest worker), on tiny grids; its
results are compared here with `exhaustive.search_range`.  Where a CUDA device is present the
same comparison runs on it too, on larger searches (k <= 12 and 15 complete, windows of
k = 23 and 26); elsewhere those tests skip and the backend's no-device error is checked.
Without numba-cuda (it comes with the test extra) the simulator and device tests skip.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from engines.core.errors import CardlabError
from engines.redblack import gpu
from engines.redblack.exhaustive import search_range
from engines.redblack.kinds.search import ExhaustiveSearch
from engines.redblack.rules import canonical_deals

HAS_NUMBA_CUDA = importlib.util.find_spec("numba_cuda") is not None
needs_numba_cuda = pytest.mark.skipif(
    not HAS_NUMBA_CUDA, reason="numba-cuda is not installed (pip install -e .[gpu] or .[test])"
)
ROOT = Path(__file__).resolve().parents[2]

# (label, k, start, stop, method): every deal of k <= 8, and a k = 15 window with an infinite deal
# (rank 999707, period 34) that the owner rule keeps too
CASES = [(f"k{k}-{m}", k, 0, canonical_deals(k), m) for k in range(1, 9) for m in ("brute", "owner")]
CASES += [(f"k15-window-{m}", 15, 999_600, 999_800, m) for m in ("brute", "owner")]
CASES += [("k5-no-deals", 5, 7, 7, "owner")]
# launches of 100 deals with room for 2 handed-back deals: the first has 4 (ranks 26, 41, 52, 54), so it is redone
SMALL_BATCHES = [("k6-small-batches-owner", 6, 5, 300, "owner")]
# a round budget of 20 (not the CPU's): a fifth of k = 7's deals are handed back to the CPU,
# some owner-rule stops fall on the budget's last round (the results do not depend on it)
SMALL_BUDGET = [(f"k7-budget-20-{m}", 7, 0, canonical_deals(7), m) for m in ("brute", "owner")]

SCRIPT = textwrap.dedent(
    """
    import pickle, sys
    import engines.redblack.gpu as gpu
    import engines.redblack.gpu_kernel as gpu_kernel

    class Count:
        def __init__(self):
            self.done = 0
        def update(self, n):
            self.done += n

    cases, small, budget, out = pickle.loads(sys.stdin.buffer.read())
    results = {}
    def run(label, k, start, stop, method):
        progress = Count()
        res = gpu.search_range_gpu(k, start, stop, progress, method=method)
        results[label] = (res, progress.done)
    for case in cases:
        run(*case)
    gpu.BATCH, gpu.HANDED = 100, 2
    for case in small:
        run(*case)
    gpu_kernel.BUDGET = 20
    for case in budget:
        run(*case)
    with open(out, "wb") as f:
        pickle.dump(results, f)
    """
)


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> dict:
    """label -> (SearchResult, deals reported to progress) from the gpu backend on the simulator."""
    out = tmp_path_factory.mktemp("gpu_sim") / "results.pickle"
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        input=pickle.dumps((CASES, SMALL_BATCHES, SMALL_BUDGET, str(out))),
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    with open(out, "rb") as f:
        return pickle.load(f)


def assert_same(got, want) -> None:
    for field in ("k", "deals", "finite", "longest_rounds", "longest_deal", "infinite", "stopped", "rounds", "method"):
        assert getattr(got, field) == getattr(want, field), field
    assert got.lengths.dtype == want.lengths.dtype
    np.testing.assert_array_equal(got.lengths, want.lengths)


@needs_numba_cuda
@pytest.mark.parametrize("label, k, start, stop, method", CASES + SMALL_BATCHES + SMALL_BUDGET, ids=lambda v: str(v))
def test_the_gpu_backend_on_the_simulator_equals_the_cpu_search(simulated, label, k, start, stop, method):
    res, reported = simulated[label]
    assert_same(res, search_range(k, start, stop, method=method))
    assert reported == stop - start


def test_the_gpu_backend_is_registered_for_exhaustive_shards():
    assert ExhaustiveSearch.backends["gpu"] is gpu.search_range_gpu


def test_without_numba_cuda_the_gpu_backend_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(gpu, "has_numba_cuda", lambda: False)
    with pytest.raises(CardlabError, match=r"needs numba-cuda.*pip install -e \.\[gpu\]"):
        gpu.search_range_gpu(5, 0, 10)


def test_the_gpu_backend_checks_its_arguments_as_the_cpu_search_does():
    for args in [(0, 0, 1), (5, 0, 127), (5, 3, 2)]:
        with pytest.raises(CardlabError) as cpu:
            search_range(*args)
        with pytest.raises(CardlabError) as gpu_error:
            gpu.search_range_gpu(*args)
        assert str(gpu_error.value) == str(cpu.value)


# on a real GPU (where there is one): complete sizes, windows of low and middle ranks of k = 23 and 26
DEVICE_CASES = [(f"k{k}-{m}", k, 0, canonical_deals(k), m) for k in range(1, 13) for m in ("brute", "owner")]
DEVICE_CASES += [("k15-owner", 15, 0, canonical_deals(15), "owner"), ("k15-brute", 15, 0, 10_000_000, "brute")]
DEVICE_CASES += [
    (f"k{k}-{r0}-{m}", k, r0, r0 + n, m)
    for k, r0, n in ((23, 0, 2_000_000), (23, 10**12, 2_000_000), (26, 37 * 10**12, 1_000_000))
    for m in ("brute", "owner")
]

DEVICE_SCRIPT = textwrap.dedent(
    """
    import pickle, sys
    from numba import cuda
    from engines.core.errors import CardlabError
    import engines.redblack.gpu as gpu

    cases, small, out = pickle.loads(sys.stdin.buffer.read())
    if not cuda.is_available():
        try:
            gpu.search_range_gpu(5, 0, 10)
        except CardlabError as e:
            print(e)
        sys.exit(0)
    results = {}
    for label, k, start, stop, method in cases:
        results[label] = gpu.search_range_gpu(k, start, stop, method=method)
    gpu.BATCH, gpu.HANDED = 100, 2
    for label, k, start, stop, method in small:
        results[label] = gpu.search_range_gpu(k, start, stop, method=method)
    with open(out, "wb") as f:
        pickle.dump(results, f)
    print("has a device")
    """
)


@pytest.fixture(scope="module")
def on_device(tmp_path_factory) -> tuple[str, dict]:
    """(what the backend said, results): without a CUDA device its one-line error, else "has a device" and
    label -> SearchResult for DEVICE_CASES and SMALL_BATCHES."""
    if not HAS_NUMBA_CUDA:
        pytest.skip("numba-cuda is not installed (pip install -e .[gpu] or .[test])")
    out = tmp_path_factory.mktemp("gpu_device") / "results.pickle"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    proc = subprocess.run(
        [sys.executable, "-c", DEVICE_SCRIPT],
        input=pickle.dumps((DEVICE_CASES, SMALL_BATCHES, str(out))),
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=1800,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    said = proc.stdout.decode().strip()
    if said != "has a device":
        return said, {}
    with open(out, "rb") as f:
        return said, pickle.load(f)


def test_without_a_cuda_device_the_gpu_backend_says_so(on_device):
    said, _ = on_device
    if said == "has a device":
        pytest.skip("this machine has a CUDA device")
    assert "found no CUDA device" in said and len(said.splitlines()) == 1


@pytest.mark.parametrize("label, k, start, stop, method", DEVICE_CASES + SMALL_BATCHES, ids=lambda v: str(v))
def test_on_a_cuda_device_the_gpu_backend_equals_the_cpu_search(on_device, label, k, start, stop, method):
    said, results = on_device
    if said != "has a device":
        pytest.skip("no CUDA device here")
    assert_same(results[label], search_range(k, start, stop, method=method))


CLI_CASES = [("6", "owner", None), ("6", "brute", None), ("8", "owner", None), ("8", "brute", None)]
CLI_CASES += [("15", "owner", "999600:999800"), ("15", "brute", "999600:999800")]


@needs_numba_cuda
@pytest.mark.parametrize(("k", "method", "ranks"), CLI_CASES)
def test_the_search_command_prints_what_the_cpu_prints_with_the_gpu_backend(k, method, ranks):
    """`cardlab redblack search K --backend gpu` under the simulator: the same lines as the CPU, byte for byte
    (only the progress line on stderr, with its speed, differs)."""
    args = [sys.executable, "-m", "engines.cli", "redblack", "search", k, "--method", method, "--csv"]
    args += ["--ranks", ranks] if ranks else []
    cpu = subprocess.run(args, capture_output=True, text=True, timeout=300)
    sim = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    gpu_run = subprocess.run(args + ["--backend", "gpu"], capture_output=True, text=True, timeout=300, env=sim)
    assert cpu.returncode == gpu_run.returncode == 0, gpu_run.stderr
    assert gpu_run.stdout == cpu.stdout and cpu.stdout.strip()
    counts = [ln for ln in cpu.stderr.splitlines() if ln.startswith(f"k={k}")]
    assert counts and counts == [ln for ln in gpu_run.stderr.splitlines() if ln.startswith(f"k={k}")]
