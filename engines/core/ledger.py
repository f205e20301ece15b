"""A campaign's ledger: which shards of a long search are kept, owned by cardlab, not the user.

A campaign (RedBlack k = 23, say) computes a few shards at a time over many sessions.  Its
progress used to be a ``ranks:`` line in the user's config.yaml, rewritten by the campaign
command; now the user's config says only that a block is a campaign (``campaign: true``) and
the ledger says which of its shards exist: ``results/ledger/<game>/<experiment>/<variant>.json``,
a small file tracked beside the kept shards.  The plan reads it, so a default run plans
exactly the kept shards (and never starts the campaign's remaining work unasked), and a kept
shard that is deleted or damaged is still planned, hence recomputed, not silently dropped.

The file names each kept shard by number on its grid (``per_shard`` items a shard): a ledger
written for another grid is refused rather than misread.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from .errors import CardlabError
from .layout import RESULTS, ledger_path

# The results tree whose ledgers a plan reads: the workflow's own ``results/`` unless a command
# that checks another tree (``cardlab verify --results X``) plans under it.
_ROOT: ContextVar[str] = ContextVar("ledger_root", default=RESULTS)


@contextmanager
def ledger_root(root: str) -> Iterator[None]:
    """Plan against the ledgers of the results tree ``root`` inside the block."""
    token = _ROOT.set(str(root))
    try:
        yield
    finally:
        _ROOT.reset(token)


@dataclass(frozen=True)
class Ledger:
    """The kept shards of one campaign (one game, experiment and variant) on a grid of ``per_shard``."""

    game: str
    experiment: str
    variant: str
    per_shard: int
    shards: frozenset[int]

    def runs(self) -> list[list[int]]:
        """The kept shard numbers as inclusive runs [[first, last], ...], the file's form."""
        out: list[list[int]] = []
        for n in sorted(self.shards):
            if out and out[-1][1] == n - 1:
                out[-1][1] = n
            else:
                out.append([n, n])
        return out


def read_ledger(game: str, experiment: str, variant: str, root: str | None = None) -> Ledger | None:
    """The campaign's ledger, or None when it has kept nothing yet; a damaged file is a CardlabError."""
    path = Path(ledger_path(game, experiment, variant, root or _ROOT.get()))
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
        shards = frozenset(n for a, b in data["shards"] for n in range(int(a), int(b) + 1))
        ledger = Ledger(data["game"], data["experiment"], data["variant"], int(data["per_shard"]), shards)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CardlabError(
            f"{path}: not a readable campaign ledger ({exc}); restore it (git checkout -- {path}) or "
            "rebuild it from the kept shards (cardlab redblack campaign K --keep)"
        ) from None
    if (ledger.game, ledger.experiment, ledger.variant) != (game, experiment, variant):
        raise CardlabError(f"{path}: names {ledger.game}/{ledger.experiment}/{ledger.variant}, not its own place")
    return ledger


def kept_shards(game: str, experiment: str, variant: str, per_shard: int, where: str) -> frozenset[int]:
    """The shard numbers a campaign block plans: those its ledger keeps (none before its first run)."""
    ledger = read_ledger(game, experiment, variant)
    if ledger is None:
        return frozenset()
    if ledger.per_shard != per_shard:
        raise CardlabError(
            f"{where}: the campaign's ledger ({ledger_path(game, experiment, variant, _ROOT.get())}) keeps shards of "
            f"{ledger.per_shard:,} items, the config asks for {per_shard:,}; a campaign keeps one shard size"
        )
    return ledger.shards


def record_kept(
    game: str, experiment: str, variant: str, per_shard: int, shards: Iterable[int], root: str = RESULTS
) -> Ledger:
    """Add finished shards to a campaign's ledger (created on the first); returns the new ledger."""
    from .store import write_text  # the one atomic writer; pyarrow only when a ledger is written

    old = read_ledger(game, experiment, variant, root)
    if old is not None and old.per_shard != per_shard:
        raise CardlabError(
            f"{ledger_path(game, experiment, variant, root)}: keeps shards of {old.per_shard:,} items, "
            f"not {per_shard:,}; a campaign keeps one shard size"
        )
    kept = frozenset(int(n) for n in shards) | (old.shards if old else frozenset())
    ledger = Ledger(game, experiment, variant, per_shard, kept)
    record = {
        "game": game,
        "experiment": experiment,
        "variant": variant,
        "per_shard": per_shard,
        "shards": ledger.runs(),
    }
    path = ledger_path(game, experiment, variant, root)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # a key a line, the runs on one line: a ledger's diff in git reads as the shards it adds
    write_text(path, "{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in record.items()) + "\n}\n")
    return ledger
