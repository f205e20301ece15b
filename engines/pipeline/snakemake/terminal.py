"""What Snakemake prints on the terminal, made true for this project's profile.

The profile (profiles/default/config.yaml) hides each job's block (``quiet: rules``), so
a dry run's "(check individual jobs above for details)" points at nothing; and a dry run
prints its "Job stats" table twice (before and after scheduling).  The filter installed
from the Snakefile on Snakemake's logger drops the repeated table and says how to see
the job blocks.  It changes words only, never what runs.
"""

from __future__ import annotations

import logging

HIDDEN_JOBS_HINT = "(check individual jobs above for details)"
SHOW_JOBS_HINT = "(each job's block and reason: add --quiet host to the command)"


class TerminalFilter(logging.Filter):
    """Drops a "Job stats" table identical to one already printed; rewrites the hidden-jobs hint."""

    def __init__(self) -> None:
        super().__init__()
        self.stats_seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if not isinstance(record.msg, str):
            return True
        if record.msg.startswith("Job stats:"):
            if record.msg in self.stats_seen:
                return False
            self.stats_seen.add(record.msg)
        elif HIDDEN_JOBS_HINT in record.msg:
            record.msg = record.msg.replace(HIDDEN_JOBS_HINT, SHOW_JOBS_HINT)
        return True


def install_terminal_filter(logger: logging.Logger) -> None:
    """Add the filter once to Snakemake's logger (the Snakefile may be read more than once)."""
    if not any(isinstance(f, TerminalFilter) for f in logger.filters):
        logger.addFilter(TerminalFilter())
