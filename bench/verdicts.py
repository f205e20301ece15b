"""A bench's targets and its verdict: each measured figure against its target, in words, and
the exit status (non-zero where a figure is below its target), so that `make bench` and a
person reading its output both see a missed target.

    verdicts = Verdicts("narcotic")
    print(f"... {ratio:.2f}x {verdicts.at_least('seed rules vs C', ratio, 3.0)}")
    sys.exit(verdicts.summary())
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Verdicts:
    """The targets one bench run checked, and which of them it missed."""

    bench: str
    missed: list[str] = field(default_factory=list)

    def at_least(self, what: str, value: float, target: float) -> str:
        """Words for ``value`` against a floor (a ratio, a speed): "(target >= 3: met)" or "below target"."""
        return self._judge(what, value, target, value >= target, ">=")

    def at_most(self, what: str, value: float, target: float) -> str:
        """Words for ``value`` against a ceiling (a time relative to another)."""
        return self._judge(what, value, target, value <= target, "<=")

    def _judge(self, what: str, value: float, target: float, met: bool, sign: str) -> str:
        if met:
            return f"(target {sign} {target:g}: met)"
        self.missed.append(f"{what}: {value:.3g} against a target {sign} {target:g}")
        return f"(target {sign} {target:g}: BELOW TARGET)"

    def summary(self) -> int:
        """Print the verdict of the run; the exit status: 0 when every target was met, else 1."""
        if not self.missed:
            print(f"{self.bench}: every target met")
            return 0
        print(f"{self.bench}: {len(self.missed)} figure(s) below target:")
        for line in self.missed:
            print(f"  below target: {line}")
        return 1
