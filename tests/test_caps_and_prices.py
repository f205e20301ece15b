"""Caps that cap (a recompute budget, a campaign's long shards), options with a domain at the parser, and a
prices file checked when read (issue 61, part H4)."""

from __future__ import annotations

import argparse
import copy
import math
import os
from types import SimpleNamespace

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from engines.campaign import command
from engines.campaign.book import Campaign
from engines.cli import main
from engines.core import prices
from engines.core.errors import CardlabError
from engines.pipeline.trust import recompute


@pytest.fixture
def prices_file(tmp_path, monkeypatch):
    """Write a prices file in the project's place; the cached prices are read again from it."""
    path = tmp_path / "prices.yaml"
    monkeypatch.setattr(prices, "PRICES", path)
    prices._prices.cache_clear()

    def write(data) -> None:
        path.write_text(yaml.safe_dump(data) if not isinstance(data, str) else data)
        prices._prices.cache_clear()

    yield write
    prices._prices.cache_clear()


GOOD = yaml.safe_load(prices.PRICES.read_text())


def test_the_project_s_prices_file_has_the_schema():
    assert prices.price_problem(GOOD) is None


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        (lambda d: d["kinds"]["narcotic/sim"].update(per_unit="abc"), "kinds.narcotic/sim.per_unit"),
        (lambda d: d["kinds"]["narcotic/sim"].update(per_unit=-1.0), "kinds.narcotic/sim.per_unit"),
        (lambda d: d["kinds"]["narcotic/sim"].update(per_unit=math.inf), "kinds.narcotic/sim.per_unit"),
        (lambda d: d["run"].update(job_start=math.nan), "run.job_start"),
        (lambda d: d["kinds"].update({"narcotic/sim": [1, 2]}), "kinds.narcotic/sim"),
        (lambda d: d.update(kinds=[]), "kinds"),
        (lambda d: d.pop("run"), "'run' is a required property"),
    ],
)
def test_a_prices_file_of_the_wrong_shape_is_one_line_naming_the_file_the_key_and_the_fix(prices_file, damage, named):
    data = copy.deepcopy(GOOD)
    damage(data)
    prices_file(data)
    with pytest.raises(CardlabError) as err:
        prices.kind_price("narcotic/sim", "per_unit")
    text = str(err.value)
    assert "\n" not in text and str(prices.PRICES) in text and named in text, text
    assert "git checkout -- engines/prices.yaml" in text, text


@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=3), st.booleans(), st.none()))
def test_only_a_finite_non_negative_number_is_a_price(value):
    data = {"kinds": {"narcotic/sim": {"per_unit": value}}, "run": {"job_start": 1.0}}
    ok = isinstance(value, float) and math.isfinite(value) and 0 <= value <= prices.MAX_PRICE
    assert (prices.price_problem(data) is None) == ok, (value, prices.price_problem(data))


def test_a_price_the_file_does_not_name_is_one_line(prices_file):
    prices_file({"kinds": {}, "run": {}})
    with pytest.raises(CardlabError, match=r"run\.job_start: no such price"):
        prices.run_price("job_start")


# --- a recompute's budget -------------------------------------------------------------------------------


def target(name: int, estimate_s: float | None) -> recompute.Target:
    spec = {"experiment": "e", "variant": "v", "shard": name}
    why = "" if estimate_s is not None else "computed on a GPU (its CPU time only waited on the device)"
    return recompute.Target("narcotic", spec, "v1", {}, (), estimate_s, why)


@pytest.fixture
def drawn(monkeypatch):
    """choose() over targets given here (shard n is path 'n'), recomputed by nothing: what was run is kept."""
    targets = {"0": target(0, 1.0), "1": target(1, None), "2": target(2, 2.0), "3": target(3, None)}
    ran: list[str] = []
    monkeypatch.setattr(recompute, "target_of", lambda path, plan: targets[path])

    def run_all(chosen, cores, said):
        ran.extend(t.name for t in chosen)
        return [recompute.Outcome(t) for t in chosen]

    monkeypatch.setattr(recompute, "run_all", run_all)
    return ran


