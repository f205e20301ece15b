"""numba kernels of the Narcotic rules (:mod:`.rules`): the entry point and the map of the parts.

Two kernels, with identical results for every deck (tests compare them with each
other and with the plain-Python reference):

* :func:`.replay.play_kernel`: one game card by card on fixed arrays, every earlier
  deck in a hash table.  Slow but obvious; the fast kernel hands it the rare games
  it gives up on.
* the fast kernel (:func:`.lanes.play_many`): two games side by side per thread, a
  loop found by comparing the new deck's fingerprint with the previous RING-1 decks
  (:mod:`.lanes`); a deal-matching pass is a handful of 64-byte vector operations
  written as LLVM IR (:mod:`.deal_pass`), a cascade pass works on pile windows as
  words (:mod:`.cascade`); the IR helpers and small intrinsics they share live in
  :mod:`.ir` and :mod:`.intrinsics`.  The seed and classic rules are compiled apart
  with the rules as constants; the other combinations share one kernel
  (:data:`SPECIALISED`).  What made it fast is in docs/narcotic.md.

Decks are dealt by :mod:`.decks`.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numba
import numpy as np

from ..core.errors import CardlabError
from ..core.provenance import files_version
from .decks import deal_deck, shuffled_decks
from .lanes import play_many, play_many_specialised
from .replay import WON
from .rules import VALUES, Rules

__all__ = ["GAMES_PER_CALL", "SPECIALISED", "deal_deck", "play", "shuffled_decks"]

GAMES_PER_CALL = 50_000  # games per kernel call by the callers: progress between calls, bounded memory


# The rule combinations compiled apart with their rules as constants: the default
# config's million-game experiments.  Every other combination shares one kernel with the
# rules as arguments: the same games/s within the noise (bench/narcotic.py), one compile
# instead of fourteen on a fresh machine (docs/narcotic.md, "Cold start").
SPECIALISED = frozenset(Rules.preset(name) for name in ("seed", "classic"))


def play(decks: np.ndarray, rules: Rules) -> dict[str, np.ndarray]:
    """Play many decks (rows of ``rules.cards`` cards, seed order) with the kernel."""
    decks = np.ascontiguousarray(decks, dtype=np.uint8)
    if decks.ndim != 2 or decks.shape[1] != rules.cards:
        raise CardlabError(f"decks of {rules.ranks} values are rows of {rules.cards} cards, got shape {decks.shape}")
    # the rules' kernel whatever the deck size: a smaller deck is the same code on a shorter row
    kernel = play_many_specialised if replace(rules, ranks=VALUES) in SPECIALISED else play_many
    # Games differ in length a hundredfold: small dynamic chunks keep threads busy.
    with compiling_alone(kernel), numba.parallel_chunksize(1):
        out = kernel(decks, *rules.codes())
    return {
        "won": out[:, 0] == WON,
        "passes": out[:, 1].astype(np.int32),
        "time_s": out[:, 2].copy(),
        "cycle_start": out[:, 3].astype(np.int32),
        "cycle_length": out[:, 4].astype(np.int32),
    }


@contextmanager
def compiling_alone(kernel) -> Iterator[None]:
    """Hold an exclusive lock beside numba's cache while ``kernel`` may compile in this process.

    Shard jobs of one rule start together on a fresh machine; without the lock each
    compiles the same kernel (a minute of CPU).  With it the first compiles and writes
    numba's cache, and the others wait, then load it.  A kernel already compiled here
    takes no lock."""
    if kernel.overloads:
        yield
        return
    folder = Path(numba.config.CACHE_DIR or Path(__file__).with_name("__pycache__"))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = open(folder / "narcotic-compile.lock", "a")  # noqa: SIM115 (held across the yield)
    except OSError:  # a read-only checkout: numba caches elsewhere, and compiling twice is only slower
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        drop_stale_caches(folder)
        yield


# numba checks a cached kernel against the file of its entry point only (lanes.py), not
# the modules it calls: after an edit of any of them the kernel must be compiled again.
KERNEL_MODULES = ("cascade", "deal_pass", "decks", "exact", "intrinsics", "ir", "lanes", "replay", "rules")


def drop_stale_caches(folder: Path) -> None:
    """Remove numba's cached kernels in ``folder`` (the package's ``__pycache__``) when the
    code of a kernel module changed since they were written (a mark file holds its version).
    Under ``NUMBA_CACHE_DIR`` numba keeps them in subfolders this does not check."""
    version = files_version([f"narcotic/{m}.py" for m in KERNEL_MODULES] + ["core/rng.py"])
    mark = folder / "narcotic-kernel.version"
    if mark.exists() and mark.read_text() == version:
        return
    for module in KERNEL_MODULES:
        for cached in (*folder.glob(f"{module}.*.nbi"), *folder.glob(f"{module}.*.nbc")):
            cached.unlink(missing_ok=True)
    mark.write_text(version)
