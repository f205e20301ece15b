"""`cardlab redblack campaign K --run N`: the next shards of a campaign, run by the real Snakemake and
kept in the campaign's ledger (the user's config is never written); `--keep`; Ctrl-C and `cardlab status`
during a run, synchronised on events (a fake Snakemake that says when it has written what), never on time."""

from __future__ import annotations

import io
import os
import re

import pytest
import yaml
from wfhelp import cardlab, snakemake, workdir

from engines.campaign.state import CampaignState, FinishedShard
from engines.core.errors import CardlabError
from engines.core.ledger import read_ledger
from engines.core.runs import runs_of, runs_text
from engines.core.store import read_table
from engines.redblack import canonical_deals, search_range
from engines.redblack.campaign.next import campaign_block, campaign_of, plan_run, run_config
from engines.redblack.kinds.search import ledger_grid

K, D = 9, 1000
TOTAL = canonical_deals(K)  # 24,310: shards 0..24, the last one 310 deals
# batch_cpu_s 0: shards this small would share jobs, differently under the run's config and the
# kept one (a real campaign's shards, estimated far above the batching limit, never share)
CONFIG = f"""# a campaign of k = {K}
batch_cpu_s: 0
redblack:
  exhaustive:
    - k: [6]
      deals_per_shard: 1000
    - k: [{K}]
      method: owner
      campaign: true   # plans the shards its ledger keeps
      deals_per_shard: {D}
  basins: false
"""


def state(*shards: int, d: int = D) -> CampaignState:
    return CampaignState(campaign_of(K), [FinishedShard(n, n * d, min((n + 1) * d, TOTAL), 1.0) for n in shards])


def config(**block) -> dict:
    return {"redblack": {"exhaustive": [{"k": [K], "method": "owner", **block}]}}


def test_the_next_shards_come_from_either_end_of_the_ranks_left():
    done = state(0, 1, 5, 24)
    assert plan_run(done, {}, 3).shards == [2, 3, 4]
    assert plan_run(done, {}, 3, from_top=True).shards == [23, 22, 21]
    assert plan_run(done, {}, 100).shards == [n for n in range(25) if n not in (0, 1, 5, 24)]
    run = plan_run(done, {}, 4, from_top=True)
    assert run.windows == [(20000, 24000)] and run.deals == 4000
    assert run.ranks(24) == (24000, TOTAL)  # the last shard is cut at the end of the ranks
    assert plan_run(state(*range(25)), {}, 2).shards == []


def test_the_grid_comes_from_the_shards_the_option_or_the_block_and_they_must_agree():
    assert plan_run(state(), config(deals_per_shard=5000), 1).deals_per_shard == 5000
    assert plan_run(state(), {}, 1, deals_per_shard=7000).deals_per_shard == 7000
    with pytest.raises(CardlabError, match="no shard grid yet.*--deals-per-shard"):
        plan_run(state(), {}, 1)
    with pytest.raises(CardlabError, match="grids disagree.*the finished shards: 1,000.*--deals-per-shard: 2,000"):
        plan_run(state(3), {}, 1, deals_per_shard=2000)
    with pytest.raises(CardlabError, match="at least 1, got 0"):
        plan_run(state(3), {}, 0)
    assert plan_run(state(), {}, 1, kept=3000).deals_per_shard == 3000  # the ledger's grid
    with pytest.raises(CardlabError, match="grids disagree.*the campaign's ledger: 3,000"):
        plan_run(state(3), {}, 1, kept=3000)


