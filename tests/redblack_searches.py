"""RedBlack's searches compiled for one code target (bench/code_targets.py) in a child process,
once per test session: tests/redblack/test_redblack_code_paths.py compares every target's results
with the generic CPU's, and tests/redblack/test_lane_layouts.py runs its own searches on the AVX2
target with the numba cache the first run left (the same kernels, compiled once, not twice).

Each run lives in a folder of the session's shared trees (tests/wfhelp.py ``built_once``),
whichever pytest-xdist worker asks first: its numba cache (``cache/``) and the child's output.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from wfhelp import built_once

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from code_targets import BY_NAME, Target, run_child  # noqa: E402

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

# every canonical deal of k = 6..10 (32-bit lanes) and a window of k = 17 (64-bit lanes)
RANGES = [[k, 0, None] for k in range(6, 11)] + [[17, 1_000_000, 1_040_000]]


def runnable(target_name: str) -> Target:
    """The target, or skip where this CPU cannot run it (naming the features it lacks)."""
    target = BY_NAME[target_name]
    if missing := target.missing():
        pytest.skip(f"this CPU lacks {', '.join(missing)}: the {target.name} path cannot run here")
    return target


def _search(target: Target, folder: Path) -> None:
    from engines import redblack as rb

    ranges = [[k, start, rb.canonical_deals(k) if stop is None else stop] for k, start, stop in RANGES]
    folder.mkdir(parents=True)
    (folder / "searched").write_text(run_child(CHILD, target, folder / "cache", json.dumps(ranges)))


def searched_once(target_name: str) -> Path:
    """The folder of the session's run of RANGES on ``target_name``: ``cache/`` (its numba cache,
    every kernel the searches use) and ``searched`` (the child's output; read it with ``searches``)."""
    target = runnable(target_name)
    return built_once(f"redblack-searches-{target.name}", lambda tree: _search(target, tree))


def searches(folder: Path) -> tuple[bool, dict]:
    """(whether the child compiled the AVX-512 layout, every search's result) of a run's folder."""
    layout, results = (folder / "searched").read_text().splitlines()
    return json.loads(layout), json.loads(results)


def run_with_kernels_of(target_name: str, code: str, *args: str) -> str:
    """Run ``code`` in a child compiled for ``target_name`` whose numba cache is the session's run of
    RANGES on that target (loaded kernels, not compiled again); its stdout."""
    return run_child(code, runnable(target_name), searched_once(target_name) / "cache", *args)
