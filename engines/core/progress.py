"""Progress for long work: a bar on a terminal, periodic lines in a job log (for a person), and each
line's :class:`Reading` to a callback (a job's timing record: engines/pipeline/bookkeeping/records.py)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import NamedTuple, TextIO


class Reading(NamedTuple):
    """Where a piece of work stands: units done of total, its mean rate since the start and its elapsed seconds."""

    done: int
    total: int
    unit: str
    rate: float
    elapsed_s: float


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
        on_reading: Callable[[Reading], None] | None = None,
    ):
        self.total = int(total)
        self.unit = unit
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.every_s = every_s
        self.enabled = enabled
        self.done = 0
        self.on_reading = on_reading
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
            if self.on_reading is not None:
                self.on_reading(self.reading(now))

    def reading(self, now: float | None = None) -> Reading:
        """Units done of total, the mean rate since the start and the seconds elapsed."""
        now = time.monotonic() if now is None else now
        elapsed = max(now - self._start, 1e-9)
        return Reading(self.done, self.total, self.unit, self.done / elapsed, elapsed)

    def line(self, now: float | None = None) -> str:
        reading = self.reading(now)
        rate, elapsed = reading.rate, reading.elapsed_s
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
