"""The RedBlack report's figures, from rows of the query layer."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ...core.stats import wilson_upper
from ...report.common import pyplot, save_figure
from ..rules import canonical_deals
from . import queries as q

SHARE_PNG, LENGTHS_PNG = "redblack_infinite_share.png", "redblack_lengths.png"
COST_PNG = "redblack_cost_windows.png"


def write_figures(con: duckdb.DuckDBPyConnection, outdir: Path) -> list[Path]:
    """The share, lengths and cost-window figures."""
    outdir = Path(outdir)
    return [
        share_figure(q.shares(con), outdir / SHARE_PNG),
        lengths_figure(q.lengths(con), q.length_stats(con), outdir / LENGTHS_PNG),
        cost_windows_figure(q.cost_windows(con), q.window_costs(con), outdir / COST_PNG, q.campaign_shard_costs(con)),
    ]


LENGTH_CURVES = 4  # exhaustive sizes drawn in the distribution panel (every size is in the other panel)


def share_figure(rows: list[dict], path: Path) -> Path:
    """Infinite share by k on a log scale: exact points for exhaustive sizes (sizes with
    none marked at the bottom), and for sampled sizes the share with its 95 % upper bound."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4))
    sampled = [r for r in rows if r["method"] == "sample" and r["deals"]]
    for r in sampled:
        r["upper"] = wilson_upper(int(r["infinite"]), int(r["deals"]))
    positive = [100 * r["share"] for r in rows if r["share"]]
    floor = min(positive + [100 * r["upper"] for r in sampled] + [1e-4]) / 10
    exact = [r for r in rows if r["method"] == "exhaustive"]
    if exact:
        found = [r for r in exact if r["infinite"]]
        ax.plot(
            [r["k"] for r in found],
            [100 * r["share"] for r in found],
            "o",
            color="tab:blue",
            label="exhaustive: share of infinite deals (exact)",
        )
        for r in found:
            ax.annotate(
                f"{r['infinite']:,}",
                (r["k"], 100 * r["share"]),
                textcoords="offset points",
                xytext=(0, 6),
                ha="center",
                fontsize=8,
            )
        none = [r["k"] for r in exact if not r["infinite"]]
        ax.plot(none, [floor] * len(none), "x", color="tab:blue", label="exhaustive: none exist (exact)")
    for r in sampled:
        inf, n = int(r["infinite"]), int(r["deals"])
        up = 100 * r["upper"]
        y = 100 * r["share"] if inf else floor
        what = "95 % upper bound" if inf == 0 else "95 % interval"
        ax.errorbar(
            [r["k"]],
            [y],
            yerr=[[0], [up - y]],
            fmt="s",
            color="tab:orange",
            capsize=4,
            label=f"sample: {inf:,} of {n:,} deals, {what}",
        )
    ax.set_yscale("log")
    ax.set_xlabel("k (cards per player)")
    ax.set_ylabel("infinite deals (% of deals, log scale)")
    ax.set_title("RedBlack: share of infinite balanced deals")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return save_figure(fig, path)


def shown_series(series: dict[tuple, list]) -> list[tuple]:
    """The (method, k) curves a reader compares: up to LENGTH_CURVES exhaustive sizes spread from
    the smallest to the largest, plus every sampled size."""
    exhaustive = sorted(k for m, k in series if m == "exhaustive")
    if len(exhaustive) > LENGTH_CURVES:
        last = len(exhaustive) - 1
        picks = sorted({round(i * last / (LENGTH_CURVES - 1)) for i in range(LENGTH_CURVES)})
        exhaustive = [exhaustive[i] for i in picks]
    return [("exhaustive", k) for k in exhaustive] + sorted((m, k) for m, k in series if m != "exhaustive")


