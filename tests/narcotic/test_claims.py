"""Published claims: each names one of the sixteen rule combinations and a measure the report can read,
and the narcotic_claims view computes cardlab's figure for it from a campaign's tallies exactly as
the campaign's games say."""

from __future__ import annotations

import numpy as np
import pytest
from tiny_warehouse import NARCOTIC, run, tiny_warehouse

from engines.core.stats import wilson
from engines.narcotic.report.claims import READINGS, claims_section, figure
from engines.narcotic.report.queries import CLAIMS_SQL
from engines.narcotic.rules import Rules, all_rules
from engines.report.common import records

Z = 1.959963984540054


def campaign_shards(name: str, rules: Rules, games: int, seed: int) -> list[dict]:
    """A small campaign of these rules: its tally shards, and the same games one row each."""
    block = {"name": name, **rules.spec_fields(), "games": games, "games_per_shard": games // 2, "seed": seed}
    specs = [s for s in NARCOTIC.plan({"campaigns": [block]}) if s["kind"] == "tally"]
    assert len(specs) == 2
    return [run(s) for s in specs], [run({**s, "kind": "sim"})["narcotic_games"] for s in specs]


def played(games: list[dict]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([np.asarray(g[k]) for g in games]) for k in ("won", "passes", "time_s")}


def mean_interval(x: np.ndarray) -> tuple[float, float, float]:
    half = Z * x.std(ddof=1) / np.sqrt(len(x))
    return x.mean(), x.mean() - half, x.mean() + half


def expected(g: dict[str, np.ndarray], measure: str) -> tuple[float, float, float]:
    """A measure's value and 95 % interval, computed from the games one by one."""
    won = g["won"].astype(bool)
    n, k = len(won), int(won.sum())
    if measure == "win_p":
        return (k / n, *wilson(k, n))
    if measure == "loop_share":
        return ((n - k) / n, *wilson(n - k, n))
    if measure == "mean_passes_won":
        return mean_interval(g["passes"][won].astype(float))
    if measure == "mean_passes_all":
        return mean_interval(g["passes"].astype(float))
    return mean_interval(np.where(won, g["time_s"], 0).astype(float))  # the seed's average: loops as 0 s


def test_every_claim_names_an_existing_rule_combination_and_a_measure_the_report_reads():
    claims = records(tiny_warehouse([]), "SELECT * FROM narcotic_claim_texts ORDER BY ord")
    assert claims, "the claims table is empty"
    combos = {(r.matching, r.gather, r.pile_four) for r in all_rules()}
    for c in claims:
        assert (c["matching"], c["gather"], c["pile_four"]) in combos, c["claim"]
        assert c["measure"] in READINGS, c["claim"]
        assert c["quote"] and c["rules_quote"] and c["source"], c["claim"]
        assert c["url"].startswith(("https://", "../shared/seeds/")), c["claim"]
        assert c["half_unit"] > 0 and (c["source_games"] is None or c["source_games"] > 0), c["claim"]
    assert len({c["claim"] for c in claims}) == len(claims)
    # a statement split at a ';' inside a quote would have lost rows or failed: every row is whole
    assert [c["ord"] for c in claims] == list(range(1, len(claims) + 1))


def test_the_claims_view_computes_each_figure_from_the_campaign_of_its_rules():
    wiki = Rules("deal", "bottom-right", "keep")
    tallies, games = campaign_shards("wiki", wiki, 4000, 31)
    seed_tallies, seed_games = campaign_shards("seedcamp", Rules.preset("seed"), 3000, 32)
    con = tiny_warehouse(tallies + seed_tallies)
    rows = records(con, CLAIMS_SQL)
    g, s = played(games), played(seed_games)
    checked = set()
    for r in rows:
        if r["variant"] == wiki.variant:
            assert (r["campaign"], r["games"], r["complete"]) == ("wiki", 4000, True)
            want = expected(g, r["measure"])
            assert (r["value"], r["lo95"], r["hi95"]) == pytest.approx(want, rel=1e-9)
            checked.add(r["measure"])
        elif r["variant"] == Rules.preset("seed").variant:
            assert (r["value"], r["lo95"], r["hi95"]) == pytest.approx(expected(s, r["measure"]), rel=1e-9)
        else:  # no campaign of these rules: no figure, and no verdict
            assert r["value"] is None and r["holds"] is None
        assert (r["seed_campaign"], r["seed_value"]) == ("seedcamp", pytest.approx(expected(s, r["measure"])[0]))
        if r["value"] is not None:
            diff = r["value"] - r["claimed"]
            assert r["difference"] == pytest.approx(diff)
            assert r["within_precision"] == (abs(diff) <= r["half_unit"])
            assert r["holds"] == (r["within_precision"] or r["within_sample"])
    assert {"loop_share", "mean_passes_won", "win_p"} <= checked


def test_a_source_s_own_sample_sets_the_error_its_claim_is_held_to():
    seed_tallies, seed_games = campaign_shards("seedcamp", Rules.preset("seed"), 3000, 32)
    rows = records(tiny_warehouse(seed_tallies), CLAIMS_SQL)
    s = played(seed_games)
    p = s["won"].mean()
    sampled = [r for r in rows if r["measure"] == "win_p" and r["source_games"] and r["value"] is not None]
    assert sampled
    for r in sampled:
        error = Z * np.sqrt(p * (1 - p) / r["source_games"])
        assert r["source_error95"] == pytest.approx(error)
        assert r["within_sample"] == (abs(p - r["claimed"]) <= error)


def test_the_report_section_shows_each_claim_with_its_figure_and_verdict():
    tallies, _ = campaign_shards("wiki", Rules("deal", "bottom-right", "keep"), 4000, 31)
    rows = records(tiny_warehouse(tallies), CLAIMS_SQL)
    text = "\n".join(claims_section(rows))
    assert "## Published claims" in text
    for r in rows:
        assert f"`{r['claim']}`" in text and r["quote"] in text
        if r["value"] is None:
            continue
        assert figure(r["measure"], r["value"]) in text
        assert ("yes" if r["holds"] else "no: off by") in text
    assert "no figure: no campaign of these rules" in text  # the seed's claims: no seed campaign here
    assert "No claims" in "\n".join(claims_section([]))


def test_the_built_report_has_the_claims_table_the_warehouse_computes(tmp_path):
    """End to end: planned shards written and checked, the warehouse built, the report written."""
    from wfhelp import shards_warehouse

    from engines.pipeline.catalog.warehouse import connect
    from engines.report.common import build_game

    section = {
        "experiments": [{"name": "seed", "rules": "seed", "games": 300, "shards": 1, "seed": 4}],
        "campaigns": [
            {"name": "wiki", "matching": "deal", "gather": "bottom-right", "games": 2000, "seed": 5},
            {"name": "seedcamp", "rules": "seed", "games": 1000, "seed": 6},
        ],
    }
    con = connect(shards_warehouse("narcotic", section, tmp_path))
    try:
        build_game("narcotic", con, tmp_path / "reports")
        rows = records(con, CLAIMS_SQL)
    finally:
        con.close()
    md = (tmp_path / "reports/narcotic.md").read_text()
    table = md.split("## Published claims\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in table.splitlines() if line.startswith("| `")]
    assert len(lines) == len(rows)
    for line, r in zip(lines, rows):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[0] == f"`{r['claim']}`"
        if r["campaign"] == "wiki":
            assert cells[5].startswith(f"**{figure(r['measure'], r['value'])}**") and "2,000 games" in cells[5]
        assert cells[6].startswith(f"**{figure(r['measure'], r['seed_value'])}**")
        assert cells[7].startswith("yes" if r["holds"] else "no")
        assert r["url"] in cells[1]
