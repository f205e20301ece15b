"""The finished shards, config blocks, run configs and lines of Narcotic's campaigns.

A canonical block with ``campaign: true`` (engines/narcotic/kinds/exhaustive.py) plans exactly the
shards its ledger keeps (``results/ledger/narcotic/canonical/<variant>.json``); a tally campaign (an
entry of ``narcotic.campaigns``: engines/narcotic/kinds/tally.py) likewise.  The campaign layer
(engines/campaign/state.py) reads their finished shards; here each shard's counts are checked (a
canonical shard's against its ranks, a tally's sums against its games), and the lines say the decks
or games won so far and the rest's price at the measured rate.
"""

from __future__ import annotations

from collections.abc import Mapping
from copy import deepcopy
from fractions import Fraction
from typing import Any

import pyarrow.parquet as pq

from ...campaign.book import Campaign
from ...campaign.state import CampaignState, Covered, read_state
from ...core.errors import CardlabError
from ...core.fmt import plural
from ...core.layout import RESULTS, ShardPlace, place_path
from ...core.runs import runs_of, runs_text
from ...core.stats import wilson
from ..canonical import orderings_per_deck
from ..kinds.exhaustive import exhaustive_blocks
from ..kinds.tally import campaign_blocks
from ..rules import Rules, experiment_rules

GAME = "narcotic"
TABLE = "narcotic_exhaustive"


def campaign_block(config: Mapping[str, Any] | None, rules: Rules, where: str) -> dict | None:
    """The canonical block of ``narcotic.exhaustive`` that plans these rules (None: the config has none)."""
    section = (config or {}).get("narcotic") or {}
    for block in exhaustive_blocks(section):
        if block["canonical"] and rules.ranks in block["ranks"]:
            if any(r.variant == rules.variant for r in experiment_rules(block, rules.ranks)):
                return block
    return None


def canonical_state(campaign: Campaign, rules: Rules, results: str = RESULTS, timing=None) -> CampaignState:
    """The finished canonical shards of the rules under a results tree, each checked against its ranks
    (``timing``: the pipeline's reader of a job's timing)."""

    def covered(n: int) -> Covered:
        path = place_path(ShardPlace(GAME, TABLE, campaign.experiment, campaign.variant, n), results)
        (row,) = pq.read_table(path).to_pylist()
        if row["sequences"] != (row["range_stop"] - row["range_start"]) * orderings_per_deck(rules.ranks):
            raise CardlabError(f"{path}: {row['sequences']:,} sequences is not r! times its canonical ranks")
        return Covered(row["range_start"], row["range_stop"], row["sequences"], row["won"])

    return read_state(campaign, results, covered, timing)


def describe(rules: Rules, state: CampaignState, book_lines: list[str]) -> list[str]:
    """What the campaign command prints: the decks played and won so far, the CPU and the rest's price,
    then ``book_lines`` (the campaign layer's lines on the config block and the ledger)."""
    decks = state.covered
    done = f" ({runs_text(runs_of(s.shard for s in state.shards))})" if state.shards else ""
    lines = [
        f"narcotic r = {rules.ranks}, rules {rules.matching}/{rules.gather}/{rules.pile_four} ({rules.variant}), "
        f"canonical decks: {decks:,} of {state.total:,} played ({100 * decks / state.total:.2f} %), "
        f"{plural(len(state.shards), 'finished shard')}{done}"
    ]
    if state.shards:
        won = sum(s.won for s in state.shards)
        seqs = sum(s.games for s in state.shards)
        p = Fraction(won, seqs)
        share = "exact" if decks == state.total else "among the decks played so far (not the answer until complete)"
        lines.append(f"  won {won:,} of {seqs:,} sequences: {p.numerator}/{p.denominator} = {float(p):.6f} ({share})")
    rate = state.rate()
    if rate:
        cpu = sum(s.cpu_s or 0 for s in state.shards)
        left = state.total - decks
        price = f"; the {left:,} decks left: about {left / rate / 3600:.2f} core-hours at that rate" if left else ""
        lines.append(f"  CPU {cpu / 60:.1f} min, {rate:,.0f} decks a CPU-second{price}")
    lines += book_lines
    per_shard = state.per_shard
    if per_shard and (left := state.total - decks):
        lines.append(f"  left: {left:,} decks ({100 * left / state.total:.2f} %)")
    return lines


def run_config(config: Mapping[str, Any], rules: Rules, windows: list[tuple[int, int]], per_shard: int) -> dict:
    """The user's config with the exhaustive section planning exactly the run's shards of these rules: every
    canonical block of the rules' deck size that plans them dropped, a window block of them added."""
    out = deepcopy(dict(config))
    section = out.setdefault("narcotic", {})
    raw = section.get("exhaustive") or []
    blocks = [raw] if isinstance(raw, Mapping) else list(raw)
    parsed = exhaustive_blocks({"exhaustive": blocks})
    keep = []
    for original, block in zip(blocks, parsed):
        plans = block["canonical"] and rules.ranks in block["ranks"]
        if not (plans and any(r.variant == rules.variant for r in experiment_rules(block, rules.ranks))):
            keep.append(original)
    keep.append(
        {
            "ranks": [rules.ranks],
            "matching": rules.matching,
            "gather": rules.gather,
            "pile_four": rules.pile_four,
            "canonical": True,
            "decks_per_shard": per_shard,
            "window": [[a, b] for a, b in windows],
        }
    )
    section["exhaustive"] = keep
    return out