def lengths_figure(rows: list[dict], stats: list[dict], path: Path) -> Path:
    """Game-length distributions of a few sizes (left) and every size's mean and longest game (right)."""
    plt = pyplot()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    series: dict[tuple, list] = {}
    for r in rows:
        series.setdefault((r["method"], r["k"]), []).append((r["rounds"], r["share"]))
    shown = shown_series(series)
    colours = plt.get_cmap("tab10").colors
    for i, (method, k) in enumerate(shown):
        pts = series[(method, k)]
        ax.plot(
            [p[0] for p in pts],
            [p[1] for p in pts],
            color=colours[i % len(colours)],
            lw=1.4,
            marker="o",  # a size with one game length (k = 1) is one point: still visible
            markersize=3,
            linestyle="-" if method == "exhaustive" else "--",
            label=f"k = {k} ({method})",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")  # the tail, where sizes differ, is readable
    ax.set_xlabel("rounds to finish (log scale)")
    ax.set_ylabel("share of finite deals (log scale)")
    ax.set_title("Game length distribution, a few k" if len(shown) < len(series) else "Game length distribution by k")
    if shown:
        ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    plotted = False
    for method, marker in (("exhaustive", "o"), ("sample", "s")):
        pts = [s for s in stats if s["method"] == method]
        if pts:
            plotted = True
            ks = [s["k"] for s in pts]
            ax2.plot(ks, [s["mean_rounds"] for s in pts], marker=marker, label=f"mean ({method})")
            ax2.plot(ks, [s["max_rounds"] for s in pts], marker=marker, linestyle=":", label=f"longest ({method})")
    ax2.set_yscale("log")
    ax2.set_xlabel("k (cards per player)")
    ax2.set_ylabel("rounds")
    ax2.set_title("Mean and longest finite game")
    ax2.grid(alpha=0.3)
    if plotted:  # a legend with no lines is an empty box and a matplotlib warning
        ax2.legend(fontsize=8)
    return save_figure(fig, path)


def cost_windows_figure(windows: list[dict], costs: list[dict], path: Path, shards: list[dict] = ()) -> Path:
    """CPU per deal of each cost window against its place in its size's ranks, with each size's
    mean and 95 % interval (a band) over the windows in the ranks left: how much the cost of a
    campaign shard varies along the ranks.  Windows in ranks a campaign has searched are hollow,
    and the campaign's shards timed on the windows' kind of CPU are drawn over their ranks as
    short lines: what the windows predicted next to what the campaign took."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.5))
    colours = plt.get_cmap("tab10").colors
    for i, c in enumerate(costs):
        colour = colours[i % len(colours)]
        mine = [w for w in windows if w["k"] == c["k"]]
        for searched in (False, True):
            pts = [w for w in mine if bool(w["campaign_searched"]) == searched]
            if pts:
                ax.plot(
                    [w["range_start"] / canonical_deals(c["k"]) for w in pts],
                    [w["ns_per_deal"] for w in pts],
                    "o",
                    color=colour,
                    markerfacecolor="none" if searched else colour,
                    label=f"k = {c['k']}: {len(pts):,} windows of {c['window_deals']:,} ranks"
                    + (", ranks since searched" if searched else ""),
                )
        done = [r for r in shards if r["k"] == c["k"]]
        if done:
            ax.hlines(
                [r["ns_per_deal"] for r in done],
                [r["range_start"] / canonical_deals(c["k"]) for r in done],
                [r["range_stop"] / canonical_deals(c["k"]) for r in done],
                color=colour,
                lw=2.5,
                alpha=0.6,
                label=f"k = {c['k']}: {len(done):,} campaign shards (same kind of CPU)",
            )
        ax.axhline(c["ns_per_deal"], color=colour, lw=1, label=f"k = {c['k']}: mean {c['ns_per_deal']:,.0f} ns")
        ax.axhspan(c["lo95_ns_per_deal"], c["hi95_ns_per_deal"], color=colour, alpha=0.12, label="95 % interval")
    if not costs:
        ax.text(0.5, 0.5, "no timed cost windows", ha="center", va="center", transform=ax.transAxes)
    ax.set_ylim(bottom=0)
    ax.set_xlim(0, 1)
    ax.set_xlabel("place of the window in its size's ranks (first rank / canonical deals)")
    ax.set_ylabel("ns of CPU per deal")
    ax.set_title("RedBlack: cost of a window of ranks (owner rule, one core)")
    ax.grid(alpha=0.3)
    if costs:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return save_figure(fig, path)
