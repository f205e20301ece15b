"""Every code path of the fast Narcotic kernel gives the same results, byte for byte.

The deal pass compresses bytes three ways, chosen when numba compiles
(engines/narcotic/ir.py ``_byte_compress``): AVX-512 VBMI2's compress and expand, a
table of pshufb controls, or LLVM's portable lowering.  Each path is compiled in a child
process for its target (bench/code_targets.py: this CPU, a Skylake-class Xeon, an AVX2
CPU, numba's generic CPU) with its own numba cache, plays the same games, and says which
path it compiled; every path's results must equal the generic path's.  A target this CPU
cannot run is skipped, naming the features it lacks.

Cost: one compile of the shared kernel per target (about 15 CPU-s each); the games take
under a second.  The generic path's results are computed once per test session, whichever
pytest-xdist worker asks first (tests/wfhelp.py ``built_once``), and every target's test
compares with that one run.  The slow version adds the specialised seed and classic kernels
and more games.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from wfhelp import built_once

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from code_targets import BY_NAME, CI_TARGET_NAMES, TARGET_NAMES, run_child  # noqa: E402

# A child: the path it compiles, then every result of these games in one .npz file: seeded
# full decks under every rule combination, and every canonical deck of a small deck (r = 3)
# under every rule combination (the exhaustive enumeration's kernel input).
CHILD = """
import sys
import numpy as np
from numba.core.registry import cpu_target
from engines.narcotic import all_rules, play, shuffled_decks
from engines.narcotic.canonical import canonical_count, canonical_decks
from engines.narcotic.ir import _byte_compress
from engines.narcotic.kernel import SPECIALISE_FROM_GAMES, SPECIALISED

games, ranks, specialised, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
print(_byte_compress(cpu_target.target_context))
arrays = {}
decks = shuffled_decks(np.uint64(64), 0, games)
small = canonical_decks(ranks, 0, canonical_count(ranks))
arrays["decks"] = decks
for rules in all_rules():
    for name, value in play(decks, rules).items():
        arrays[f"full/{rules.variant}/{name}"] = value
for rules in all_rules(ranks):
    for name, value in play(small, rules).items():
        arrays[f"canonical{ranks}/{rules.variant}/{name}"] = value
if specialised:
    for rules in SPECIALISED:
        for name, value in play(decks, rules, games=SPECIALISE_FROM_GAMES).items():
            arrays[f"specialised/{rules.variant}/{name}"] = value
np.savez(out, **arrays)
"""

GAMES = 3000  # seeded full decks, each played under all sixteen rule combinations
RANKS = 3  # every canonical deck of 3 values (5,775 decks), each under all sixteen combinations
SLOW_GAMES = 50_000


def play_on(target_name: str, folder: Path, games: int, specialised: bool) -> tuple[str, dict[str, np.ndarray]]:
    """(the path the child compiled, its results) for one target, or skip where this CPU cannot run it."""
    target = BY_NAME[target_name]
    if missing := target.missing():
        pytest.skip(f"this CPU lacks {', '.join(missing)}: the {target.name} path cannot run here")
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{target.name}.npz"
    path = run_child(
        CHILD, target, folder / f"cache-{target.name}", str(games), str(RANKS), str(int(specialised)), str(out)
    )
    (folder / f"{target.name}.path").write_text(path.strip())
    return played(folder, target.name)


def played(folder: Path, target_name: str) -> tuple[str, dict[str, np.ndarray]]:
    """(the path, the results) a child of ``target_name`` left in ``folder``."""
    with np.load(folder / f"{target_name}.npz") as data:
        return (folder / f"{target_name}.path").read_text(), {k: data[k] for k in data.files}


def generic_play(games: int, specialised: bool) -> dict[str, np.ndarray]:
    """The generic path's results, played once per test session (every xdist worker reads the same run)."""
    folder = built_once(
        f"narcotic-generic-{games}-{int(specialised)}", lambda tree: play_on("generic", tree, games, specialised)
    )
    path, results = played(folder, "generic")
    assert path == "generic"
    return results


def assert_same(results: dict[str, np.ndarray], baseline: dict[str, np.ndarray], name: str) -> None:
    assert results.keys() == baseline.keys()
    for key, want in baseline.items():
        got = results[key]
        assert got.dtype == want.dtype and got.shape == want.shape, key
        if not np.array_equal(got, want):
            first = int(np.flatnonzero((got != want).reshape(len(got), -1).any(axis=1))[0])
            raise AssertionError(f"{key}: the {name} path differs from the generic path, first at row {first}")


@pytest.fixture(scope="module")
def generic() -> dict[str, np.ndarray]:
    return generic_play(GAMES, False)


@pytest.mark.parametrize("target_name", CI_TARGET_NAMES)
def test_every_path_plays_like_the_generic_one(target_name, generic, tmp_path):
    path, results = play_on(target_name, tmp_path, GAMES, False) if target_name != "generic" else ("generic", generic)
    assert path == BY_NAME[target_name].narcotic_path, f"compiled for {target_name}, the kernel took the {path} path"
    assert_same(results, generic, target_name)
    assert sum(int(v.sum()) for k, v in results.items() if k.endswith("/won")) > 0  # games were played and won


@pytest.mark.slow
@pytest.mark.parametrize("target_name", [n for n in TARGET_NAMES if n != "generic"])
def test_every_path_plays_like_the_generic_one_at_length(target_name, tmp_path):
    path, results = play_on(target_name, tmp_path / target_name, SLOW_GAMES, True)
    baseline = generic_play(SLOW_GAMES, True)
    assert path == BY_NAME[target_name].narcotic_path
    assert_same(results, baseline, target_name)
