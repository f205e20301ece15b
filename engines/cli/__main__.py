"""``python -m engines.cli``: the cardlab command."""

from . import run

run()
