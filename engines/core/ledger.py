"""A campaign's ledger: which shards of a long search are kept, owned by cardlab, not the user.

A campaign (RedBlack k = 23, say) computes a few shards at a time over many sessions.  Its
progress used to be a ``ranks:`` line in the user's config.yaml, rewritten by the campaign
command; now the user's config says only that a block is a campaign (``campaign: true``) and
the ledger says which of its shards exist: ``results/ledger/<game>/<experiment>/<variant>.json``,
a small file tracked beside the kept shards.  The plan reads it, so a default run plans
exactly the kept shards (and never starts the campaign's remaining work unasked), and a kept
shard that is deleted or damaged is still planned, hence recomputed, not silently dropped.

The file names each kept shard by number on its grid (``per_shard`` items a shard) as sorted,
disjoint inclusive runs ``[[first, last], ...]``, and :class:`Ledger` keeps them as runs: no
shard number is ever listed one by one, so a file that claims ``[[0, 1000000000]]`` costs what
``[[0, 1]]`` does.  :func:`parse_ledger` checks a file against the size's grid
(:class:`LedgerGrid`) before anything counts it: a run beyond the grid, negative, reversed,
overlapping or out of order, or more than ``MAX_RUNS`` runs, or a ledger of another ``per_shard``
than the campaign's (``LedgerGrid.per_shard``: two grids never mix), is a :class:`LedgerError` that
names the file and how to rebuild it.
"""

from __future__ import annotations

import json
import os
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path

from .errors import CardlabError
from .layout import RESULTS, ledger_path
from .runs import Run, merge_runs, runs_of, runs_text, subtract_runs

# The results tree whose ledgers a plan reads: the workflow's own ``results/`` unless a command
# that checks another tree (``cardlab verify --results X``) plans under it.
_ROOT: ContextVar[str] = ContextVar("ledger_root", default=RESULTS)

MAX_RUNS = 100_000
"""The most runs a ledger may hold (a campaign's kept shards as runs: k = 23's 206 shards are one)."""
MAX_BYTES = 4 * 2**20
"""The largest ledger file read: ``MAX_RUNS`` runs of six-digit shard numbers take some 2 MB."""
KEYS = ("game", "experiment", "variant", "per_shard", "shards")


class LedgerError(CardlabError):
    """A campaign ledger that cannot be used: the message names the file, what is wrong and the fix;
    ``problem`` is what is wrong alone."""

    def __init__(self, message: str, problem: str | None = None) -> None:
        super().__init__(message)
        self.problem = problem or message


@contextmanager
def ledger_root(root: str) -> Iterator[None]:
    """Plan against the ledgers of the results tree ``root`` inside the block."""
    token = _ROOT.set(str(root))
    try:
        yield
    finally:
        _ROOT.reset(token)


def current_root() -> str:
    """The results tree whose ledgers the plan being built reads."""
    return _ROOT.get()


