"""Cost windows: the plan (seeded uniform windows), a window equals the same ranks searched directly,
the warehouse's interval over windows on timings with known answers, and the report's text."""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pytest
from wfhelp import shards_warehouse

from engines.core.errors import CardlabError
from engines.core.fmt import hours_text
from engines.interface import views_sql
from engines.redblack import search_range
from engines.redblack.kinds.search import ExhaustiveSearch, search_tables
from engines.redblack.kinds.windows import STARTUP_PROBES, STARTUP_VARIANT, window_experiment
from engines.redblack.report import figures
from engines.redblack.report import queries as q
from engines.redblack.report.cost import NO_MISS, Check, CostToFinish, Rate, cost_line, costs_to_finish, window_checks
from engines.redblack.report.cost_text import cost_check_section, cost_check_text
from engines.redblack.report.figures import cost_windows_figure
from engines.redblack.report.markdown import coverage_text, ranges_text
from engines.redblack.rules import canonical_deals
from engines.registry import engine
from engines.report.common import build_game

ENG = engine("redblack")
FULL = {"cost_windows": {"k": 26, "windows": 32, "window": 1_000_000, "seed": 20260301}}


def plain(tables: dict[str, dict], leave_out: tuple[str, ...] = ()) -> dict:
    """Tables as plain lists (numpy columns compare element by element), some columns left out."""
    return {t: {c: np.asarray(v).tolist() for c, v in cols.items() if c not in leave_out} for t, cols in tables.items()}


def windows_of(section: dict) -> list[dict]:
    return [s for s in ENG.plan(section) if s["kind"] == "cost_window" and s["variant"] != STARTUP_VARIANT]


def test_the_plan_draws_distinct_aligned_windows_inside_the_ranks():
    windows = windows_of(FULL)
    assert [w["shard"] for w in windows] == list(range(32))
    starts = sorted(w["ranks"][0] for w in windows)
    assert len(set(starts)) == 32
    total = canonical_deals(26)
    for w in windows:
        r0, r1 = w["ranks"]
        assert w["range"] == [w["shard"] * 1_000_000, (w["shard"] + 1) * 1_000_000]  # its place in the experiment
        assert r0 % 1_000_000 == 0 and r1 - r0 == 1_000_000 and 0 <= r0 and r1 <= total
        assert (w["experiment"], w["variant"], w["method"]) == ("exhaustive_k26_windows", "owner", "owner")
    assert all(b - a >= 1_000_000 for a, b in zip(starts, starts[1:]))  # never overlapping
    # spread over the whole range, not bunched at one end (32 uniform draws)
    assert starts[0] < total / 4 and starts[-1] > 3 * total / 4


def test_the_plan_is_deterministic_from_the_seed():
    assert windows_of(FULL) == windows_of(FULL)
    other = {"cost_windows": {**FULL["cost_windows"], "seed": 1}}
    assert {w["ranks"][0] for w in windows_of(other)}.isdisjoint({w["ranks"][0] for w in windows_of(FULL)})


@pytest.mark.parametrize("windows", [2, 8, 32])
def test_window_i_lies_in_the_ith_of_equal_parts_of_the_ranks(windows):
    """Stratified: the bottom of the ranks, where a deal costs several times the average, always
    gets its share of windows (uniform draws over all of them left k = 21's bottom 3 % without one)."""
    slots = canonical_deals(26) // 1_000_000
    plan = windows_of({"cost_windows": {**FULL["cost_windows"], "windows": windows}})
    for w in plan:
        slot = w["ranks"][0] // 1_000_000
        assert w["shard"] * slots // windows <= slot < (w["shard"] + 1) * slots // windows
    assert len(plan) == windows


