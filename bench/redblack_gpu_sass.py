"""The GPU kernel's instructions per round, counted without a GPU: compile, assemble, disassemble.

numba-cuda compiles `engines/redblack/gpu_kernel.search` to PTX for a compute capability
(default 9.0, an H100/H200) with no device present; ptxas, from the gpu extra's CUDA 12
compiler (``pip install -e .[gpu]``), assembles it and reports its registers; nvdisasm
(``pip install nvidia-cuda-nvdisasm``, any recent version) prints the machine code (SASS).
In it the script finds the round loop (the innermost loop holding the round's two
trailing-zero counts, FLO), the owner test (the stretch of it that the kernel's `owner` flag
branches around) and the outer loop around it (what a warp runs when a deal of its threads
leaves: settling it and taking the next).

The kernel is bound by instruction issue (docs/redblack.md, "On a GPU": the H200's measured
rate is within about 80 % of its 4 warp instructions per cycle per SM), so these counts price
a kernel change before a GPU is at hand: fewer instructions per round is a faster search.
A GPU session measures the speed itself (bench/redblack_gpu.py).

    .venv/bin/python bench/redblack_gpu_sass.py [--cc 9.0] [--listing FILE]
"""

from __future__ import annotations

import argparse
import glob
import re
import shutil
import subprocess
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
BRANCH = re.compile(r"(0x[0-9a-f]+)\s*$")
LABEL = re.compile(r"^\s*(\.L_x_\d+):")
TO_LABEL = re.compile(r"\((\.L_x_\d+)\)")


@dataclass(frozen=True)
class Instruction:
    address: int
    predicate: str  # "" or e.g. "@!P3"
    opcode: str  # e.g. "SHF.L.U64.HI"
    operands: str

    target: int | None = None  # where a branch goes (None for anything else)


def parse(listing: str) -> list[Instruction]:
    """The instructions of an nvdisasm or cuobjdump -sass listing, in address order, branch targets resolved
    (cuobjdump prints them as addresses, nvdisasm as labels such as ``.L_x_3``)."""
    labels: dict[str, int] = {}
    pending: list[str] = []
    rows = []
    for line in listing.splitlines():
        label = LABEL.match(line)
        if label:
            pending.append(label.group(1))
            continue
        m = LINE.search(line)
        if not m:
            continue
        address = int(m.group(1), 16)
        labels.update((name, address) for name in pending)
        pending = []
        rows.append((address, (m.group(2) or "").strip(), m.group(3), m.group(4).strip()))
    out = []
    for address, predicate, opcode, operands in rows:
        target = None
        if opcode.startswith("BRA"):
            to = BRANCH.search(operands)
            target = int(to.group(1), 16) if to else labels.get(next(iter(TO_LABEL.findall(operands)), ""))
        out.append(Instruction(address, predicate, opcode, operands, target))
    return sorted(out, key=lambda i: i.address)


def loops(code: list[Instruction]) -> list[tuple[int, int]]:
    """(first, last address) of each loop: a backward branch and its target."""
    return sorted({(i.target, i.address) for i in code if i.target is not None and i.target <= i.address})


def between(code: list[Instruction], first: int, last: int) -> list[Instruction]:
    return [i for i in code if first <= i.address <= last]


@dataclass(frozen=True)
class Counts:
    round_loop: int  # instructions of one round, the owner test included
    owner_test: int  # of them, the owner test's
    outer_rest: int  # the outer loop's instructions outside the round loop (settling, refill, rarer paths)


def count(code: list[Instruction]) -> Counts:
    """The round loop, its owner test and the outer loop's rest, found by their shape (see the docstring)."""
    with_counts = [
        (last - first, first, last)
        for first, last in loops(code)
        if sum(i.opcode.startswith("FLO") for i in between(code, first, last)) >= 2
    ]
    if not with_counts:
        raise SystemExit("no loop with two trailing-zero counts (FLO) in the listing: not the search kernel?")
    _, first, last = min(with_counts)
    body = between(code, first, last)
    # the owner flag is uniform, so its test is skipped by one forward branch inside the loop
    skips = [i for i in body if i.target is not None and first < i.target <= last and i.target > i.address]
    owner = max((len(between(code, i.address + 1, i.target - 1)) for i in skips), default=0)
    outer = [(b - a, a, b) for a, b in loops(code) if a <= first and last <= b and (a, b) != (first, last)]
    rest = 0
    if outer:
        _, a, b = min(outer)
        rest = len(between(code, a, b)) - len(body)
    return Counts(len(body), owner, rest)


def _tool(name: str, pattern: str, hint: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(pattern, recursive=True))), None)
    if not found:
        raise SystemExit(f"{name} not found: {hint}")
    return found


def listing_of(cc: tuple[int, int], work: Path) -> tuple[str, str]:
    """(nvdisasm's listing of the search kernel for compute capability cc, ptxas's resource line)."""
    import numpy as np  # noqa: F401  (numba-cuda imports it; a clear error first if missing)
    from numba import cuda
    from numba import types as nt
    from numba.cuda import dispatcher

    from engines.redblack import gpu_kernel

    # device functions compile for the current device's capability; with none here, say which (private API)
    dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=cc)
    i64 = nt.int64
    sig = (nt.boolean, i64, i64, i64, i64, i64[:, ::1], i64[::1], i64[::1], i64[:, ::1], i64[::1], i64[::1])
    ptx, _ = cuda.compile_ptx(gpu_kernel.search.py_func, sig, cc=cc)
    (work / "search.ptx").write_text(ptx)
    site = str(Path(np.__file__).parents[1])
    ptxas = _tool("ptxas", f"{site}/nvidia/**/bin/ptxas", "pip install -e .[gpu] (numba-cuda[cu12] brings it)")
    nvdisasm = _tool("nvdisasm", f"{site}/nvidia/**/bin/nvdisasm", "pip install nvidia-cuda-nvdisasm")
    arch = f"sm_{cc[0]}{cc[1]}"
    run = subprocess.run(
        [ptxas, f"-arch={arch}", "-O3", "-v", "search.ptx", "-o", "search.cubin"],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    )
    resources = next((ln for ln in run.stderr.splitlines() if "registers" in ln), run.stderr.strip())
    sass = subprocess.run([nvdisasm, "-c", "search.cubin"], cwd=work, capture_output=True, text=True, check=True)
    return sass.stdout, resources.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cc", default="9.0", help="compute capability to compile for (default 9.0: H100, H200)")
    ap.add_argument("--listing", type=Path, help="count an existing SASS listing instead of compiling")
    args = ap.parse_args()
    if args.listing:
        listing, resources = args.listing.read_text(), "(from a listing)"
    else:
        cc = tuple(int(x) for x in args.cc.split("."))
        with tempfile.TemporaryDirectory() as tmp:
            listing, resources = listing_of(cc, Path(tmp))
    code = parse(listing)
    c = count(code)
    print(f"search kernel: {len(code)} instructions; ptxas: {resources}")
    print(
        f"  a round: {c.round_loop} instructions ({c.round_loop - c.owner_test} the round, {c.owner_test} the owner test)"
    )
    print(f"  the outer loop's rest (a deal leaving: settled, the next taken; rarer paths included): {c.outer_rest}")


if __name__ == "__main__":
    main()
