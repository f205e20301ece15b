"""The Narcotic report's figures, from the rows of :mod:`.queries`."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ...core.stats import wilson
from ...report.common import pyplot, records, save_figure
from . import queries as q
from .labels import exp_label

PASSES_PNG, RULES_PNG, DECKS_PNG = "narcotic_passes.png", "narcotic_rules.png", "narcotic_decks.png"


def write_figures(con: duckdb.DuckDBPyConnection, outdir: Path) -> list[Path]:
    """The rule combinations, passes to win and deck sizes figures."""
    outdir = Path(outdir)
    return [
        rules_figure(records(con, q.COMBOS_SQL), outdir / RULES_PNG),
        passes_figure(con, outdir / PASSES_PNG),
        decks_figure(records(con, q.DECKS_SQL), outdir / DECKS_PNG),
    ]


def passes_figure(con: duckdb.DuckDBPyConnection, path: Path) -> Path:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    series: dict[str, tuple[list, list, int]] = {}
    for r in records(con, q.PASSES_SQL):
        xs, ys, _ = series.setdefault(exp_label(r["experiment"], r["preset"]), ([], [], r["total"]))
        xs.append(r["passes"])
        ys.append(r["games"])
    for label, (xs, counts, total) in series.items():
        ys = [c / total for c in counts]
        (line,) = ax.step(xs, ys, where="mid", label=f"{label}, {total:,} games")
        band = [wilson(c, total) for c in counts]  # 95 % interval of each bar's share
        ax.fill_between(
            xs,
            [lo for lo, _ in band],
            [hi for _, hi in band],
            step="mid",
            color=line.get_color(),
            alpha=0.25,
            linewidth=0,
        )
    ax.set_xlabel("passes through the deck until the game is won")
    ax.set_ylabel("share of all games (band: 95 % Wilson interval)")
    ax.set_title("Narcotic: passes to win")
    ax.legend()
    ax.grid(alpha=0.3)
    return save_figure(fig, path)


def rules_figure(combos: list[dict], path: Path) -> Path:
    plt = pyplot()
    if not combos:
        fig, ax = plt.subplots(figsize=(6, 1.5))
        ax.text(0.5, 0.5, "no experiment runs all sixteen rule combinations (rules: all)", ha="center", va="center")
        ax.axis("off")
        return save_figure(fig, path)
    rows = sorted((r for r in combos if r["experiment"] == combos[0]["experiment"]), key=lambda r: r["win_p"])
    fig, ax = plt.subplots(figsize=(8, 6))
    labels = [f"{r['matching']} / {r['gather']} / {r['pile_four']}" for r in rows]
    ps = [100 * r["win_p"] for r in rows]
    err = [[100 * (r["win_p"] - r["win_lo95"]) for r in rows], [100 * (r["win_hi95"] - r["win_p"]) for r in rows]]
    ax.barh(range(len(rows)), ps, xerr=err, color="tab:blue", ecolor="black", capsize=2)
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.set_xlabel("win probability (%) with 95 % Wilson interval")
    ax.set_title(
        f"Narcotic: all rule combinations ({rows[0]['experiment']}, {rows[0]['games']:,} games each)\n"
        "matching / gather / pile_four"
    )
    ax.grid(axis="x", alpha=0.3)
    return save_figure(fig, path)


def decks_figure(decks: list[dict], path: Path) -> Path:
    """Win probability and mean time of a won game by deck size: exact points, simulated ones with 95 % bars."""
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
    exact = [d for d in decks if d["sequences"] is not None]
    sim = [d for d in decks if d["games"] is not None]
    if sim:
        xs = [d["ranks"] for d in sim]
        ps = [100 * d["sim_win_p"] for d in sim]
        err = [
            [100 * (d["sim_win_p"] - d["win_lo95"]) for d in sim],
            [100 * (d["win_hi95"] - d["sim_win_p"]) for d in sim],
        ]
        left.errorbar(xs, ps, yerr=err, fmt="o", ms=4, capsize=3, label="simulated (95 % Wilson)")
        terr = [
            [d["sim_mean_time_s"] - d["mean_time_lo95"] for d in sim],
            [d["mean_time_hi95"] - d["sim_mean_time_s"] for d in sim],
        ]
        right.errorbar(
            xs, [d["sim_mean_time_s"] for d in sim], yerr=terr, fmt="o", ms=4, capsize=3, label="simulated (95 %)"
        )
    if exact:
        xs = [d["ranks"] for d in exact]
        left.plot(xs, [100 * d["exact_win_p"] for d in exact], "kx", ms=9, label="exact (every sequence)")
        right.plot(xs, [d["exact_mean_time_s"] for d in exact], "kx", ms=9, label="exact (every sequence)")
    left.set_ylabel("win probability (%)")
    right.set_ylabel("mean time of a won game (s, the seed's model)")
    right.set_yscale("log")
    for ax in (left, right):
        ax.set_xlabel("values in the deck r (4r cards)")
        ax.set_xticks(range(1, 14))
        ax.grid(alpha=0.3)
        if exact or sim:
            ax.legend(fontsize=8)
    fig.suptitle("Narcotic (seed rules) by deck size")
    return save_figure(fig, path)
