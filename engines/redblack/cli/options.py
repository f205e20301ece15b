"""The domains of the RedBlack commands' numbers (engines/core/argtypes.py) and replay's default: light,
shared by the parsers (engines/redblack/cli/__init__.py) and the commands (engines/redblack/cli/commands.py)."""

from __future__ import annotations

from ...core import argtypes
from ..campaign import CARDS_PER_PLAYER

REPLAY_ROUNDS = 4  # rounds shown in full by `replay` before the summary

size = CARDS_PER_PLAYER
max_states = argtypes.integer(1, argtypes.INT64_MAX, " states")  # the basin kernel counts in int64