# --- tally campaigns: a `campaigns:` entry of seeded games kept as sums (engines/narcotic/kinds/tally.py) ---


def tally_block(config: Mapping[str, Any] | None, name: str, where: str) -> dict | None:
    """The ``narcotic.campaigns`` entry named ``name``, checked (None: the config has none)."""
    section = (config or {}).get("narcotic") or {}
    return next((b for b in campaign_blocks(section) if b["name"] == name), None)


def tally_rules(block: Mapping[str, Any], variant: str | None, where: str) -> Rules:
    """The rule combination of a tally campaign a command names (``variant``: needed when it plays several)."""
    choices = experiment_rules(block)
    if variant is None and len(choices) == 1:
        return choices[0]
    names = ", ".join(r.variant for r in choices)
    if variant is None:
        raise CardlabError(f"{where}: campaign {block['name']!r} plays {len(choices)} rule combinations; "
                           f"name one with --variant ({names})")  # fmt: skip
    for rules in choices:
        if rules.variant == variant:
            return rules
    raise CardlabError(f"{where}: campaign {block['name']!r} does not play --variant {variant}; it plays {names}")


def tally_state(campaign: Campaign, results: str = RESULTS, timing=None) -> CampaignState:
    """The finished shards of a tally campaign's rule combination under a results tree: each has both
    tables (a shard missing one is not finished) and sums that add up (else an error naming the file)."""

    def covered(n: int) -> Covered:
        path = campaign.files(n, results)[0]
        (row,) = pq.read_table(path).to_pylist()
        games = row["range_stop"] - row["range_start"]
        if row["games"] != games or row["wins"] + row["loops"] != games:
            raise CardlabError(
                f"{path}: {row['games']:,} games, {row['wins']:,} won and {row['loops']:,} looped do not add up "
                f"to its range [{row['range_start']:,}, {row['range_stop']:,})"
            )
        return Covered(row["range_start"], row["range_stop"], games, row["wins"])

    return read_state(campaign, results, covered, timing)


def describe_tally(name: str, rules: Rules, state: CampaignState, book_lines: list[str]) -> list[str]:
    """What the campaign command prints for a tally campaign: the games played and won so far (with the
    win rate's 95 % interval), the CPU and the rest's price, then the layer's lines."""
    played, total = state.covered, state.total
    done = f" ({runs_text(runs_of(s.shard for s in state.shards))})" if state.shards else ""
    lines = [
        f"narcotic campaign {name}, rules {rules.matching}/{rules.gather}/{rules.pile_four} ({rules.variant}): "
        f"{played:,} of {total:,} games played ({100 * played / total:.2f} %), "
        f"{plural(len(state.shards), 'finished shard')}{done}"
    ]
    if played:
        won = sum(s.won for s in state.shards)
        lo, hi = wilson(won, played)
        lines.append(
            f"  won {won:,} of {played:,} games: {100 * won / played:.4f} % (95 % interval "
            f"{100 * lo:.4f} – {100 * hi:.4f} %)"
        )
    rate = state.rate()
    if rate:
        cpu = sum(s.cpu_s or 0 for s in state.shards)
        left = max(total - played, 0)
        price = f"; the {left:,} games left: about {left / rate / 3600:.2f} core-hours at that rate" if left else ""
        lines.append(f"  CPU {cpu / 60:.1f} min, {rate:,.0f} games a CPU-second{price}")
    lines += book_lines
    if state.per_shard and (left := total - played) > 0:
        lines.append(f"  left: {left:,} games ({100 * left / total:.2f} %)")
    return lines


def tally_run_config(config: Mapping[str, Any], name: str, rules: Rules, shards: list[int], per_shard: int) -> dict:
    """The user's config with campaign ``name`` planning exactly these shards of one rule combination: its
    entry narrowed to the rules and ``only_shards`` (the seeds follow the name, variant and shard alone)."""
    out = deepcopy(dict(config))
    section = out.setdefault("narcotic", {})
    entries = []
    for entry in section.get("campaigns") or []:
        if entry.get("name") == name:
            entry = {k: v for k, v in entry.items() if k not in ("rules", "campaign", "only_shards", "ranks")}
            entry.update(
                matching=rules.matching, gather=rules.gather, pile_four=rules.pile_four, ranks=rules.ranks,
                games_per_shard=per_shard, only_shards=sorted(shards),
            )  # fmt: skip
        entries.append(entry)
    section["campaigns"] = entries
    return out
