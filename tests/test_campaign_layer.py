"""One campaign layer for every game (engines/campaign/): RedBlack's size campaigns and Narcotic's
canonical enumerations and tally campaigns run, resume, keep and rebuild their ledgers through
`cardlab campaign GAME NAME`,
of which each game's own `campaign` command is an alias."""

from __future__ import annotations

import json

import pytest
from test_layers import imports_of, modules
from wfhelp import cardlab, digests, snakemake, workdir

from engines.campaign.book import Campaign, agreed_per_shard
from engines.campaign.state import CampaignState, FinishedShard
from engines.core.errors import CardlabError
from engines.narcotic.canonical import canonical_count

R, D = 3, 2000  # r = 3: 5,775 canonical decks, shards 0..2 of 2,000
LEDGER = "results/ledger/narcotic/canonical/deal.top-right.keep.r3.json"
CONFIG = f"""# a canonical campaign of r = {R}
batch_cpu_s: 0
narcotic:
  exhaustive:
    - ranks: [{R}]
      rules: seed
      canonical: true
      campaign: true
      decks_per_shard: {D}
"""

CAMPAIGN = Campaign("g", "e", "v", "n = 1", 10_500, "items", ("t",), "cardlab campaign g 1", "--per-shard")


def finished(*numbers: int, d: int = 1000) -> CampaignState:
    return CampaignState(CAMPAIGN, [FinishedShard(n, *CAMPAIGN.window(n, d)) for n in numbers])


def test_the_shards_left_and_the_next_ones_come_as_runs_from_either_end():
    done = finished(0, 1, 5, 10)
    assert done.per_shard == 1000 and done.shards_left() == [(2, 4), (6, 9)]
    assert done.windows == [(0, 2000), (5000, 6000), (10_000, 10_500)]
    assert done.gaps == [(2000, 5000), (6000, 10_000)]
    assert done.next_shards(1000, 4, from_top=False) == [2, 3, 4, 6]
    assert done.next_shards(1000, 4, from_top=True) == [9, 8, 7, 6]
    assert finished(*range(11)).next_shards(1000, 2, from_top=False) == []
    assert finished().shards_left(1000) == [(0, 10)] and finished().shards_left() == []
    assert CAMPAIGN.windows([2, 3, 4, 10], 1000) == [(2000, 5000), (10_000, 10_500)]


def test_the_grid_is_the_one_every_source_agrees_on():
    assert agreed_per_shard(CAMPAIGN, {"the block": 1000, "the ledger": None}) == 1000
    with pytest.raises(CardlabError, match="n = 1: no shard grid yet.*give --per-shard"):
        agreed_per_shard(CAMPAIGN, {"the block": None})
    with pytest.raises(CardlabError, match="grids disagree.*the block: 1,000; the ledger: 2,000"):
        agreed_per_shard(CAMPAIGN, {"the block": 1000, "the ledger": 2000})


def test_game_commands_reach_ledgers_only_through_the_campaign_layer():
    """The ledger module is read by the plan's kinds (a campaign block plans its ledger's shards), the
    check records and the campaign layer; no command line of a game touches it."""
    for module in modules():
        if ".cli" in module and not module.startswith("engines.campaign"):
            assert "engines.core.ledger" not in {t for t, _ in imports_of(module)}, module


def test_the_game_command_is_the_layer_s(tmp_path):
    """`cardlab redblack campaign K` and `cardlab campaign redblack K` print the same lines."""
    wd = workdir(tmp_path / "wd", None)
    (wd / "results").symlink_to(__import__("pathlib").Path(__file__).resolve().parents[1] / "results")
    own, layer = cardlab(wd, "redblack", "campaign", "16"), cardlab(wd, "campaign", "redblack", "16")
    assert own.returncode == layer.returncode == 0, own.stderr + layer.stderr
    assert own.stdout == layer.stdout and "complete: every rank of k = 16 is searched" in own.stdout


