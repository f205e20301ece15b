"""Speed of every code path, in one run: each kernel compiled for each target this CPU can run
(bench/code_targets.py: this CPU with AVX-512 VBMI2, a Skylake-class Xeon's AVX-512 without
VBMI2, an AVX2 CPU, numba's generic CPU), against the anchors compiled for the same target.

    .venv/bin/python bench/paths.py [--games 1000000] [--repeat 3] [--k 15] [--only narcotic|redblack]

Narcotic: seed rules, games per CPU-second of ``cardlab narcotic simulate`` on one core, the marginal
rate as compare-speed takes it (N games less 1,000, start-up subtracted), against the C simulator
built with gcc -O3 -march for the same target (native, skylake-avx512, znver3, x86-64).  RedBlack:
``cardlab redblack search K --jobs 1`` (the default method) against the published assembly (the
same program on every target).  Each figure is the best of --repeat runs in CPU seconds: the
machine may be shared.  Every path but the generic one has the targets of bench/narcotic.py
(SEED_VS_C) and bench/redblack.py (DEFAULT_VS_ASSEMBLY); the generic path's figures are
measured and printed, with no target.  A path below its target says so, the run ends with the
list of them and exits 1.  Each target compiles into a numba cache of its own (a temporary folder).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from anchors import ANCHORS, NARCOTIC_C, ROOT
from code_targets import TARGETS, Target
from narcotic import SEED_VS_C
from redblack import DEFAULT_VS_ASSEMBLY
from verdicts import Verdicts

CARDLAB = Path(sys.executable).with_name("cardlab")
START_GAMES = 1_000  # the short run whose CPU seconds (start-up, kernel loading) the marginal rate subtracts


def cpu_seconds(cmd: list[str], env: dict[str, str] | None = None) -> float:
    """CPU seconds (user + system) of a command and its children."""
    before = os.times()
    proc = subprocess.run(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = os.times()
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return (after.children_user + after.children_system) - (before.children_user + before.children_system)


def best_cpu(cmd: list[str], repeat: int, env: dict[str, str] | None = None) -> float:
    return min(cpu_seconds(cmd, env) for _ in range(repeat))


def marginal_rate(command, games: int, repeat: int, env: dict[str, str] | None = None) -> float:
    """Games per CPU-second of ``command(n)`` beyond its first START_GAMES games (best of ``repeat``)."""
    return (games - START_GAMES) / (best_cpu(command(games), repeat, env) - best_cpu(command(START_GAMES), repeat, env))


def c_simulator(target: Target, folder: Path) -> Path:
    """The C anchor built for ``target`` with gcc -O3."""
    out = folder / f"narc-{target.gcc_march}"
    subprocess.run(["gcc", "-O3", f"-march={target.gcc_march}", "-o", str(out), str(NARCOTIC_C), "-lm"], check=True)
    return out


def assembly_search(k: int, folder: Path) -> Path:
    """The published assembly search, its deck size set to 2k cards (as compare-speed builds it;
    red_black.s includes linux.s, so all three are assembled in ``folder``)."""
    src = ANCHORS / "redblack"
    for name in ("int_to_ascii.s", "linux.s"):
        shutil.copy(src / name, folder / name)
    text = (src / "red_black.s").read_text().replace("movb $52, %r11b", f"movb ${2 * k}, %r11b")
    (folder / "red_black.s").write_text(text)
    for name in ("int_to_ascii", "linux", "red_black"):
        subprocess.run(["as", f"{name}.s", "-o", f"{name}.o"], cwd=folder, check=True)
    subprocess.run(["ld", "int_to_ascii.o", "linux.o", "red_black.o", "-o", "red_black"], cwd=folder, check=True)
    return folder / "red_black"


def path_of(target: Target, env: dict[str, str]) -> str:
    """The Narcotic byte-compress path and RedBlack lane layout a child compiled for ``target`` takes."""
    code = (
        "from numba.core.registry import cpu_target\n"
        "from engines.narcotic.ir import _byte_compress\n"
        "from engines.redblack.lanes import WIDE\n"
        "print(_byte_compress(cpu_target.target_context), WIDE.count, WIDE.width, WIDE.register)"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    compress, lanes, bits, register = out.stdout.split()
    return f"Narcotic byte compress {compress}, RedBlack {lanes} lanes of {bits} bits in {register}-bit registers"


# A child: CPU seconds of dealing the games (the seeded shuffles) and of playing them with the
# kernel, best of `repeat` each, and the passes the games took (the kernel loaded first).
_SPLIT = """
import sys, time
import numpy as np
from engines.narcotic import Rules, play, shuffled_decks
games, repeat = int(sys.argv[1]), int(sys.argv[2])
rules = Rules.preset("seed")
play(shuffled_decks(np.uint64(1), 0, 1000), rules)
deal = kernel = float("inf")
for _ in range(repeat):
    t = time.process_time()
    decks = shuffled_decks(np.uint64(7), 0, games)
    deal = min(deal, time.process_time() - t)
    t = time.process_time()
    res = play(decks, rules)
    kernel = min(kernel, time.process_time() - t)