@dataclass(frozen=True)
class LedgerGrid:
    """What a ledger's shard numbers are checked against: the ``items`` its grid cuts into shards of
    ``per_shard`` (shards 0 .. ceil(items / per_shard) - 1), the grid's name in messages ("k = 24")
    and the command that rebuilds the ledger from the shard files present."""

    name: str
    items: int
    rebuild: str
    unit: str = "items"
    per_shard: int | None = None  # the campaign's grid where its config says one: a ledger on another is refused
    source: str = "the campaign's config"  # where that grid comes from, for the message

    def size(self, per_shard: int) -> int:
        """The number of shards of ``per_shard`` items on the grid."""
        return -(-self.items // per_shard)

    def says(self, per_shard: int) -> str:
        """'k = 24 has shards 0..322 (of 50,000,000,000 deals)'."""
        return f"{self.name} has shards 0..{self.size(per_shard) - 1} (of {per_shard:,} {self.unit})"


@dataclass(frozen=True)
class Ledger:
    """The kept shards of one campaign (one game, experiment and variant) on a grid of ``per_shard``,
    as sorted disjoint inclusive runs: counted, searched (bisect) and combined without listing them."""

    game: str
    experiment: str
    variant: str
    per_shard: int
    runs: tuple[Run, ...] = ()

    @classmethod
    def of(cls, game: str, experiment: str, variant: str, per_shard: int, numbers: Iterable[int]) -> Ledger:
        """A ledger keeping the given shard numbers."""
        return cls(game, experiment, variant, per_shard, runs_of(numbers))

    @property
    def count(self) -> int:
        """How many shards it keeps."""
        return sum(b - a + 1 for a, b in self.runs)

    def __contains__(self, shard: object) -> bool:
        if not isinstance(shard, int) or isinstance(shard, bool):
            return False
        i = bisect_right(self.runs, (shard, float("inf"))) - 1
        return i >= 0 and self.runs[i][0] <= shard <= self.runs[i][1]

    def __bool__(self) -> bool:
        return bool(self.runs)

    def __iter__(self) -> Iterator[int]:
        """Every kept shard number, in order: only for a ledger checked against its grid (bounded by it)."""
        for a, b in self.runs:
            yield from range(a, b + 1)

    def _with(self, runs: tuple[Run, ...]) -> Ledger:
        return Ledger(self.game, self.experiment, self.variant, self.per_shard, runs)

    @staticmethod
    def _runs(other: Ledger | Iterable[int]) -> tuple[Run, ...]:
        return other.runs if isinstance(other, Ledger) else runs_of(other)

    def union(self, other: Ledger | Iterable[int]) -> Ledger:
        """This ledger's shards and ``other``'s (a ledger or shard numbers)."""
        return self._with(merge_runs(self.runs, self._runs(other)))

    def without(self, other: Ledger | Iterable[int]) -> Ledger:
        """This ledger's shards less ``other``'s (a ledger or shard numbers)."""
        return self._with(subtract_runs(self.runs, self._runs(other)))

    def within(self, grid_size: int) -> Ledger:
        """Its shards of a grid of ``grid_size`` shards (0 .. grid_size - 1)."""
        runs = tuple((max(a, 0), min(b, grid_size - 1)) for a, b in self.runs if b >= 0 and a < grid_size)
        return self._with(runs)

    def text(self) -> str:
        """The kept shards as runs: 12, 190..195."""
        return runs_text(self.runs)

    def record(self) -> dict:
        """The file's form."""
        return {
            "game": self.game,
            "experiment": self.experiment,
            "variant": self.variant,
            "per_shard": self.per_shard,
            "shards": [list(r) for r in self.runs],
        }


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _fix(path: str | os.PathLike, grid: LedgerGrid | None) -> str:
    rebuild = f" or rebuild it from the shard files present ({grid.rebuild})" if grid else ""
    return f"restore it (git checkout -- {path}){rebuild}"


def parse_ledger(path: str | os.PathLike, text: str, grid: LedgerGrid | None) -> Ledger:
    """The ledger a file's text holds, checked against the size's grid; a LedgerError (one line, naming
    the file and the fix) where it is not JSON, not a ledger's shape, or its runs are not sorted,
    disjoint and on the grid.  ``grid`` None: a reader that only asks whether a shard is kept (check
    records) and knows no grid; the runs are checked for everything but the grid's end."""
    fix = _fix(path, grid)

    def bad(problem: str) -> LedgerError:
        return LedgerError(f"{path}: {problem}; {fix}", problem)

    try:
        data = json.loads(text)
    except ValueError as exc:
        where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        msg = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise bad(f"not a campaign ledger: not JSON ({msg}{where})") from None
    if not isinstance(data, dict) or sorted(data) != sorted(KEYS):
        got = f"keys {', '.join(map(str, data))}" if isinstance(data, dict) else f"a JSON {type(data).__name__}"
        raise bad(f"not a campaign ledger: a ledger is an object of the keys {', '.join(KEYS)}, this is {got}")
    for key in ("game", "experiment", "variant"):
        if not isinstance(data[key], str):
            raise bad(f"{key} is {json.dumps(data[key])[:40]}, not a name")
    per_shard = data["per_shard"]
    if not _is_int(per_shard) or per_shard < 1:
        raise bad(f"per_shard is {json.dumps(per_shard)[:40]}, not a whole number of at least 1")
    if grid is not None and grid.per_shard is not None and per_shard != grid.per_shard:
        # two grids never mix: shard n of one is not shard n of the other
        raise bad(
            f"keeps shards of {per_shard:,} {grid.unit}, but {grid.source} has {grid.per_shard:,} {grid.unit} a "
            "shard; a campaign keeps one shard size"
        )
    shards = data["shards"]
    if not isinstance(shards, list):
        raise bad(f"shards is a JSON {type(shards).__name__}, not a list of runs [[first, last], ...]")
    if len(shards) > MAX_RUNS:
        raise bad(f"{len(shards):,} runs of shards, more than a ledger holds ({MAX_RUNS:,})")
    size = grid.size(per_shard) if grid else None
    runs: list[list[int]] = []
    for item in shards:
        shown = json.dumps(item)[:40]
        if not (isinstance(item, list) and len(item) == 2 and all(_is_int(n) for n in item)):
            raise bad(f"the run {shown} is not a pair of shard numbers [first, last] (whole numbers)")
        a, b = item
        if a > b:
            raise bad(f"the run {shown} starts after it ends")
        if a < 0:
            raise bad(f"the run {shown} has a negative shard number")
        if size is not None and b >= size:
            raise bad(f"the run {shown} is beyond the grid: {grid.says(per_shard)}")
        if runs and a <= runs[-1][1]:
            raise bad(
                f"the run {shown} overlaps or comes before the run before it {json.dumps(runs[-1])}; "
                "runs are sorted and disjoint"
            )
        if runs and a == runs[-1][1] + 1:
            runs[-1][1] = b
        else:
            runs.append([a, b])
    return Ledger(data["game"], data["experiment"], data["variant"], per_shard, tuple((a, b) for a, b in runs))


def read_ledger(
    game: str, experiment: str, variant: str, grid: LedgerGrid | None, root: str | None = None
) -> Ledger | None:
    """The campaign's ledger, or None when it has kept nothing yet; a damaged file is a LedgerError
    (``grid`` None: see :func:`parse_ledger`)."""
    path = Path(ledger_path(game, experiment, variant, root or _ROOT.get()))
    fix = _fix(path, grid)
    try:
        if not path.exists():
            return None
        size = path.stat().st_size
        if size > MAX_BYTES:
            problem = f"{size:,} bytes, more than a campaign ledger holds ({MAX_BYTES:,})"
            raise LedgerError(f"{path}: {problem}; {fix}", problem)
        with path.open("rb") as f:
            raw = f.read(MAX_BYTES + 1)
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        problem = "not a campaign ledger (not UTF-8 text)"
        raise LedgerError(f"{path}: {problem}; {fix}", problem) from None
    except OSError as exc:
        problem = f"unreadable ({exc.strerror or exc})"
        raise LedgerError(f"{path}: {problem}; {fix}", problem) from None
    ledger = parse_ledger(path, text, grid)
    if (ledger.game, ledger.experiment, ledger.variant) != (game, experiment, variant):
        problem = f"names {ledger.game}/{ledger.experiment}/{ledger.variant}, not its own place ({game}/{experiment}/{variant})"
        raise LedgerError(f"{path}: {problem}; {fix}", problem)
    return ledger


def kept_shards(game: str, experiment: str, variant: str, per_shard: int, where: str, grid: LedgerGrid) -> Ledger:
    """The shards a campaign block plans: those its ledger keeps (none before its first run); a ledger on
    another grid than the block's is a LedgerError naming both and the fix."""
    ledger = read_ledger(game, experiment, variant, replace(grid, per_shard=per_shard, source=where))
    return Ledger(game, experiment, variant, per_shard) if ledger is None else ledger


def write_ledger(ledger: Ledger, root: str = RESULTS) -> Ledger:
    """Write a campaign's ledger (replacing the file, atomically); returns it."""
    from .store import write_text  # the one atomic writer; pyarrow only when a ledger is written

    path = ledger_path(ledger.game, ledger.experiment, ledger.variant, root)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # a key a line, the runs on one line: a ledger's diff in git reads as the shards it adds
    record = ledger.record()
    write_text(path, "{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in record.items()) + "\n}\n")
    return ledger


def record_kept(
    game: str,
    experiment: str,
    variant: str,
    per_shard: int,
    shards: Iterable[int],
    grid: LedgerGrid,
    root: str = RESULTS,
) -> Ledger:
    """Add finished shards to a campaign's ledger (created on the first); returns the new ledger."""
    old = read_ledger(game, experiment, variant, grid, root)
    if old is not None and old.per_shard != per_shard:
        raise LedgerError(
            f"{ledger_path(game, experiment, variant, root)}: keeps shards of {old.per_shard:,} items, "
            f"not {per_shard:,}; a campaign keeps one shard size"
        )
    new = Ledger.of(game, experiment, variant, per_shard, shards)
    if new.within(grid.size(per_shard)).runs != new.runs:
        raise CardlabError(f"shards {new.text()} are not all on the grid: {grid.says(per_shard)}")
    return write_ledger(new.union(old) if old else new, root)
