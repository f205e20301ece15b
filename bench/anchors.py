"""The outside references (../shared/anchors/, beside a developer's checkout): run their
``compare-speed`` script, which times them against this checkout's ``cardlab`` in one run.

Absent anchors (a user's clone) are reported and skipped: nothing depends on them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMPARE_SPEED = ROOT.parent / "shared" / "anchors" / "compare-speed"


def compare_with_anchors(game: str) -> None:
    """Print compare-speed's ratios for one game (narcotic or redblack), or say why not."""
    if not COMPARE_SPEED.exists():
        print(f"anchors: {COMPARE_SPEED} not present; no comparison with the outside references")
        return
    cardlab = Path(sys.executable).with_name("cardlab")
    print(f"anchors: {COMPARE_SPEED} {game} (CPU seconds, one core, best of 3; ratio > 1: cardlab is faster)")
    env = {"CARDLAB": str(cardlab), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    proc = subprocess.run([str(COMPARE_SPEED), game], cwd=ROOT, text=True, capture_output=True, env=env)
    print((proc.stdout + proc.stderr).strip())