print(deal, kernel, int(res["passes"].sum()))
"""


def narcotic_split(env: dict[str, str], args) -> str:
    """Where a game's CPU time goes on this path: the kernel per pass, the deal (shuffle) per game."""
    games = min(args.games, 200_000)
    cmd = [sys.executable, "-c", _SPLIT, str(games), str(args.repeat)]
    out = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    deal, kernel, passes = float(out[0]), float(out[1]), int(out[2])
    return (
        f"kernel {games / kernel:,.0f} games/CPU-s ({kernel / passes * 1e9:.1f} ns a pass, "
        f"{passes / games:.1f} passes a game), dealing {deal / games * 1e9:,.0f} ns a game"
    )


def narcotic_row(target: Target, env: dict[str, str], folder: Path, args, verdicts: Verdicts) -> None:
    def cardlab(n: int) -> list[str]:
        return [str(CARDLAB), "narcotic", "simulate", "--games", str(n), "--rules", "seed", "--jobs", "1"]

    cpu_seconds(cardlab(START_GAMES), env)  # compiles the target's kernel into its cache, outside the timing
    ours = marginal_rate(cardlab, args.games, args.repeat, env)
    if not NARCOTIC_C.exists():
        print(f"  narcotic {target.name:15} {ours:11,.0f} games/CPU-s   (no C anchor at {NARCOTIC_C}: no ratio)")
        print(f"  {'':24} of which {narcotic_split(env, args)}")
        return
    c = c_simulator(target, folder)
    theirs = marginal_rate(
        lambda n: [str(c), "run", str(n), "-r", "seed", "-s", "7", "-o", "/dev/null"], args.games, args.repeat
    )
    ratio = ours / theirs
    verdict = path_verdict(verdicts, target, f"narcotic, {target.name} path, vs C", ratio, SEED_VS_C)
    print(
        f"  narcotic {target.name:15} {ours:11,.0f} games/CPU-s, C -march={target.gcc_march:14} {theirs:9,.0f}: "
        f"{ratio:5.2f}x {verdict}"
    )
    print(f"  {'':24} of which {narcotic_split(env, args)}")


def path_verdict(verdicts: Verdicts, target: Target, what: str, ratio: float, floor: float) -> str:
    """A path's ratio against its floor; the generic path is measured with no target (issue 64)."""
    if target.name == "generic":
        return "(generic: measured, no target)"
    return verdicts.at_least(what, ratio, floor)


def redblack_row(target: Target, env: dict[str, str], assembly_s: float | None, args, verdicts: Verdicts) -> None:
    search = [str(CARDLAB), "redblack", "search", str(args.k), "--jobs", "1"]
    tiny = [str(CARDLAB), "redblack", "search", "6", "--jobs", "1"]  # 462 deals: start-up and kernel loading
    cpu_seconds(tiny, env)  # compiles outside the timing
    ours = best_cpu(search, args.repeat, env)
    start = best_cpu(tiny, args.repeat, env)
    split = f"(of which {start:.2f} start-up: a k = 6 search)"
    if assembly_s is None:
        print(f"  redblack {target.name:15} k={args.k} in {ours:6.2f} CPU-s {split}   (no assembly anchor: no ratio)")
        return
    ratio = assembly_s / ours
    what = f"redblack k={args.k}, {target.name} path, vs assembly"
    verdict = path_verdict(verdicts, target, what, ratio, DEFAULT_VS_ASSEMBLY)
    print(
        f"  redblack {target.name:15} k={args.k} in {ours:6.2f} CPU-s {split}, assembly {assembly_s:6.2f}: "
        f"{ratio:5.2f}x {verdict}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000, help="Narcotic games per timed run (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure, the best kept (default: %(default)s)")
    ap.add_argument("--k", type=int, default=15, help="RedBlack size searched (default: %(default)s)")
    ap.add_argument("--only", choices=("narcotic", "redblack"), help="one game (default: both)")
    args = ap.parse_args()

    verdicts = Verdicts("bench/paths.py")
    print(f"every code path, one core, CPU seconds, best of {args.repeat} (the machine may be shared)")
    with tempfile.TemporaryDirectory(prefix="cardlab-paths-") as tmp:
        folder = Path(tmp)
        assembly_s = None
        if args.only != "narcotic" and (ANCHORS / "redblack" / "red_black.s").exists():
            assembly_s = cpu_seconds([str(assembly_search(args.k, folder))])  # the same on every target: once
        for target in TARGETS:
            if missing := target.missing():
                print(f"  {target.name}: skipped, this CPU lacks {', '.join(missing)}")
                continue
            env = target.env(folder / f"numba-{target.name}")
            print(f"{target.name} (numba CPU {target.cpu or 'host'}): {path_of(target, env)}")
            if args.only != "redblack":
                narcotic_row(target, env, folder, args, verdicts)
            if args.only != "narcotic":
                redblack_row(target, env, assembly_s, args, verdicts)
    return verdicts.summary()


if __name__ == "__main__":
    sys.exit(main())