def args_of(**given) -> argparse.Namespace:
    base = dict(recompute=["0", "1", "2", "3"], seed=0, cores=1, max_cpu_s=None, no_record=True, results="results")
    return argparse.Namespace(**{**base, **given})


def test_a_shard_no_timing_prices_counts_as_over_any_budget(drawn):
    chosen, over = recompute.choose(None, "results", ["0", "1", "2", "3"], 0, 1e12)
    assert [t.estimate_s for t in chosen] == [1.0, 2.0]
    assert [t.estimate_s for t in over] == [None, None]
    chosen, over = recompute.choose(None, "results", ["0", "1", "2", "3"], 0, None)  # no budget: every one
    assert len(chosen) == 4 and not over


def test_without_a_terminal_the_unpriced_are_left_out_and_named_in_one_line(drawn, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert recompute.cmd_recompute(args_of(max_cpu_s=10.0), None) == 0
    out = capsys.readouterr().out
    assert drawn == ["narcotic e/v/0", "narcotic e/v/2"], drawn
    line = next(ln for ln in out.splitlines() if "cannot be priced" in ln)
    assert "2 shard(s) cannot be priced (computed on a GPU" in line and "--allow-unpriced" in line, line


def test_leave_given_or_said_yes_on_a_terminal_recomputes_the_unpriced(drawn, monkeypatch):
    assert recompute.cmd_recompute(args_of(max_cpu_s=10.0, allow_unpriced=True), None) == 0
    assert len(drawn) == 4
    assert recompute.accept_unpriced([target(1, None)], False, ask=lambda _: "y", interactive=True)
    assert not recompute.accept_unpriced([target(1, None)], False, ask=lambda _: "", interactive=True)
    assert not recompute.accept_unpriced([target(1, None)], False, ask=lambda _: "y", interactive=False)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["verify", "--recompute", "0"], "--recompute: at least 1"),
        (["verify", "--recompute", "3", "--seed", "-1"], "--seed: 0..2^64-1"),
        (["verify", "--recompute", "3", "--seed", str(2**64)], "--seed: 0..2^64-1"),
        (["verify", "--recompute", "3", "--cores", "0"], "--cores: 1..4,096"),
        (["verify", "--recompute", "3", "--max-cpu-s", "0"], "--max-cpu-s: a finite number above 0"),
        (["verify", "--recompute", "3", "--max-cpu-s", "inf"], "--max-cpu-s: a finite number above 0"),
        (["verify", "--config", "no-such.yaml"], "--config: no file no-such.yaml"),
        (["campaign", "narcotic", "6", "--run", "0"], "--run: 1..2^63-1"),
        (["campaign", "narcotic", "6", "--per-shard", "0"], "1..2^63-1 decks, not 0"),
        (["campaign", "narcotic", "6", "--per-shard", str(10**20)], "1..2^63-1 decks"),
        (["campaign", "narcotic", "6", "--nice", "20"], "--nice: 0..19"),
        (["campaign", "redblack", "24", "--cores", "-2"], "--cores: 1..4,096"),
    ],
)
def test_an_option_outside_its_domain_is_argparse_s_one_line_and_exit_2(argv, said, capsys):
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert said in err[-1], err


# --- a campaign run's long shards -----------------------------------------------------------------------

R6 = Campaign("narcotic", "canonical", "x", "r = 6", 4_509_264_634_875, "decks", ("t",), "cmd", "--decks-per-shard")


def test_a_shard_above_the_threshold_or_unpriced_needs_the_flag():
    assert command.long_shards_refusal(R6, {0: 60.0, 1: command.LONG_SHARD_CPU_S}) is None
    long = command.long_shards_refusal(R6, {0: 60.0, 1: 710 * 3600.0})
    assert long and "1 shard of more than 4 core-hours" in long and "about 710 core-hours" in long, long
    assert command.ALLOW_LONG in long and "--decks-per-shard" in long and "\n" not in long
    unpriced = command.long_shards_refusal(R6, {0: 60.0, 3: None})
    assert unpriced and "shard(s) 3 cannot be priced" in unpriced, unpriced


def test_a_grid_wider_than_the_campaign_is_refused_naming_its_size():
    args = SimpleNamespace(per_shard=10**13, config="no-such.yaml")
    with pytest.raises(CardlabError, match=r"--decks-per-shard 10,000,000,000,000: r = 6 has 4,509,264,634,875"):
        command.per_shard_of(None, R6, SimpleNamespace(per_shard=None), args, None)


