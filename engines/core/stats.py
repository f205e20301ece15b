"""The one 95 % Wilson interval of a share, for every report, figure and command that needs it.

The same formula, term by term, as the SQL of ``engines/narcotic/views.sql`` (win_lo95,
win_hi95): a test checks that the two agree."""

from __future__ import annotations

Z95 = 1.959963984540054  # the two-sided 95 % quantile of the standard normal


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """(lower, upper) end of the Wilson interval of ``hits`` successes in ``n`` trials (n > 0)."""
    p = hits / n
    centre, half = p + z * z / (2 * n), z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


def wilson_upper(hits: int, n: int, z: float = Z95) -> float:
    """The upper end of :func:`wilson`: a bound on the share when few or no hits were seen."""
    return wilson(hits, n, z)[1]
