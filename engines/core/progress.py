"""Progress lines for long work: a bar on a terminal, periodic log lines in a job log."""

from __future__ import annotations

import re
import sys
import time
from typing import NamedTuple, TextIO

# What Progress.line writes: "<label>: 1,234/5,000 games (24.7%), 812 games/s, elapsed 2 s, ETA 5 s"
# (a unit may have spaces: "upcard tables")
LINE = re.compile(
    r"(?:^|: )(?P<done>[\d,]+)/(?P<total>[\d,]+) (?P<unit>.+?) \([\d.]+%\), (?P<rate>[\d,]+) .+?/s, "
    r"elapsed (?P<elapsed>[\d,]+) s, ETA "
)


class Reading(NamedTuple):
    """One progress line read back: units done of total, the shard's mean rate and its elapsed seconds."""

    done: int
    total: int
    unit: str
    rate: float
    elapsed_s: float


def read_line(line: str) -> Reading | None:
    """The reading a :meth:`Progress.line` wrote, or None for any other line."""
    m = LINE.search(line)
    if m is None:
        return None
    num = {k: int(m.group(k).replace(",", "")) for k in ("done", "total", "rate", "elapsed")}
    return Reading(num["done"], num["total"], m.group("unit"), float(num["rate"]), float(num["elapsed"]))


class Progress:
    """Counts units of work (games, deals, hands) and reports done, rate and ETA.

    On a terminal it draws a tqdm bar; otherwise (a Snakemake job log) it
    writes one line at most every ``every_s`` seconds (the first after
    ``first_s``, so the live view measures a new shard's rate early), so a long
    shard shows it is alive without flooding the log.
    """

    def __init__(
        self,
        total: int,
        unit: str,
        label: str = "",
        stream: TextIO | None = None,
        every_s: float = 10.0,
        enabled: bool = True,
        first_s: float = 2.0,
    ):
        self.total = int(total)
        self.unit = unit
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.every_s = every_s
        self.enabled = enabled
        self.done = 0
        self._start = time.monotonic()
        # the first line is due after first_s, the later ones every every_s
        self._last = self._start - max(0.0, every_s - min(first_s, every_s))
        self._bar = None
        if enabled and getattr(self.stream, "isatty", lambda: False)():
            from tqdm import tqdm

            self._bar = tqdm(
                total=self.total,
                unit=f" {unit}",
                desc=label or None,
                file=self.stream,
                unit_scale=True,
                dynamic_ncols=True,
            )

    def update(self, n: int) -> None:
        self.done += int(n)
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(int(n))
            return
        now = time.monotonic()
        if now - self._last >= self.every_s or self.done >= self.total:
            self._last = now
            self.stream.write(self.line(now) + "\n")
            self.stream.flush()

    def line(self, now: float | None = None) -> str:
        now = time.monotonic() if now is None else now
        elapsed = max(now - self._start, 1e-9)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate > 0 else float("inf")
        pct = 100.0 * self.done / self.total if self.total else 100.0
        eta = f"{left:,.0f} s" if left != float("inf") else "?"
        prefix = f"{self.label}: " if self.label else ""
        return (
            f"{prefix}{self.done:,}/{self.total:,} {self.unit} ({pct:.1f}%), "
            f"{rate:,.0f} {self.unit}/s, elapsed {elapsed:,.0f} s, ETA {eta}"
        )

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
