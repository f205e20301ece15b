"""Every command option's domain, declared once at the parser.

An argparse ``type=`` from here turns a value outside its domain into argparse's one-line usage
error (exit 2) that says what is allowed, in the value's own terms: ``--seed: 0..2^64-1, not -1``.
Light on purpose: command-line start-up imports it (no numpy)."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable

SEED_MAX = 2**64 - 1  # seeds feed splitmix64 streams (engines/core/rng.py): one unsigned 64-bit word
INT64_MAX = 2**63 - 1  # what a warehouse BIGINT column holds
TEN_YEARS_S = 10 * 31_557_600  # seconds: beyond any job or budget, and still a bound (no infinity)


def bound_words(lo: float | None, hi: float | None) -> str:
    """``1..8``, ``at least 1``, ``at most 10``: a domain as a message says it."""
    if lo is not None and hi is not None:
        return f"{words(lo)}..{words(hi)}"
    if lo is not None:
        return f"at least {words(lo)}"
    return f"at most {words(hi)}" if hi is not None else "any number"


def words(n: float) -> str:
    """A bound in the value's own terms: 2^64-1 rather than twenty digits, 1,000,000 with separators."""
    if n == SEED_MAX:
        return "2^64-1"
    if n == INT64_MAX:
        return "2^63-1"
    return f"{n:,}" if isinstance(n, int) else f"{n:g}"


def integer(lo: int | None = None, hi: int | None = None, what: str = "") -> Callable[[str], int]:
    """An integer in [lo, hi] (either end open when None). ``what`` names the unit in the message."""

    def parse(text: str) -> int:
        try:
            value = int(text.replace("_", ""), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a whole number {bound_words(lo, hi)}{what}, not {text!r}") from None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise argparse.ArgumentTypeError(f"{bound_words(lo, hi)}{what}, not {text}")
        return value

    parse.__name__ = "integer"  # argparse names the type in its messages
    parse.domain = (lo, hi)  # what a test reads to check every number option is bounded, and fuzz its edges
    return parse


def real(lo: float | None = None, hi: float | None = None, what: str = "", open_lo: bool = False):
    """A finite number in [lo, hi] ((lo, hi] with ``open_lo``): NaN and infinities are refused."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a number {bound_words(lo, hi)}{what}, not {text!r}") from None
        low_out = lo is not None and (value <= lo if open_lo else value < lo)
        if not math.isfinite(value) or low_out or (hi is not None and value > hi):
            above = bound_words(lo, hi)
            if open_lo and lo is not None:  # "0..10" would say 0 is allowed
                above = f"above {words(lo)}" + ("" if hi is None else f", at most {words(hi)}")
            raise argparse.ArgumentTypeError(f"a finite number {above}{what}, not {text}")
        return value

    parse.__name__ = "number"
    parse.domain = (lo, hi)
    return parse


seed = integer(0, SEED_MAX)
cores = integer(1, 4096, " cores")
niceness = integer(0, 19)  # only lower priority: raising it needs root


def cores_or_all(text: str) -> str:
    """Snakemake's ``--cores``: ``all`` or a count of cores (kept as text: it is passed on as given)."""
    if text == "all":
        return text
    try:
        return str(cores(text))
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"all or {exc}") from None


cores_or_all.domain = cores.domain


def existing_file(text: str) -> str:
    """A path to a readable file (not a folder)."""
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a file")
    if not os.path.isfile(text):
        raise argparse.ArgumentTypeError(f"no file {text}")
    return text


def folder(text: str) -> str:
    """A path that is a folder or does not exist yet (it will be made), never a file."""
    if os.path.exists(text) and not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text} is a file, not a folder")
    return text


def file_path(text: str) -> str:
    """A path that is a file or does not exist yet (the command says what a missing one means), never a folder."""
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a file")
    return text
