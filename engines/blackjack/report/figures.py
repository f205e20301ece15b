"""The Blackjack report's figure, from the rows of :mod:`.queries`."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ...report.common import pyplot, query, save_figure
from . import queries as q

BUST_PNG = "blackjack_bust.png"


def write_figures(con: duckdb.DuckDBPyConnection, outdir: Path) -> list[Path]:
    return [bust_figure(con, Path(outdir) / BUST_PNG)]


def bust_figure(con, path: Path) -> Path:
    """Bust probability by upcard, one line per deck count (stand on soft 17, no peek), and
    beside it each finite shoe's difference from the infinite shoe, where the lines separate."""
    plt = pyplot()
    _, rows = query(con, q.BUST_FIGURE_SQL)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    lines: dict[str, list] = {}
    for decks, upcard, order, p, diff in rows:
        lines.setdefault(decks, []).append((order, upcard, p, diff))
    for decks, pts in lines.items():
        label = "infinite" if decks == "inf" else f"{decks} deck{'s' if decks != '1' else ''}"
        x = [o for o, _, _, _ in pts]
        left.plot(x, [p for _, _, p, _ in pts], marker="o", ms=3, lw=1.2, label=label)
        if decks != "inf" and all(d is not None for _, _, _, d in pts):
            right.plot(x, [d for _, _, _, d in pts], marker="o", ms=3, lw=1.2, label=label)
        for ax in (left, right):
            ax.set_xticks(x, [u for _, u, _, _ in pts])
    left.set_title("P(dealer busts), dealer stands on soft 17, no peek")
    left.set_ylabel("%")
    right.set_title("difference from the infinite shoe")
    right.set_ylabel("percentage points")
    right.axhline(0, color="grey", lw=0.8)
    for ax in (left, right):
        ax.set_xlabel("dealer upcard")
        ax.grid(alpha=0.3)
    left.legend(fontsize=8, ncol=2)
    fig.suptitle("Exact dealer bust probability by upcard and shoe size")
    return save_figure(fig, path)