def test_a_grid_of_more_shards_than_shard_numbers_is_refused_before_it_is_planned():
    """k = 25 in shards of 300 deals would be 2*10^11 shards: a one-line error, not a plan that fills the memory."""
    big = CampaignState(campaign_of(25), [])
    with pytest.raises(CardlabError, match=r"k = 25: 300 deals a shard makes .* shards.*up to 999,999.*give at least"):
        plan_run(big, {}, 1, deals_per_shard=300)
    least = -(-canonical_deals(25) // 1_000_000)
    assert plan_run(big, {}, 2, deals_per_shard=least).shards == [0, 1]


def test_the_run_config_plans_exactly_the_new_windows():
    run = plan_run(state(0, 1), config(ranks=[[0, 2000]], deals_per_shard=D, threads=2), 2)
    block = campaign_block(
        run_config(config(ranks=[[0, 2000]], deals_per_shard=D, threads=2), run, "c"), K, "owner", "c"
    )
    assert block == {"k": [K], "method": "owner", "ranks": [[2000, 4000]], "deals_per_shard": D, "threads": 2}
    added = run_config({"redblack": {"exhaustive": {"k": [3]}}}, plan_run(state(), {}, 1, deals_per_shard=D), "c")
    assert added["redblack"]["exhaustive"][-1] == {
        "k": [K],
        "method": "owner",
        "ranks": [[0, 1000]],
        "deals_per_shard": D,
    }
    with pytest.raises(CardlabError, match="plans other sizes too.*a block of its own"):
        campaign_block({"redblack": {"exhaustive": {"k_min": 1, "k_max": 10}}}, K, "owner", "c")
    # a campaign block plans its ledger's shards; under the run config it plans the run's windows
    campaign = run_config(config(campaign=True, deals_per_shard=D), run, "c")
    assert campaign_block(campaign, K, "owner", "c") == {
        "k": [K],
        "method": "owner",
        "ranks": [[2000, 4000]],
        "deals_per_shard": D,
    }
    assert runs_text(runs_of([24, 3, 4, 5, 9, 4])) == "3..5, 9, 24"


def counts_row(wd, shard: int) -> dict:
    path = wd / f"results/redblack/redblack_counts/exhaustive_k{K:02d}/owner/shard={shard:04d}.parquet"
    return read_table(str(path)).to_pylist()[0]


def kept_shards(wd) -> set[int]:
    ledger = read_ledger("redblack", f"exhaustive_k{K:02d}", "owner", ledger_grid(K), str(wd / "results"))
    return set(ledger) if ledger else set()


def test_a_run_computes_the_next_shards_and_keeps_them_in_the_ledger(tmp_path):
    """End to end, with the real Snakemake: each finished shard goes into the ledger, from which the
    config's campaign block plans it; the config is never written; `--keep` rebuilds a lost ledger."""
    wd = workdir(tmp_path / "wd", CONFIG)
    first = cardlab(wd, "redblack", "campaign", str(K), "--run", "2", "--cores", "2", "--deals-per-shard", str(D))
    assert first.returncode == 0, first.stderr
    assert "k = 9: 2 shards (0..1, 2,000 deals) priced at about < 1 s of CPU" in first.stdout
    assert "on 2 cores" in first.stdout
    assert re.search(r"shard 1 \[1,000, 2,000\) done.*\(\d of 2 after", first.stdout)
    assert kept_shards(wd) == {0, 1}
    assert "config.yaml's k = 9 block is a campaign block (campaign: true)" in first.stdout
    assert "keeps 2 shards (0..1) of 1,000 deals" in first.stdout
    top = cardlab(wd, "redblack", "campaign", str(K), "--run", "3", "--from", "top", "--cores", "1")
    assert top.returncode == 0, top.stderr
    # one core: the shards finish in the order they start, which is the run's (config shard_order)
    assert re.findall(r"shard (\d+) \[", top.stdout) == ["24", "23", "22"], top.stdout
    assert kept_shards(wd) == {0, 1, 22, 23, 24}
    assert "keeps 5 shards (0..1, 22..24) of 1,000 deals" in top.stdout
    assert "left: 20,000 deals (82.3 %), shards 2..21 (20 shards)" in top.stdout
    assert (wd / "config.yaml").read_text() == CONFIG  # never written
    for shard in (0, 1, 22, 23, 24):
        row = counts_row(wd, shard)
        res = search_range(K, shard * D, min((shard + 1) * D, TOTAL), method="owner")
        assert (row["range_start"], row["range_stop"], row["finite"]) == (shard * D, res.deals + shard * D, res.finite)
    kept = [
        f"results/redblack/{t}/exhaustive_k{K:02d}/owner/shard={n:04d}.parquet"
        for n in (0, 1, 22, 23, 24)
        for t in ("redblack_counts", "redblack_found", "redblack_hist")
    ]
    plan = snakemake(wd, "-n", "--cores", "1", *kept)  # the campaign block plans exactly the kept shards
    assert "Nothing to be done" in plan.stdout + plan.stderr
    assert not list((wd / ".snakemake").glob("cardlab-run-*"))  # the run config and its note are gone
    # shards copied in from elsewhere (here: a ledger lost): --keep records every finished one
    (wd / f"results/ledger/redblack/exhaustive_k{K:02d}/owner.json").unlink()
    lost = cardlab(wd, "redblack", "campaign", str(K))
    assert "finished but not in the ledger" not in lost.stdout and "keeps no shard yet" in lost.stdout
    keep = cardlab(wd, "redblack", "campaign", str(K), "--keep")
    assert keep.returncode == 0, keep.stderr
    assert "k = 9: 5 shards newly kept in the ledger" in keep.stdout
    assert kept_shards(wd) == {0, 1, 22, 23, 24}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--run", "0"], "--run: 1..2^63-1 shards, not 0"),
        (["--run", "1", "--deals-per-shard", "2000"], "grids disagree"),
        (["--run", "1", "--results", "elsewhere"], "drop --results"),
        (["--run", "1", "--cores", "0"], "--cores: 1..4,096 cores, not 0"),
        (["--run", "1", "--keep"], "give --run or --keep, not both"),
        (["--run", "1", "--snakemake=--no-such-option"], "snakemake failed"),
    ],
)
def test_bad_runs_are_named_and_change_nothing(tmp_path, args, message):
    wd = workdir(tmp_path / "wd", CONFIG)
    run = cardlab(wd, "redblack", "campaign", str(K), *args)
    assert run.returncode != 0
    assert message in run.stdout + run.stderr
    assert (wd / "config.yaml").read_text() == CONFIG
    assert not list((wd / "results").rglob("*.parquet")) if (wd / "results").exists() else True
    assert not kept_shards(wd)
    assert not list((wd / ".snakemake").glob("cardlab-run-*.yaml")) if (wd / ".snakemake").exists() else True


