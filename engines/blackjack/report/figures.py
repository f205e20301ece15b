"""The Blackjack report's figure, from the rows of :mod:`.queries`."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ...report.common import pyplot, query, save_figure
from . import queries as q

BUST_PNG = "blackjack_bust.png"
EFFECTS_PNG = "blackjack_effects.png"


def write_figures(con: duckdb.DuckDBPyConnection, outdir: Path) -> list[Path]:
    return [bust_figure(con, Path(outdir) / BUST_PNG), effects_figure(con, Path(outdir) / EFFECTS_PNG)]


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


def effects_figure(con, path: Path) -> Path:
    """Effects of removal on the bust probability: the change (percentage points) against the rank
    removed from a full shoe, one line per upcard; a panel for 1 deck and one for 8 decks, on one
    scale so the shrinking shows."""
    plt = pyplot()
    _, rows = query(con, q.EFFECTS_FIGURE_SQL)
    panels: dict[str, dict[str, list]] = {}
    for decks, upcard, _, removed, removed_order, delta in rows:
        panels.setdefault(decks, {}).setdefault(upcard, []).append((removed_order, removed, delta))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True, squeeze=False)
    for ax, decks in zip(axes[0], ("1", "8")):
        for upcard, pts in panels.get(decks, {}).items():
            x = [o for o, _, _ in pts]
            ax.plot(x, [d for _, _, d in pts], marker="o", ms=3, lw=1.2, label=upcard)
            ax.set_xticks(x, [r for _, r, _ in pts])
        ax.set_title(f"{decks} deck{'s' if decks != '1' else ''}, dealer stands on soft 17")
        ax.set_xlabel("rank removed")
        ax.axhline(0, color="grey", lw=0.8)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("change in P(bust), percentage points")
    axes[0][0].legend(title="upcard", fontsize=8, ncol=2)
    fig.suptitle("Effect of removing one card on the dealer's bust probability")
    return save_figure(fig, path)
