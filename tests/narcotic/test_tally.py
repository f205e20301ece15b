"""Narcotic campaigns: a tally shard sums exactly the games a sim shard with its seed and range
plays; campaigns plan a fixed shard grid, are validated, and the narcotic_campaign view and the
report read their sums."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from tiny_warehouse import run, tiny_warehouse

from engines.core.errors import CardlabError
from engines.core.stats import wilson
from engines.interface import result_version, source_version
from engines.narcotic.report.markdown import campaign_section
from engines.pipeline.planning.plan import validate_config
from engines.registry import engine

NARCOTIC = engine("narcotic")
CAMPAIGN = {"name": "camp", "rules": "seed", "games": 5000, "games_per_shard": 2000, "seed": 77}


def sums_of_games(games: dict) -> dict:
    """The tally columns, computed from a sim shard's one row per game."""
    won = np.asarray(games["won"], bool)
    time_s = np.asarray(games["time_s"], np.int64)
    return {
        "games": len(won),
        "wins": int(won.sum()),
        "loops": int((~won).sum()),
        "won_time_s": int(time_s[won].sum()),
        "won_time_s2": int((time_s[won] ** 2).sum()),
        "won_passes": int(np.asarray(games["passes"])[won].sum()),
        "loop_cycle_length": int(np.asarray(games["cycle_length"])[~won].sum()),
    }


def tally_specs(**block) -> list[dict]:
    return [s for s in NARCOTIC.plan({"campaigns": [{**CAMPAIGN, **block}]}) if s["kind"] == "tally"]


@pytest.mark.parametrize("rules", [{"rules": "seed"}, {"matching": "cascade", "gather": "bottom-left"}])
def test_a_tally_shard_sums_the_games_of_the_sim_shard_with_its_seed_and_range(rules):
    block = {k: v for k, v in CAMPAIGN.items() if k != "rules"} | rules
    specs = [s for s in NARCOTIC.plan({"campaigns": [block]}) if s["kind"] == "tally"]
    assert [s["range"] for s in specs] == [[0, 2000], [2000, 4000], [4000, 5000]]
    for spec in specs:
        tally = run(spec)
        games = run({**spec, "kind": "sim"})["narcotic_games"]
        row = {c: v[0] for c, v in tally["narcotic_tallies"].items()}
        assert {c: row[c] for c in sums_of_games(games)} == sums_of_games(games)
        assert (row["range_start"], row["range_stop"], row["shard"]) == (*spec["range"], spec["shard"])
        hist = tally["narcotic_tally_passes"]
        counted = Counter(zip(np.asarray(games["won"], bool).tolist(), np.asarray(games["passes"]).tolist()))
        assert dict(zip(zip(hist["won"], hist["passes"]), hist["games"])) == dict(counted)
        assert 0 < row["wins"] < row["games"]  # both outcomes occur, so the check is not vacuous


def test_a_campaign_deals_the_games_an_experiment_of_its_name_would():
    """Same name, rules and seed: a campaign's shard and an experiment's shard over the same range
    are the same spec but for the kind (same seed, same decks)."""
    exp = {"name": "camp", "rules": "seed", "games": 4000, "shards": 2, "seed": 77}
    sims = NARCOTIC.plan({"experiments": [exp]})
    tallies = tally_specs(games=4000)
    assert [{**s, "kind": "sim"} for s in tallies] == sims


def test_raising_games_keeps_the_finished_shards():
    first, more = tally_specs(games=4000), tally_specs(games=9000)
    assert more[: len(first)] == first and more[-1]["range"] == [8000, 9000]


def test_a_campaign_in_progress_plans_only_the_listed_shards_of_its_grid():
    every = tally_specs()
    listed = tally_specs(only_shards=[2, 0])
    assert listed == [every[0], every[2]] and [s["range"] for s in listed] == [[0, 2000], [4000, 5000]]


def test_tally_shards_carry_the_explicit_version_sim_shards_the_source_hash():
    plan = NARCOTIC.plan({"experiments": [{"name": "e", "games": 10, "shards": 1, "seed": 1}], "campaigns": [CAMPAIGN]})
    versions = {s["kind"]: result_version(NARCOTIC, s) for s in plan}
    assert versions == {"sim": source_version(NARCOTIC), "tally": "narcotic-tally-1"}
    assert (
        NARCOTIC.kind_of(plan[-1]).stage == "tally"
        and NARCOTIC.kind_of(plan[-1]).expected_rows(plan[-1], "narcotic_tallies") == 1
    )


def test_threads_come_from_the_campaign():
    section = {"campaigns": [{**CAMPAIGN, "threads": 2}]}
    assert {NARCOTIC.kind_of(s).schedule(section, s).threads for s in NARCOTIC.plan(section)} == {2}