def test_the_running_shards_are_read_from_their_job_records(tmp_path):
    """The record's latest reading, the model's share of the run (numbers), then its words."""
    from engines.campaign.shards import run_share, running_line
    from engines.core.progress import Progress
    from engines.pipeline.bookkeeping.records import JobRecorder, last_reading

    record = tmp_path / "shard=0003.json"
    job = JobRecorder(record, 1, 0.0)
    assert last_reading(record) is None  # started, no reading yet
    progress = Progress(
        1000, "deals", "redblack exhaustive_k09/owner/3", stream=io.StringIO(), on_reading=job.reading, first_s=0.0
    )
    progress.update(400)
    reading = last_reading(record)
    assert (reading.done, reading.total) == (400, 1000)
    assert last_reading(tmp_path / "none.json") is None
    # shard 2 finished (1,000), shard 3 at 400, shard 4 not started: 1,400 of 4,000 deals
    work = {"2": 1000, "3": 1000, "4": 2000}
    share = run_share(["2"], {"3": 0.4}, work)
    assert share == pytest.approx(0.35)
    line = running_line(share, {"3": 0.4}, elapsed=120.0, eta=223.0)
    assert line == "  running: shard 3 40 %; the run 35.0 % done after 2 min 00 s, ETA about 3 min 43 s"
    assert running_line(share, {"3": 0.4}, 120.0, None).endswith("after 2 min 00 s, ETA not known yet")
    assert running_line(0.25, {}, 10.0, 1.0) is None  # nothing reports yet


# A Snakemake stand-in: it writes the targets it is given as the steps say, then says so (a file: the
# event the test waits on) and waits for SIGINT, on which it exits as Snakemake does (130).
FAKE_SNAKEMAKE = """#!{python}
import os, signal, sys, time
signal.signal(signal.SIGINT, lambda *_: sys.exit(130))
targets = sys.argv[1 : sys.argv.index("--configfile")]
for path in targets[: int(os.environ["FAKE_WRITE"])]:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "wb").close()
open(os.environ["FAKE_READY"], "w").close()
if os.environ.get("FAKE_WAIT"):
    signal.pause()
"""


def fake_run(tmp_path, monkeypatch, write: int, wait: bool):
    """run_shards of 2 shards in a fresh workflow directory, Snakemake replaced by the stand-in."""
    import sys

    from engines.pipeline.snakemake import runner

    wd = workdir(tmp_path / "wd", CONFIG)
    monkeypatch.chdir(wd)
    fake = tmp_path / "snakemake"
    fake.write_text(FAKE_SNAKEMAKE.format(python=sys.executable))
    fake.chmod(0o755)
    monkeypatch.setattr(runner, "snakemake_executable", lambda: str(fake))
    monkeypatch.setenv("FAKE_WRITE", str(write))
    monkeypatch.setenv("FAKE_READY", str(tmp_path / "ready"))
    if wait:
        monkeypatch.setenv("FAKE_WAIT", "1")
    run = plan_run(state(), config(deals_per_shard=D), 2)
    files = {str(n): fs for n, fs in run.files().items()}
    return wd, run, files