def test_a_narcotic_campaign_runs_resumes_and_rebuilds_its_ledger(tmp_path):
    assert canonical_count(R) == 5775
    wd = workdir(tmp_path / "wd", CONFIG)
    first = cardlab(wd, "campaign", "narcotic", str(R), "--run", "1", "--cores", "1")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "r = 3: 1 shard (0, 2,000 decks) priced at about < 1 s of CPU on 1 core" in first.stdout
    assert "keeps 1 shard (0) of 2,000 decks" in first.stdout
    top = cardlab(wd, "narcotic", "campaign", str(R), "--run", "1", "--from", "top", "--cores", "1")
    assert top.returncode == 0, top.stdout + top.stderr
    assert "shard 2 [4,000, 5,775) done" in top.stdout and "keeps 2 shards (0, 2)" in top.stdout
    assert json.loads((wd / LEDGER).read_text())["shards"] == [[0, 0], [2, 2]]
    (wd / LEDGER).write_text("{not json")
    broken = cardlab(wd, "campaign", "narcotic", str(R))
    assert broken.returncode != 0 and "cardlab narcotic campaign 3" in broken.stderr and "--keep" in broken.stderr
    keep = cardlab(wd, "campaign", "narcotic", str(R), "--keep")
    assert keep.returncode == 0, keep.stdout + keep.stderr
    assert "rebuilt from the finished shards" in keep.stdout and "keeps 2 shards (0, 2)" in keep.stdout
    assert json.loads((wd / LEDGER).read_text())["shards"] == [[0, 0], [2, 2]]


TALLY = """# a tally campaign of 900 seeded games
batch_cpu_s: 0
narcotic:
  campaigns:
    - name: tc
      rules: seed
      games: 900
      games_per_shard: 300
      seed: 3
{extra}"""
TALLY_LEDGER = "results/ledger/narcotic/tc/deal.top-right.keep.json"


def test_a_tally_campaign_runs_resumes_and_equals_a_plain_run(tmp_path):
    """A campaign entry (campaign: true) plans only its ledger's shards; the campaign command runs the
    next ones and keeps them, and the shards are byte for byte those a plain entry computes at once."""
    wd = workdir(tmp_path / "wd", TALLY.format(extra="      campaign: true\n"))
    dry = snakemake(wd, "-n", "--cores", "1")
    assert "narcotic_tally" not in dry.stdout  # the ledger keeps nothing yet: nothing planned
    first = cardlab(wd, "campaign", "narcotic", "tc", "--run", "2", "--cores", "1")
    assert first.returncode == 0, first.stdout + first.stderr
    assert (
        "tc: 2 shards (0..1, 600 games) priced at about < 1 s of CPU (the longest shard < 1 s of CPU) on 1 core"
        in first.stdout
    )
    assert "600 of 900 games played" in first.stdout and "keeps 2 shards (0..1) of 300 games" in first.stdout
    rest = cardlab(wd, "narcotic", "campaign", "tc", "--run", "5", "--cores", "1")
    assert rest.returncode == 0, rest.stdout + rest.stderr
    assert "shard 2 [600, 900) done" in rest.stdout and "900 of 900 games played" in rest.stdout
    assert json.loads((wd / TALLY_LEDGER).read_text())["shards"] == [[0, 2]]
    plain = workdir(tmp_path / "plain", TALLY.format(extra=""))
    snakemake(plain, "--cores", "1", "warehouse")
    tallies = {k: v for k, v in digests(plain).items() if "/narcotic_tall" in k}
    assert len(tallies) == 6 and {k: digests(wd)[k] for k in tallies} == tallies
    (wd / TALLY_LEDGER).write_text('{"shards": [[0, 7]]}')
    broken = cardlab(wd, "campaign", "narcotic", "tc")
    assert (
        broken.returncode != 0 and "cardlab campaign narcotic tc --variant deal.top-right.keep --keep" in broken.stderr
    )
    keep = cardlab(wd, "campaign", "narcotic", "tc", "--keep")
    assert keep.returncode == 0 and "keeps 3 shards (0..2)" in keep.stdout, keep.stdout + keep.stderr


def test_a_tally_campaign_is_named_by_its_entry_and_rules(tmp_path):
    wd = workdir(tmp_path / "wd", TALLY.format(extra="").replace("rules: seed", "rules: all"))
    several = cardlab(wd, "campaign", "narcotic", "tc")
    assert several.returncode == 1 and "plays 16 rule combinations; name one with --variant" in several.stderr
    one = cardlab(wd, "campaign", "narcotic", "tc", "--variant", "cascade.top-left.discard")
    assert one.returncode == 0 and "0 of 900 games played" in one.stdout, one.stdout + one.stderr
    unknown = cardlab(wd, "campaign", "narcotic", "other")
    assert unknown.returncode == 1 and "no narcotic campaign named 'other'; its campaigns: tc" in unknown.stderr