# ----------------------------------------------------------------------------- config


def test_a_config_of_campaigns_only_is_valid():
    assert validate_config({"narcotic": {"campaigns": [CAMPAIGN]}})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"games_per_shard": 0}, "campaigns[0].games_per_shard: 0 is less than the minimum of 1"),
        ({"rules": "seed", "matching": "cascade"}, "give either 'rules' or"),
        ({"shards": 4}, "allowed keys"),
        ({"name": "../up"}, "not safe as a path part"),
        ({"name": "seed"}, "'seed' is already used by narcotic.experiments[0]"),
        ({"games": 10**12, "games_per_shard": 1000}, "raise games_per_shard"),
        ({"rules": "best"}, "'best' is not allowed"),
        (
            {"only_shards": [1, 3]},
            "campaigns[0].only_shards: [3] are not on the grid of 5,000 games in shards of 2,000",
        ),
    ],
)
def test_bad_campaigns_are_named(change, message):
    section = {
        "experiments": [{"name": "seed", "rules": "seed", "games": 10, "shards": 1, "seed": 1}],
        "campaigns": [{**CAMPAIGN, **change}],
    }
    with pytest.raises(CardlabError) as err:
        validate_config({"narcotic": section})
    assert message in str(err.value)


def test_two_campaigns_of_one_name_are_refused():
    with pytest.raises(CardlabError, match=r"campaigns\[1\].name: 'camp' is already used by narcotic.campaigns\[0\]"):
        validate_config({"narcotic": {"campaigns": [CAMPAIGN, {**CAMPAIGN, "seed": 2}]}})


# ----------------------------------------------------------------------------- the view and the report


def test_the_campaign_view_adds_up_the_shards_as_the_games_say():
    specs = tally_specs()
    con = tiny_warehouse([run(s) for s in specs])
    got = con.execute("SELECT * FROM narcotic_campaign").fetchall()
    cols = [d[0] for d in con.description]
    assert len(got) == 1
    view = dict(zip(cols, got[0]))
    games = [run({**s, "kind": "sim"})["narcotic_games"] for s in specs]
    won = np.concatenate([g["won"] for g in games]).astype(bool)
    time_s = np.concatenate([g["time_s"] for g in games]).astype(np.int64)
    n, k = len(won), int(won.sum())
    average = time_s[won].sum() / n  # the seed's: won games' time over all games
    assert (view["preset"], view["shards"], view["complete"], view["games"], view["wins"]) == ("seed", 3, True, n, k)
    assert (view["win_lo95"], view["win_hi95"]) == pytest.approx(wilson(k, n), rel=1e-12)
    assert view["mean_time_s"] == pytest.approx(time_s[won].mean(), rel=1e-12)
    half = 1.959963984540054 * time_s[won].std(ddof=1) / np.sqrt(k)
    assert view["mean_time_hi95"] - view["mean_time_s"] == pytest.approx(half, rel=1e-9)
    assert (view["seed_hours"], view["seed_minutes"]) == (round(average / 3600), round(average / 60) % 60)
    assert view["seed_percent"] == pytest.approx(100 * k / n, rel=1e-12)
    hist = dict(con.execute("SELECT passes, games FROM narcotic_campaign_passes WHERE won").fetchall())
    assert sum(hist.values()) == k
    # the same games as an experiment: the summary view agrees with the campaign view
    con = tiny_warehouse([{"narcotic_games": g} for g in games])
    summary = con.execute("SELECT wins, win_lo95, mean_time_s, total_won_time_s / games FROM narcotic_summary")
    assert summary.fetchone() == pytest.approx((k, view["win_lo95"], view["mean_time_s"], view["seed_average_s"]))


def test_a_gap_in_the_shards_reads_as_incomplete():
    specs = tally_specs()
    con = tiny_warehouse([run(specs[0]), run(specs[2])])
    assert con.execute("SELECT shards, complete FROM narcotic_campaign").fetchone() == (2, False)


def test_the_report_prints_the_seeds_lines_and_the_interval():
    con = tiny_warehouse([run(s) for s in tally_specs()])
    from engines.narcotic.report.queries import CAMPAIGN_SQL
    from engines.report.common import records

    rows = records(con, CAMPAIGN_SQL)
    text = "\n".join(campaign_section(rows))
    r = rows[0]
    assert f"Average estimated completion time is {r['seed_hours']} hours {r['seed_minutes']} minutes" in text
    assert f"{100 * r['wins'] / r['games']:.2f} percent of decks can be completed" in text
    assert "5,000 games" in text and "3 shards, complete" in text
    assert "No campaign" in "\n".join(campaign_section([]))