def test_stratified_draws_spread_like_uniform_ones_within_their_parts():
    """Over many seeds, a window's place in its part is uniform (each tenth of the part about as often)."""
    tenths = np.zeros(10)
    for seed in range(400):
        plan = windows_of({"cost_windows": {"k": 12, "windows": 4, "window": 100, "seed": seed}})
        slots = canonical_deals(12) // 100
        for w in plan:
            first, stop = w["shard"] * slots // 4, (w["shard"] + 1) * slots // 4
            tenths[int(10 * (w["ranks"][0] // 100 - first) / (stop - first))] += 1
    expected = 1600 / 10
    assert np.sum((tenths - expected) ** 2 / expected) < 27.9  # chi-square, 9 degrees of freedom, p = 0.001


def test_windows_that_cannot_fit_are_refused_and_small_sizes_fill_without_overlap():
    with pytest.raises(CardlabError, match="do not fit"):
        ENG.plan({"cost_windows": {"k": 4, "windows": 2, "window": 100, "seed": 1}})
    # k = 7: 1,716 canonical deals, 17 slots of 100: every slot drawn once, none twice
    windows = windows_of({"cost_windows": {"k": 7, "windows": 17, "window": 100, "seed": 3}})
    assert sorted(w["ranks"][0] for w in windows) == list(range(0, 1700, 100))


def test_probes_run_first_and_windows_wait_for_the_warm_up():
    plan = ENG.plan({"cost_windows": {"k": 12, "windows": 3, "window": 1000, "seed": 2}})
    probes = [s for s in plan if s["variant"] == STARTUP_VARIANT]
    assert [p["shard"] for p in probes] == list(range(STARTUP_PROBES + 1))
    assert ENG.kind_of(probes[0]).inputs(probes[0], plan) == []
    for s in plan[1:]:
        if s["kind"] == "basin":  # the basin job reads every search shard, windows and probes too
            assert ("redblack_found", probes[0]) in ENG.kind_of(s).inputs(s, plan)
            continue
        ((table, warm_up),) = ENG.kind_of(s).inputs(s, plan)
        assert table == "redblack_counts" and warm_up == probes[0]
    assert ENG.kind_of(plan[-1]).schedule({}, plan[-1]).threads == 1


def test_a_window_is_the_same_ranks_searched_directly():
    section = {"cost_windows": {"k": 12, "windows": 3, "window": 5000, "seed": 7}}
    plan = ENG.plan(section)
    for spec in windows_of(section):
        r0, r1 = spec["ranks"]
        got = ENG.kind_of(spec).compute(spec, None, [])
        direct = search_tables(
            spec, search_range(12, r0, r1, method="owner"), "exhaustive", True, canonical_deals(12), r0, r1
        )
        assert plain(got) == plain(direct)
        # and the campaign's own kind on the same ranks writes the same rows but for the names
        campaign = ExhaustiveSearch.run(
            ENG.kind_of(spec), {**spec, "experiment": "exhaustive_k12", "range": spec["ranks"]}, None, [], "scalar"
        )
        assert plain(got, ("experiment",)) == plain(campaign, ("experiment",))
        assert got["redblack_counts"]["deals"] == [r1 - r0]
    probe = next(s for s in plan if s["variant"] == STARTUP_VARIANT)
    assert all(len(next(iter(cols.values()))) == 0 for cols in ENG.kind_of(probe).compute(probe, None, []).values())
    assert ENG.kind_of(probe).expected_rows(probe, "redblack_counts") == 0


# Four windows of 1,000 deals whose search took 0.1, 0.2, 0.3, 0.4 ms after a 0.4 s start-up:
# 100..400 ns per deal, mean 250, s = sqrt(5/3) * 100, t(3) = 3.1824.
START_UP, NET = 0.4, (1e-4, 2e-4, 3e-4, 4e-4)
CPU, OTHER_CPU = "Test CPU (x86_64, family 25, model 1)", "Test CPU (x86_64, family 23, model 1)"
SECTION = {
    "exhaustive": [
        {"k": [8], "method": "owner", "deals_per_shard": 5000},
        {"k": [26], "method": "owner", "deals_per_shard": 1000, "ranks": [0, 1000]},
    ],
    "cost_windows": {"k": 26, "windows": 4, "window": 1000, "seed": 5},
    "experiments": [{"name": "owner26", "k": 26, "deals": 300, "seed": 1, "method": "owner"}],
}


def synthetic_timings(con: duckdb.DuckDBPyConnection) -> None:
    """Timings with known answers: the probes' start-up (the warm-up much longer: it compiled), the
    windows' start-up plus NET, and a campaign shard for the sample method's CPU per round."""
    exp = window_experiment(26)
    rows = [("redblack", exp, STARTUP_VARIANT, 0, 100, "deals", 9.0, 9.0, 1)]
    rows += [("redblack", exp, STARTUP_VARIANT, p, 100, "deals", 1.0, START_UP + (p - 2) * 0.01, 1) for p in (1, 2, 3)]
    rows += [("redblack", exp, "owner", i, 1000, "deals", 1.0, START_UP + n, 1) for i, n in enumerate(NET)]
    rows += [("redblack", "exhaustive_k26", "owner", 0, 1000, "deals", 2.0, 2.0, 1)]
    con.execute("DELETE FROM shard_timings")
    con.executemany(
        "INSERT INTO shard_timings (game, experiment, variant, shard, work, unit, wall_s, cpu_s, threads, machine) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [r + (CPU,) for r in rows],
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("costwindows")
    db = shards_warehouse("redblack", SECTION, root)
    con = duckdb.connect(str(db))
    synthetic_timings(con)
    try:
        build_game("redblack", con, root / "reports")
        yield con, (root / "reports" / "infinite_games.md").read_text()
    finally:
        con.close()


def test_students_t_quantile():
    con = duckdb.connect()
    for stmt in views_sql(ENG):
        if stmt.startswith("CREATE MACRO student_t95"):
            con.execute(stmt)
    known = {1: 12.7062, 3: 3.1824, 30: 2.0423, 31: 2.0395, 40: 2.0211, 60: 2.0003, 120: 1.9799, 10**6: 1.9600}
    for df, t in known.items():
        (got,) = con.execute("SELECT student_t95(?)", [df]).fetchone()
        assert got == pytest.approx(t, abs=2e-4), df


def test_the_interval_over_windows_has_the_known_answer(built):
    con, _ = built
    w = dict(
        zip(
            *[
                [d[0] for d in con.execute("SELECT * FROM redblack_window_cost").description],
                con.execute("SELECT * FROM redblack_window_cost").fetchone(),
            ]
        )
    )
    mean, sd = 250e-9, math.sqrt(5 / 3) * 100e-9
    half = 3.1824 * sd / 2
    assert (w["windows"], w["probes"], w["window_deals"]) == (4, 3, 1000)
    assert w["startup_cpu_s"] == pytest.approx(START_UP)  # the warm-up (it compiled) left out
    assert w["cpu_s_per_deal"] == pytest.approx(mean)
    assert w["sd_cpu_s_per_deal"] == pytest.approx(sd)
    assert (w["lo95_cpu_s_per_deal"], w["hi95_cpu_s_per_deal"]) == pytest.approx((mean - half, mean + half))
    assert (w["min_cpu_s_per_deal"], w["median_cpu_s_per_deal"], w["max_cpu_s_per_deal"]) == pytest.approx(
        (100e-9, 250e-9, 400e-9)
    )
    c = con.execute(
        "SELECT canonical_deals, ranks_searched, prefix_done, cost_from, core_hours_left, core_hours_lo95, "
        "core_hours_hi95, sample_core_hours_left FROM redblack_coverage WHERE k = 26"
    ).fetchone()
    left = canonical_deals(26) - 5000
    assert c[:4] == (canonical_deals(26), 5000, 1000, "windows")  # scattered windows: searched, not the prefix
    # of which the windows alone: what the report names apart from the shards' count (the campaign command's)
    (alone,) = con.execute("SELECT window_only_ranks FROM redblack_coverage WHERE k = 26").fetchone()
    assert alone == 4000
    assert c[4:7] == pytest.approx((left * mean / 3600, left * (mean - half) / 3600, left * (mean + half) / 3600))
    # the sample method beside it: rounds per deal of the owner-rule sample x CPU per round of the
    # cost windows (1 ms over their rounds, timed on the machine that prices the rest), not of the
    # campaign shard [0, 1000) (2 CPU-s)
    (rpd,) = con.execute("SELECT sum(rounds) / sum(deals) FROM redblack_counts WHERE experiment = 'owner26'").fetchone()
    (rounds,) = con.execute("SELECT sum(rounds) FROM redblack_cost_windows").fetchone()
    assert c[7] == pytest.approx(left * rpd * sum(NET) / rounds / 3600)
    per_round, basis = con.execute(
        "SELECT cpu_s_per_round, cpu_s_per_round_from FROM redblack_coverage WHERE k = 26"
    ).fetchone()
    assert (per_round, basis) == (pytest.approx(sum(NET) / rounds), "cost windows")


def test_the_report_states_the_cost_with_its_interval(built):
    con, md = built
    (hours, lo, hi), (n, ns, lo_ns, hi_ns, mn, med, mx) = (
        con.execute(
            "SELECT core_hours_left, core_hours_lo95, core_hours_hi95 FROM redblack_coverage WHERE k = 26"
        ).fetchone(),
        con.execute(
            "SELECT windows, 1e9 * cpu_s_per_deal, 1e9 * lo95_cpu_s_per_deal, 1e9 * hi95_cpu_s_per_deal, "
            "1e9 * min_cpu_s_per_deal, 1e9 * median_cpu_s_per_deal, 1e9 * max_cpu_s_per_deal FROM redblack_window_cost"
        ).fetchone(),
    )
    section = md[md.index("## The full deck") : md.index("## Exhaustive coverage")]
    assert f"{n} windows of 1,000 consecutive ranks at stratified positions (window i uniform in the i-th" in section
    assert f"took {ns:,.0f} ns of CPU per deal on average (95 % interval {lo_ns:,.0f}–{hi_ns:,.0f} ns" in section
    assert "mean ± t·s/√n over the windows, Student's t = 3.182 with 3 degrees of freedom" in section
    assert f"min {mn:,.0f}, median {med:,.0f}, max {mx:,.0f} ns per deal" in section
    # no campaign checks these windows: the windows alone, priced on the CPU that timed them, the view's figure
    (cost,) = costs_to_finish(con)[26]
    assert (cost.machine, cost.miss) == (CPU, NO_MISS)
    assert (cost.hours, cost.lo95, cost.hi95) == pytest.approx((hours, lo, hi))
    assert f"- {cost_line(cost)}, " in section and f"about {hours:,.0f} core-hours (95 % interval {lo:,.0f}–" in section
    assert f"{hi:,.0f}) on {CPU}" in section and "the windows alone" in section
    assert "less a warm job's start-up, 0.40 CPU-s, the mean of 3 probes)" in section
    (sample,) = con.execute("SELECT sample_core_hours_left FROM redblack_coverage WHERE k = 26").fetchone()
    assert "Cross-check only, not a cost to finish (the sample method: " in section
    assert (
        f"about {sample:,.0f} core-hours; the cost to finish on the windows' own kind of CPU is "
        f"{hours / sample:,.2f} times that." in section
    )
    assert "ns of CPU per round, measured by the same cost windows, on the same machine, averages over" in section
    assert "![CPU per deal of each cost window](redblack_cost_windows.png)" in md
    assert (
        "5,000 of 247,959,266,474,052 canonical deals searched (0.0000000020 %), 1,000 by search shards (the count of "
        "`cardlab redblack campaign 26`) and 4,000 by cost windows alone; ranks [0, 1,000) without a gap." in section
    )
    # the coverage table's cost column is the same figure; the sample method's is labelled a cross-check
    table = md[md.index("## Exhaustive coverage") :]
    assert f"| {cost_line(cost)} |" in table and "| cross-check only: rounds × CPU per round (core-hours) |" in table


def test_the_front_page_names_a_campaign_under_way_and_its_cost(built):
    from engines.core.fmt import hours_text, small_pct
    from engines.redblack.report.index import campaigns_answer

    con, _ = built
    share, hours, lo, hi = con.execute(
        "SELECT share_searched, core_hours_left, core_hours_lo95, core_hours_hi95 FROM redblack_coverage WHERE k = 26"
    ).fetchone()
    assert campaigns_answer(con) == []  # the full deck has its own paragraph
    (line,) = campaigns_answer(con, full_deck=0)  # as if k = 26 were a campaign like k = 23
    assert line.startswith(
        f"Under way: k = 26, {small_pct(share)} of its 247,959,266,474,052 canonical deals searched exactly; the rest "
        f"needs about {hours_text(hours)} core-hours (95 % interval {hours_text(lo)}–{hours_text(hi)}) on {CPU}"
    )


def test_windows_in_ranks_a_campaign_searched_are_left_out(built):
    """A campaign shard over one window's ranks: that window no longer measures the ranks left, so the
    mean, its interval and the cost to finish come from the other three (net 100, 200, 400 ns per deal
    when the 300 ns window is left out)."""
    con, _ = built
    draws = con.execute("SELECT draw, range_start, range_stop FROM redblack_cost_windows ORDER BY draw").fetchall()
    draw, r0, r1 = draws[2]  # the window of 0.3 ms
    con.begin()
    try:
        con.execute(
            "INSERT INTO redblack_counts SELECT * REPLACE (? AS range_start, ? AS range_stop, 7 AS shard) "
            "FROM redblack_counts WHERE experiment = 'exhaustive_k26' LIMIT 1",
            [r0, r1],
        )
        searched = con.execute("SELECT draw FROM redblack_cost_windows WHERE campaign_searched").fetchall()
        assert searched == [(draw,)]
        n, left_out, mean, sd = con.execute(
            "SELECT windows, windows_searched, cpu_s_per_deal, sd_cpu_s_per_deal FROM redblack_window_cost"
        ).fetchone()
        assert (n, left_out) == (3, 1)
        assert mean == pytest.approx(700e-9 / 3)
        assert sd == pytest.approx(np.std([100e-9, 200e-9, 400e-9], ddof=1))
        deals_left, hours = con.execute(
            "SELECT deals_left, core_hours_left FROM redblack_coverage WHERE k = 26"
        ).fetchone()
        assert hours == pytest.approx(deals_left * 700e-9 / 3 / 3600)
        # the window the shard covers is the shard's: 2,000 ranks by shards, 3,000 by windows alone
        searched, alone = con.execute(
            "SELECT ranks_searched, window_only_ranks FROM redblack_coverage WHERE k = 26"
        ).fetchone()
        assert (searched, alone) == (5000, 3000)
        # the ranges searched: the campaign's [0, 1000), the four windows (one twice)
        (ranges,) = con.execute("SELECT count(*) FROM redblack_searched_ranges WHERE k = 26").fetchone()
        assert ranges == 5
    finally:
        con.rollback()
    (n,) = con.execute("SELECT windows FROM redblack_window_cost").fetchone()
    assert n == 4


def figure_lines(monkeypatch, tmp_path, *rows) -> dict[str, list]:
    """The cost figure's line collections, by label, as [[x0, y0], [x1, y1]] segments."""
    seen = {}

    def keep(fig, path):
        seen.update({c.get_label(): [s.tolist() for s in c.get_segments()] for c in fig.axes[0].collections})
        return path

    monkeypatch.setattr(figures, "save_figure", keep)
    cost_windows_figure(rows[0], rows[1], tmp_path / "cost.png", rows[2])
    return seen


def test_windows_in_a_campaigns_ranks_predict_what_it_took(built, monkeypatch, tmp_path):
    """Campaign shards over the windows of 0.1 and 0.2 ms (shards 7 and 8, timed 0.25 and 0.35 CPU-s) and
    shard 0 (2.0 CPU-s): the two windows predict 150 ns a deal for the campaign's 3,000 deals.  Shards 9
    (another kind of CPU) and 10 (timed before the kind was recorded) are left out of the check, and counted,
    and so is a window whose ranks only a shard on another kind of CPU has searched."""
    con, _ = built
    draws = con.execute("SELECT range_start, range_stop FROM redblack_cost_windows ORDER BY draw").fetchall()
    con.begin()
    try:
        for shard, (r0, r1), cpu, machine in (
            (7, draws[0], 0.25, CPU),
            (8, draws[1], 0.35, CPU),
            (9, (5000, 6000), 50.0, OTHER_CPU),
            (10, (6000, 7000), 70.0, None),
        ):
            con.execute(
                "INSERT INTO redblack_counts SELECT * REPLACE (? AS range_start, ? AS range_stop, ? AS shard) "
                "FROM redblack_counts WHERE experiment = 'exhaustive_k26' AND shard = 0",
                [r0, r1, shard],
            )
            con.execute(
                "INSERT INTO shard_timings (game, experiment, variant, shard, work, unit, wall_s, cpu_s, threads, machine) VALUES ('redblack', 'exhaustive_k26', 'owner', ?, 1000, 'deals', 1, ?, 1, ?)",
                [shard, cpu, machine],
            )
        r = con.execute("SELECT * FROM redblack_cost_check").fetchall()
        assert len(r) == 1
        k, windows, shards, deals, per_deal, predicted, lo, hi, taken, ratio, machine, elsewhere = r[0]
        assert (k, windows, shards, deals, machine, elsewhere) == (26, 2, 3, 3000, CPU, 2)
        assert per_deal == pytest.approx(150e-9) and predicted == pytest.approx(3000 * 150e-9)
        half = 12.7062 * np.std([100e-9, 200e-9], ddof=1) / math.sqrt(2)
        assert lo == 0 and hi == pytest.approx(3000 * (150e-9 + half), rel=1e-4)
        assert taken == pytest.approx(2.6) and ratio == pytest.approx(2.6 / predicted)
        # the figure draws the shards timed on the windows' kind of CPU over their ranks (0.25 and 0.35 CPU-s
        # for 1,000 deals: 250,000 and 350,000 ns a deal), and no other
        shards = q.campaign_shard_costs(con)
        assert [(r["k"], r["range_start"], r["range_stop"], r["ns_per_deal"]) for r in shards] == [
            (26, 0, 1000, pytest.approx(2e6)),
            (26, *draws[0], pytest.approx(2.5e5)),
            (26, *draws[1], pytest.approx(3.5e5)),
        ]
        drawn = figure_lines(monkeypatch, tmp_path, q.cost_windows(con), q.window_costs(con), shards)
        assert drawn["k = 26: 3 campaign shards (same kind of CPU)"] == [
            [
                [r["range_start"] / canonical_deals(26), r["ns_per_deal"]],
                [r["range_stop"] / canonical_deals(26), r["ns_per_deal"]],
            ]
            for r in shards
        ]
        # the cost to finish now comes from the other two windows (300 and 400 ns)
        (mean,) = con.execute("SELECT cpu_s_per_deal FROM redblack_window_cost").fetchone()
        assert mean == pytest.approx(350e-9)
        checks = window_checks(con)
        text = cost_check_section(checks)
        assert text[0] == "## The cost windows, checked against the campaigns"
        line = text[-2]
        assert line.startswith(
            f"- k = 26, shards timed on {CPU}: the 2 windows in their ranks predicted 1.25e-07 core-hours"
        )
        assert "for the 3,000 deals of the 3 shards; they took 0.000722 (" in line
        # two windows bound nothing (Student's t = 12.7): the check is listed, and prices nothing
        assert line.endswith("above the interval; too few windows to bound the miss: not used).")
        assert costs_to_finish(con)[26][0].miss is NO_MISS
        assert text[-1] == ""  # a blank line before the next heading
        # a shard timed on another kind of CPU over the 300 ns window: that window checks nothing
        con.execute(
            "INSERT INTO redblack_counts SELECT * REPLACE (? AS range_start, ? AS range_stop, 11 AS shard) "
            "FROM redblack_counts WHERE experiment = 'exhaustive_k26' AND shard = 0",
            list(draws[2]),
        )
        con.execute(
            "INSERT INTO shard_timings (game, experiment, variant, shard, work, unit, wall_s, cpu_s, threads, machine) VALUES ('redblack', 'exhaustive_k26', 'owner', 11, 1000, 'deals', 1, 9.0, 1, ?)",
            [OTHER_CPU],
        )
        assert con.execute("SELECT windows, shards, shards_elsewhere FROM redblack_cost_check").fetchall() == [
            (2, 3, 3)
        ]
    finally:
        con.rollback()
    assert con.execute("SELECT count(*) FROM redblack_cost_check").fetchone() == (0,)


def test_the_check_says_where_the_cost_taken_falls():
    def check(taken_h: float, windows: int = 34, machine: str = CPU) -> Check:
        # 5.0 core-hours predicted for 1.8e11 deals: 100 ns a deal, 95 % interval 82-118 ns
        rate = Rate(windows, 1e-7, 0.18e-7 * math.sqrt(windows) / 2.0345, 2.0345)
        return Check(21, machine, CPU, rate, 93, 180_000_000_000, taken_h * 3600)

    inside = cost_check_text(check(5.3))
    assert inside == (
        f"k = 21, shards timed on {CPU}: the 34 windows in their ranks predicted 5.00 core-hours (95 % interval "
        "4.10–5.90) for the 180,000,000,000 deals of the 93 shards; they took 5.30 (1.06 times the prediction, "
        "inside the interval; the miss 0.90–1.29)."
    )
    below = cost_check_text(check(3.0))
    assert "took 3.00 (0.60 times the prediction, below the interval; the miss 0.51–0.73)." in below
    above = cost_check_text(check(9.0, machine=OTHER_CPU))
    assert above.startswith(f"k = 21, shards timed on {OTHER_CPU}: the 34 windows in their ranks (timed on {CPU})")
    assert "above the interval" in above
    assert cost_check_section([]) == []


def test_the_cost_text_says_which_windows_it_left_out():
    c = {
        "k": 26,
        "ranks_searched": 3000,
        "canonical_deals": 10**6,
        "share_searched": 0.003,
        "prefix_done": 0,
        "deals_left": 997000,
        "sample_core_hours_left": None,
    }
    w = {"windows": 3, "windows_searched": 1, "window_deals": 1000, "ns_per_deal": 250.0, "lo95_ns_per_deal": 100.0}
    w |= {"hi95_ns_per_deal": 400.0, "t95": 4.3027, "startup_cpu_s": 0.4, "probes": 3, "min_ns_per_deal": 100.0}
    w |= {"median_ns_per_deal": 250.0, "max_ns_per_deal": 400.0, "rounds_per_deal": 20.0}
    cost = CostToFinish(26, CPU, CPU, 997000, Rate(3, 0.0072, 0.001, 4.3027), NO_MISS)
    half = 4.3027 * 0.001 / math.sqrt(3)
    hours = [hours_text(997000 * per_deal / 3600) for per_deal in (0.0072, 0.0072 - half, 0.0072 + half)]
    text = coverage_text(c, [cost], w, [(10, 1010), (5000, 7000)])
    assert "without a gap" not in text  # no prefix searched: no "[0, 0)"
    assert "The searched ranks form 2 ranges, [10, 1,010), [5,000, 7,000): every cycle whose smallest" in text
    assert "equal parts of the ranks) (of 4 drawn, the 1 that fall in ranks a campaign has searched" in text
    assert f"- about {hours[0]} core-hours (95 % interval {hours[1]}–{hours[2]}) on {CPU}: 3 cost windows" in text
    assert "the windows alone" in text and "cluster" not in text  # no cluster for two core-hours
    assert "less a warm job's start-up, 0.40 CPU-s, the mean of 3 probes" in text
    # windows run in one job after the warm-up: the probes read nothing to subtract, and the text says so
    text = coverage_text(c, [cost], w | {"startup_cpu_s": 0.0}, [(10, 1010), (5000, 7000)])
    assert "the windows ran in one job after a warm-up that loaded the kernels, and the 3 probes after it" in text
    assert "0.00 CPU-s" not in text
    assert ranges_text([(i, i + 1) for i in range(0, 14, 2)]) == (
        "The searched ranks form 7 ranges (view `redblack_searched_ranges`)"
    )


def test_core_hours_keep_three_significant_digits_below_a_hundred():
    from engines.core.fmt import hours_text

    assert [hours_text(h) for h in (36.0, 27.14, 5, 0.5, 99.96, 100.4, 2201.3)] == [
        "36.0",
        "27.1",
        "5.00",
        "0.500",
        "100",
        "100",
        "2,201",
    ]


def test_the_lists_say_near_the_top_why_most_deals_are_found_by_basin(built):
    """A list called complete holds mostly `found_by = basin` deals: the report says why before any list."""
    _, md = built
    top = md[: md.index("## ")]
    assert "`basin`, it lies in the basin of a cycle the search found" in top
    assert "a complete list holds mostly `basin` deals" in top