def wait_for_file(path, deadline_s: float = 120.0) -> None:
    """Wait for a file the other process writes when it is ready (an event; the deadline only stops a hang)."""
    import time

    end = time.monotonic() + deadline_s
    while not path.exists():
        assert time.monotonic() < end, f"{path} never came"
        time.sleep(0.05)


def test_ctrl_c_keeps_the_finished_shards_and_writes_no_other(tmp_path, monkeypatch):
    """Ctrl-C while shard 1's job has written its first table, shard 0 finished: shard 0 stays (and is kept),
    shard 1's partial table is removed, the run says so, and no run config is left behind.  The moment is
    an event: the stand-in has written exactly 4 files and says so; Ctrl-C comes after that, never on a timer."""
    from engines.campaign.shards import run_shards

    wd, run, files = fake_run(tmp_path, monkeypatch, write=4, wait=True)
    said, kept = [], []

    def keep(name: str) -> None:
        kept.append(name)
        wait_for_file(tmp_path / "ready")  # shard 1's first table is written too
        raise KeyboardInterrupt  # what the terminal's Ctrl-C raises in the main thread

    rc, done = run_shards(files, run_config({}, run, "c"), 1, wd / "run.log", say=said.append, kept=keep)
    assert (rc, done, kept) == (130, ["0"], ["0"])
    assert all(os.path.isfile(f) for f in files["0"])
    assert not any(os.path.exists(f) for f in files["1"])
    assert said == [
        "  shard 1: stopped while writing its tables; removed 1 partial file",
        "interrupted: 1 finished shard kept, the others not written",
    ]
    assert not list((wd / ".snakemake").glob("cardlab-run-*"))


def test_a_run_says_each_shard_as_it_finishes(tmp_path, monkeypatch):
    """Every shard written: a line each, in order, with the count and the live view's ETA; each kept."""
    from engines.campaign.shards import run_shards

    wd, run, files = fake_run(tmp_path, monkeypatch, write=6, wait=False)
    said, kept = [], []
    rc, done = run_shards(files, run_config({}, run, "c"), 1, wd / "run.log", say=said.append, kept=kept.append)
    assert (rc, sorted(done), sorted(kept)) == (0, ["0", "1"], ["0", "1"])
    assert [re.sub(r"after \d+ s", "after N s", line.split(",")[0]) for line in said] == [
        f"  {done[0]} (1 of 2 after N s",
        f"  {done[1]} (2 of 2 after N s)",
    ]
    assert "ETA" in said[0] and "ETA" not in said[1]


def test_status_shows_the_running_campaign_runs_shards(tmp_path, monkeypatch, capsys):
    """While `campaign --run` goes (its note names a live process, its run config and shards),
    `cardlab status` (no --config) shows the run's shards, which config.yaml does not plan; with
    --config config.yaml, the whole config; once the note is gone, the config again.  The run's
    state is written as the run writes it: nothing to wait for."""
    from engines.cli import main
    from engines.pipeline.bookkeeping.runstate import RunNote, write_run_note

    wd = workdir(tmp_path / "wd", CONFIG)
    monkeypatch.chdir(wd)
    run = plan_run(state(), config(deals_per_shard=D), 20)
    (wd / ".snakemake").mkdir()
    cfg = wd / ".snakemake/cardlab-run-test.yaml"
    cfg.write_text(yaml.safe_dump(run_config(yaml.safe_load(CONFIG), run, "c")))
    targets = frozenset(f for fs in run.files().values() for f in fs)
    command = f"cardlab redblack campaign {K} --run 20 --cores 1"
    write_run_note(str(wd / ".snakemake/cardlab-run-test.json"), RunNote(command, str(cfg), targets))
    assert main(["status"]) == 0
    during = capsys.readouterr().out
    assert f"`{command}` is running here" in during
    assert "redblack     0.0 % of 20,000 deals (0/20 shards)" in during  # the run's 20 shards, not k = 6
    assert main(["status", "--config", "config.yaml"]) == 0
    whole = capsys.readouterr().out
    assert "is running here" not in whole
    assert "of 462 deals (0/1 shard)" in whole  # k = 6's 462; the campaign block's ledger keeps nothing yet
    (wd / ".snakemake/cardlab-run-test.json").unlink()
    assert main(["status"]) == 0
    assert "is running here" not in capsys.readouterr().out
