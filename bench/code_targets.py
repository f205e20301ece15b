"""The compile targets the kernels choose their code paths by, for the benches and tests that
compile a kernel for each target in a child process (tests/narcotic/test_code_paths.py,
tests/redblack/test_redblack_code_paths.py, bench/paths.py).

numba compiles for the CPU that ``NUMBA_CPU_NAME`` and ``NUMBA_CPU_FEATURES`` name, and
the kernels read those features when they compile (engines/narcotic/ir.py
``_byte_compress``, engines/redblack/lanes.py ``compiles_for_avx512``): a child with a
target's variables and its own numba cache takes that target's path on this machine,
provided this CPU has every feature the target compiles for.  The features are this
CPU's with some turned off, so a target never asks for an instruction the host lacks.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from llvmlite import binding as ll

ROOT = Path(__file__).resolve().parent.parent

# AVX-512 extensions Skylake-SP/Cascade Lake Xeons lack (they have F, CD, BW, DQ, VL):
# turned off, this CPU compiles as those do (AVX-512 without VBMI2)
_NOT_ON_SKYLAKE = (
    "avx512vbmi",
    "avx512vbmi2",
    "avx512ifma",
    "avx512bitalg",
    "avx512vpopcntdq",
    "avx512vnni",
    "avx512bf16",
    "avx512fp16",
    "avx512vp2intersect",
)


@dataclass(frozen=True)
class Target:
    """A compile target: the CPU name numba compiles for and the host features turned off."""

    name: str  # what tests and benches call it
    cpu: str | None  # NUMBA_CPU_NAME (None: the host's)
    off: tuple[str, ...] | str  # host features turned off; "all": none on (numba's generic target)
    needs: tuple[str, ...]  # host features without which this CPU cannot run the target's code
    narcotic_path: str  # what engines.narcotic.ir._byte_compress answers for it
    redblack_avx512: bool  # what engines.redblack.lanes.compiles_for_avx512 answers for it
    gcc_march: str  # gcc's -march for the C anchor compiled for the same target

    def missing(self) -> list[str]:
        """The features this target compiles for that this CPU lacks (empty: it can run here)."""
        host = host_features()
        return [f for f in self.needs if not host.get(f, False)]

    def env(self, cache: Path) -> dict[str, str]:
        """The environment of a child that compiles for this target into its own numba ``cache``."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CPU_")}
        env.update(NUMBA_CACHE_DIR=str(cache), NUMBA_NUM_THREADS="1")
        if self.cpu is not None:
            env["NUMBA_CPU_NAME"] = self.cpu
        if self.off == "all":
            env["NUMBA_CPU_FEATURES"] = ""
        elif self.off:
            env["NUMBA_CPU_FEATURES"] = feature_string(self.off)
        return env


def host_features() -> dict[str, bool]:
    try:
        return dict(ll.get_host_cpu_features())
    except RuntimeError:  # llvmlite cannot read them on some CPUs: claim none
        return {}


def feature_string(off: tuple[str, ...]) -> str:
    """This CPU's features as NUMBA_CPU_FEATURES spells them, with ``off`` and any prefix match of it
    turned off (``avx512`` turns off every AVX-512 extension; compare-speed's --no-avx512 does so)."""
    return ",".join(
        ("-" if (not on or any(k.startswith(o) for o in off)) else "+") + k for k, on in sorted(host_features().items())
    )


TARGETS = (
    # this CPU as it is: on Zen 4/5 and Ice Lake or later, AVX-512 VBMI2's byte compress and expand
    Target("vbmi2", None, (), ("avx512vbmi2", "avx512bw", "avx512f"), "vbmi2", True, "native"),
    # Skylake-SP, Cascade Lake: AVX-512 without VBMI2 (Narcotic's pshufb table, RedBlack's 512-bit lanes)
    Target(
        "avx512-novbmi2",
        "skylake-avx512",
        _NOT_ON_SKYLAKE,
        ("avx512bw", "avx512dq", "avx512vl"),
        "pshufb",
        True,
        "skylake-avx512",
    ),
    # Zen 3 and older, Intel client CPUs: AVX2 (compare-speed --no-avx512 compiles for this)
    Target("pshufb", "znver3", ("avx512",), ("avx2", "ssse3"), "pshufb", False, "znver3"),
    # numba's generic CPU (no features: SSE2 on x86-64): what LLVM makes of the kernels anywhere
    Target("generic", "generic", "all", (), "generic", False, "x86-64"),
)
TARGET_NAMES = [t.name for t in TARGETS]
# the three paths CI compiles on every run (each costs a compile); the Skylake-class target
# differs from "pshufb" only in LLVM's instruction choice (and RedBlack's wider lanes): slow tests
CI_TARGET_NAMES = ["vbmi2", "pshufb", "generic"]
BY_NAME = {t.name: t for t in TARGETS}


def run_child(code: str, target: Target, cache: Path, *args: str, timeout: float = 600) -> str:
    """Run ``code`` in a child Python compiled for ``target`` (one numba thread); its stdout."""
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=target.env(cache),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if proc.returncode:
        raise AssertionError(f"the {target.name} child failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    return proc.stdout
