"""``python -m engines.redblack.cli ARGS``: ``cardlab redblack ARGS``."""

import sys

from ...cli import main

sys.exit(main(["redblack", *sys.argv[1:]]))