def test_a_run_prints_its_price_and_starts_nothing_above_the_threshold(monkeypatch, capsys):
    """`cardlab campaign narcotic 6 --run 1 --per-shard <all of it>`: the price first, then a refusal; with
    the flag it starts (the runner is stood in for here)."""
    started = []
    monkeypatch.setattr("engines.campaign.shards.run_shards", lambda *a, **k: (started.append(a), (0, None))[1])
    monkeypatch.setattr("engines.pipeline.bookkeeping.runstate.lock_refusal", lambda *a: None)  # whatever runs here
    whole = str(R6.total)
    assert main(["campaign", "narcotic", "6", "--run", "1", "--per-shard", whole]) == 1
    out, err = capsys.readouterr()
    assert "r = 6: 1 shard (0, 4,509,264,634,875 decks) priced at about" in out and not started, out
    assert "nothing started" in err and command.ALLOW_LONG in err, err
    main(["campaign", "narcotic", "6", "--run", "1", "--per-shard", whole, command.ALLOW_LONG])
    assert len(started) == 1


def _batches_of(config_path: str) -> dict:
    from engines.pipeline.planning.config import read_config
    from engines.pipeline.planning.plan import Plan

    plan = Plan.build(*read_config([config_path]))  # not load_plan: it keeps the plan while the file stands
    return {g: [(b.rule, b.specs) for b in bs] for g, bs in plan.batches.items()}


@pytest.mark.parametrize("factor", [0.01, 0.5, 2.0, 10.0, 1000.0])
def test_a_new_measurement_in_the_prices_file_moves_no_shard_between_jobs(prices_file, factor):
    """Snakemake reruns a shard whose job changes (its params change with it): the plan's jobs must not
    read the prices, whatever they say (issue 61: doubling one price planned three Narcotic jobs)."""
    configs = ["config.yaml"]
    prices_file(GOOD)
    before = [_batches_of(c) for c in configs]
    assert any(before[0].values()), "the default config batches small shards: the test would prove nothing"
    scaled = copy.deepcopy(GOOD)
    for entry in scaled["kinds"].values():
        for name in entry:
            entry[name] *= factor
    prices_file(scaled)
    assert prices.kind_price("narcotic/sim", "per_unit") == pytest.approx(
        GOOD["kinds"]["narcotic/sim"]["per_unit"] * factor
    )
    assert [_batches_of(c) for c in configs] == before


def test_the_next_shards_are_priced_by_the_finished_shards_records_not_the_kinds_estimate():
    """k = 24's kept shards (tracked, with their timing records) measure the campaign at about 10 to 36
    CPU-minutes a shard; priced from the new shards' plan alone, a shard cost the kind's generous per-deal
    estimate (5.9 core-hours here) and every `--run` was refused as too long."""
    from engines.core.layout import timing_of
    from engines.pipeline.bookkeeping.records import timing_of_log
    from engines.pipeline.planning.plan import load_config
    from engines.redblack.campaign.book import BOOK

    args = SimpleNamespace(k=24, method="owner", results="results", run=None, backend=None)
    campaign = BOOK.campaign(args)
    state = BOOK.finished(campaign, "results", timing_of_log)
    done = {s.shard for s in state.shards}
    assert len(done) >= 40, "the kept k = 24 shards are tracked in git"
    # the next shard down that no job has started (a campaign going here writes the records of its own)
    below = next(n for n in range(min(done) - 1, 0, -1) if not os.path.exists(timing_of(campaign.log(n))))
    prices = command.next_prices(BOOK, campaign, state, load_config(["config.yaml"]), [below], 5 * 10**10, None)
    assert prices[below] is not None and 60 <= prices[below] <= 3 * 3600, prices  # a shard of minutes, not hours
    alone = command.shard_prices_of(
        BOOK.run_config(load_config(["config.yaml"]), campaign, [below], 5 * 10**10, None), campaign, [below]
    )
    assert alone[below] > command.LONG_SHARD_CPU_S  # what the plan of the new shard alone said
