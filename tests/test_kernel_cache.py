"""numba's cached kernels: dropped when any module they were compiled from changes, compiled once per machine."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numba

from engines.core import kernel_cache
from engines.core.kernel_cache import drop_stale_caches


def test_cached_kernels_go_when_a_module_they_use_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    (tmp_path / "entry.py").write_text("x = 1\n")
    (tmp_path / "inlined.py").write_text("y = 2\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()

    def cached():
        for name in ("entry.f-3.py311.nbi", "entry.f-3.py311.1.nbc", "other.g-1.py311.nbi"):
            (cache / name).touch()
        return sorted(p.name for p in cache.iterdir() if p.suffix in (".nbi", ".nbc"))

    everything = cached()
    drop_stale_caches(tmp_path, ["entry", "inlined"])  # no mark yet: nothing says the caches are current
    assert sorted(p.name for p in cache.iterdir() if p.suffix in (".nbi", ".nbc")) == ["other.g-1.py311.nbi"]
    assert cached() == everything
    drop_stale_caches(tmp_path, ["entry", "inlined"])  # unchanged code: the caches stay
    assert cached() == everything
    (tmp_path / "inlined.py").write_text("y = 3\n")
    drop_stale_caches(tmp_path, ["entry", "inlined"])
    assert sorted(p.name for p in cache.iterdir() if p.suffix in (".nbi", ".nbc")) == ["other.g-1.py311.nbi"]


def test_an_edit_of_a_shared_module_outside_the_package_drops_the_caches_too(tmp_path, monkeypatch):
    """Narcotic and Blackjack inline core/rng.py: an edit there must recompile their kernels."""
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    monkeypatch.setattr(kernel_cache, "ENGINES", tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "entry.py").write_text("x = 1\n")
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "rng.py").write_text("seed = 1\n")
    cache = tmp_path / "pkg" / "__pycache__"
    cache.mkdir()
    drop_stale_caches(tmp_path / "pkg", ["entry"], extra=["core/rng.py"])
    (cache / "entry.f-3.py311.nbi").touch()
    drop_stale_caches(tmp_path / "pkg", ["entry"], extra=["core/rng.py"])
    assert (cache / "entry.f-3.py311.nbi").exists()
    (tmp_path / "core" / "rng.py").write_text("seed = 2\n")
    drop_stale_caches(tmp_path / "pkg", ["entry"], extra=["core/rng.py"])
    assert not (cache / "entry.f-3.py311.nbi").exists()


KERNEL_JOB = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from engines.core.kernel_cache import compiling_alone
import kern
pkg = Path(kern.__file__).parent
with compiling_alone([kern.f], pkg, ["kern"]):
    entered = time.time()
    Path(sys.argv[2] + ".in").touch()
    kern.f(3)
    time.sleep(float(sys.argv[3]))
    left = time.time()
print(entered, left, kern.f.stats.cache_hits and 1 or 0, kern.f.stats.cache_misses and 1 or 0)
"""


def test_shard_jobs_starting_together_compile_a_kernel_once(tmp_path):
    """Two processes that need the same uncached kernel: the second waits for the first,
    then loads its cache instead of compiling it again."""
    root = Path(__file__).resolve().parents[1]
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "kern.py").write_text("from numba import njit\n\n@njit(cache=True)\ndef f(x):\n    return x * 2\n")
    (tmp_path / "job.py").write_text(KERNEL_JOB)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"PYTHONPATH": f"{pkg}{os.pathsep}{root}"}

    def start(name, hold):
        cmd = [sys.executable, str(tmp_path / "job.py"), str(root), str(tmp_path / name), str(hold)]
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)

    first = start("first", 2.0)
    deadline = time.time() + 60
    while not (tmp_path / "first.in").exists():  # the first holds the lock
        assert first.poll() is None and time.time() < deadline
        time.sleep(0.05)
    second = start("second", 0.0)
    out1, out2 = first.communicate(timeout=120), second.communicate(timeout=120)
    assert first.returncode == second.returncode == 0
    in1, left1, hit1, miss1 = (float(v) for v in out1[0].split())
    in2, _, hit2, miss2 = (float(v) for v in out2[0].split())
    assert (hit1, miss1) == (0, 1)  # the first compiled
    assert in2 >= left1  # the second entered only after the first had left
    assert (hit2, miss2) == (1, 0)  # and loaded the first one's cache
