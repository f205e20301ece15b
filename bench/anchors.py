"""The outside references (../shared/anchors/, beside a developer's checkout): run their
``compare-speed`` script, which times them against this checkout's ``cardlab`` in one run,
and hand its ratios to the bench that checks them against its targets.

Absent anchors (a user's clone) are reported and skipped: nothing depends on them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANCHORS = ROOT.parent / "shared" / "anchors"
COMPARE_SPEED = ANCHORS / "compare-speed"
NARCOTIC_C = ANCHORS / "narcotic" / "narc.c"

# compare-speed's result lines: "<what>: ... ratio 2.54" (ratio > 1: cardlab is faster)
_RATIO = re.compile(r"^(?P<what>[^:]+).*\bratio (?P<ratio>[0-9.]+)\s*$")


def compare_with_anchors(game: str, no_avx512: bool = False) -> dict[str, float]:
    """Print compare-speed's output for one game (narcotic or redblack), or say why not; its ratios
    by result line (empty without the anchors).  ``no_avx512``: both sides compiled without AVX-512."""
    if not COMPARE_SPEED.exists():
        print(f"anchors: {COMPARE_SPEED} not present; no comparison with the outside references")
        return {}
    cardlab = Path(sys.executable).with_name("cardlab")
    flag = ["--no-avx512"] if no_avx512 else []
    print(
        f"anchors: {COMPARE_SPEED} {' '.join(flag + [game])} (CPU seconds, one core, best of 3; ratio > 1: cardlab is faster)"
    )
    env = {"CARDLAB": str(cardlab), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    proc = subprocess.run([str(COMPARE_SPEED), *flag, game], cwd=ROOT, text=True, capture_output=True, env=env)
    text = (proc.stdout + proc.stderr).strip()
    print(text)
    return {m["what"].strip(): float(m["ratio"]) for m in map(_RATIO.match, text.splitlines()) if m}
