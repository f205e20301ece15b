"""`cardlab redblack campaign K --run N`: the next shards of a campaign, run by the real Snakemake,
and the config's ranks line that keeps them planned."""

from __future__ import annotations

import re

import pytest
import yaml
from wfhelp import cardlab, snakemake, workdir

from engines.core.errors import CardlabError
from engines.core.store import read_table
from engines.pipeline.shard_run import running_line
from engines.redblack import canonical_deals, search_range
from engines.redblack.campaign import CampaignState, FinishedShard
from engines.redblack.campaign_next import (
    campaign_block,
    plan_run,
    run_config,
    shard_runs,
    with_ranks_line,
)

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
      ranks: [[0, 2000]]   # started by hand
      deals_per_shard: {D}
  basins: false
"""


def state(*shards: int, d: int = D) -> CampaignState:
    return CampaignState(
        K, "owner", TOTAL, [FinishedShard(n, n * d, min((n + 1) * d, TOTAL), 1.0, None) for n in shards]
    )


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


def test_the_ranks_line_is_rewritten_alone():
    text = with_ranks_line(CONFIG, K, "owner", [(0, 3000), (20000, TOTAL)])
    assert text is not None
    changed = [(a, b) for a, b in zip(CONFIG.splitlines(), text.splitlines(), strict=True) if a != b]
    assert changed == [("      ranks: [[0, 2000]]   # started by hand", f"      ranks: [[0, 3000], [20000, {TOTAL}]]")]
    assert with_ranks_line(CONFIG, K, "brute", [(0, 3000)]) is None  # no brute block
    assert with_ranks_line(CONFIG, 6, "owner", [(0, 3000)]) is None  # a block without ranks
    assert shard_runs([24, 3, 4, 5, 9]) == "3..5, 9, 24"


def counts_row(wd, shard: int) -> dict:
    path = wd / f"results/redblack/redblack_counts/exhaustive_k{K:02d}/owner/shard={shard:04d}.parquet"
    return read_table(str(path)).to_pylist()[0]


def test_a_run_computes_the_next_shards_and_keeps_them_planned(tmp_path):
    wd = workdir(tmp_path / "wd", CONFIG)
    first = cardlab(wd, "redblack", "campaign", str(K), "--run", "2", "--cores", "2", "--deals-per-shard", str(D))
    assert first.returncode == 0, first.stderr
    assert re.search(r"k = 9: 2 shards \(0\.\.1, 2,000 deals\) on 2 cores", first.stdout)
    assert re.search(r"shard 1 \[1,000, 2,000\) done.*\(\d of 2 after", first.stdout)
    assert "set the k = 9 block of config.yaml to: ranks: [[0, 2000]]" in first.stdout
    assert (wd / "config.yaml").read_text() == CONFIG  # not asked to change it
    # the next three from the top, and the config's ranks line rewritten to plan all five
    top = cardlab(wd, "redblack", "campaign", str(K), "--run", "3", "--from", "top", "--cores", "1", "--update-config")
    assert top.returncode == 0, top.stderr
    # one core: the shards finish in the order they start, which is the run's (config shard_order)
    assert re.findall(r"shard (\d+) \[", top.stdout) == ["24", "23", "22"], top.stdout
    line = f"ranks: [[0, 2000], [22000, {TOTAL}]]"
    assert f"config.yaml: the k = 9 block now plans every finished shard: {line}" in top.stdout
    assert "left: 20,000 deals (82.3 %), shards 2..21 (20 shards)" in top.stdout
    assert (wd / "config.yaml").read_text() == CONFIG.replace("ranks: [[0, 2000]]   # started by hand", line)
    for shard in (0, 1, 22, 23, 24):
        row = counts_row(wd, shard)
        res = search_range(K, shard * D, min((shard + 1) * D, TOTAL), method="owner")
        assert (row["range_start"], row["range_stop"], row["finite"]) == (shard * D, res.deals + shard * D, res.finite)
    kept = [
        f"results/redblack/{t}/exhaustive_k{K:02d}/owner/shard={n:04d}.parquet"
        for n in (0, 1, 22, 23, 24)
        for t in ("redblack_counts", "redblack_found", "redblack_hist")
    ]
    plan = snakemake(wd, "-n", "--cores", "1", *kept)
    assert "Nothing to be done" in plan.stdout + plan.stderr
    assert not list((wd / ".snakemake").glob("cardlab-run-*.yaml"))  # the run config is gone
    assert yaml.safe_load((wd / "config.yaml").read_text())["batch_cpu_s"] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--run", "0"], "at least 1, got 0"),
        (["--run", "1", "--deals-per-shard", "2000"], "grids disagree"),
        (["--run", "1", "--results", "elsewhere"], "drop --results"),
        (["--run", "1", "--cores", "0"], "--cores must be at least 1"),
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
    assert not list((wd / ".snakemake").glob("cardlab-run-*.yaml")) if (wd / ".snakemake").exists() else True


def test_the_running_shards_are_read_from_their_job_logs(tmp_path):
    from engines.core.progress import Progress

    log = tmp_path / "shard=0003.log"
    progress = Progress(1000, "deals", "redblack exhaustive_k09/owner/3", stream=log.open("w"), enabled=True)
    progress.done = 400
    progress.stream.write("starting\n" + progress.line() + "\n")
    progress.stream.close()
    logs = {"2": str(tmp_path / "shard=0002.log"), "3": str(log), "4": str(tmp_path / "none.log")}
    work = {"2": 1000, "3": 1000, "4": 2000}
    line = running_line(["2"], logs, work, elapsed=120.0, eta=223.0)
    # shard 2 finished (1,000), shard 3 at 400, shard 4 not started: 1,400 of 4,000 deals
    assert line == "  running: shard 3 40 %; the run 35.0 % done after 2 min 00 s, ETA about 3 min 43 s"
    assert running_line(["2"], logs, work, 120.0, None).endswith("after 2 min 00 s, ETA not known yet")
    assert running_line(["2"], {"4": logs["4"]}, work, 10.0, 1.0) is None  # nothing reports yet


def test_ctrl_c_keeps_the_finished_shards_and_writes_no_other(tmp_path):
    """Ctrl-C the moment a shard's first table is written, while its job writes the others: the
    shards finished stay, that one leaves no file, the config names exactly the finished ones,
    and no run config is left behind."""
    import signal
    import subprocess
    import sys
    import time

    from wfhelp import env

    wd = workdir(tmp_path / "wd", CONFIG)
    counts = wd / f"results/redblack/redblack_counts/exhaustive_k{K:02d}/owner"
    argv = [sys.executable, "-m", "engines.cli", "redblack", "campaign", str(K), "--run", "3", "--cores", "1"]
    proc = subprocess.Popen(
        [*argv, "--update-config"],
        cwd=wd,
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # a Python started with SIGINT ignored (a test run in the background) would not see Ctrl-C
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    began = time.monotonic()
    while not list(counts.glob("*.parquet")) and proc.poll() is None and time.monotonic() - began < 120:
        time.sleep(0.001)
    proc.send_signal(signal.SIGINT)
    out = proc.communicate(timeout=120)[0]
    assert proc.returncode == 130, out
    kept = re.search(r"interrupted: (\d+) finished shards? kept", out)
    assert kept, out
    shards = {}
    for path in (wd / "results/redblack").rglob("*.parquet"):
        shards.setdefault(path.name, []).append(path.parent.parent.parent.name)
    assert all(sorted(tables) == ["redblack_counts", "redblack_found", "redblack_hist"] for tables in shards.values())
    assert len(shards) == int(kept[1])  # every shard whole or absent
    planned = yaml.safe_load((wd / "config.yaml").read_text())["redblack"]["exhaustive"][1]["ranks"]
    assert sum(b - a for a, b in planned) == D * len(shards) if shards else planned == [[0, 2000]]
    assert len(planned) == 1  # the shards went lowest first: the finished ones extend [0, 2000) without a gap
    assert not list((wd / ".snakemake").glob("cardlab-run-*.yaml"))


def test_status_shows_the_running_campaign_runs_shards(tmp_path):
    """While `campaign --run` goes, `cardlab status` (no --config) shows the run's shards, which
    config.yaml does not plan; with --config config.yaml, the whole config as before; after the
    run, no note is left."""
    import signal
    import subprocess
    import sys
    import time

    from wfhelp import env

    wd = workdir(tmp_path / "wd", CONFIG)
    counts = wd / f"results/redblack/redblack_counts/exhaustive_k{K:02d}/owner"
    argv = [sys.executable, "-m", "engines.cli", "redblack", "campaign", str(K), "--run", "20", "--cores", "1"]
    out = tmp_path / "run.out"  # a file, as a run in the background writes: its lines must not wait in a buffer
    with out.open("w") as stdout:
        proc = subprocess.Popen(
            argv,
            cwd=wd,
            env={k: v for k, v in env().items() if k != "PYTHONUNBUFFERED"},
            stdout=stdout,
            stderr=subprocess.STDOUT,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    try:
        began = time.monotonic()
        while not list(counts.glob("*.parquet")) and proc.poll() is None and time.monotonic() - began < 120:
            time.sleep(0.05)
        during = cardlab(wd, "status")
        whole = cardlab(wd, "status", "--config", "config.yaml")
        while " done, " not in out.read_text() and proc.poll() is None and time.monotonic() - began < 120:
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it was looked at: give it more shards"
        assert re.search(r"shard \d+ \[.*\) done, ", out.read_text())  # written while the run goes
        # with the live view's ETA of the run's shards, the one `cardlab status` shows
        assert re.search(r"\(1 of 20 after [^,]+, ETA (about \d|not known yet)", out.read_text()), out.read_text()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)
    assert during.returncode == 0, during.stderr
    assert "`cardlab redblack campaign 9 --run 20 --cores 1` is running here" in during.stdout
    # the run's 20 shards of 1,000 deals, and nothing of the config's k = 6 block
    # the next shard may have started when status looks ("1/20 shards, 1 running"), or not yet
    shards = r"shards(, \d running)?\)"
    assert re.search(r"redblack +[\d.]+ % of 20,000 deals \(\d+/20 " + shards, during.stdout), during.stdout
    assert "is running here" not in whole.stdout
    assert re.search(r"of 2,462 deals \(\d/3 " + shards, whole.stdout), whole.stdout  # k = 6's 462 + k = 9's 2,000
    assert not list((wd / ".snakemake").glob("cardlab-run-*"))
