"""What Snakemake prints on the terminal, made true for this project's profile.

The profile (profiles/default/config.yaml) hides each job's block (``quiet: rules``), so a dry run's
list of reasons points at blocks that are not there, in the one message matched here
(:data:`MATCHED_MESSAGES`); and a dry run logs its job stats twice (before and after scheduling),
each a record of Snakemake's ``RUN_INFO`` event (``snakemake_interface_logger_plugins``) with the
stats it counts.  The filter installed from the Snakefile on Snakemake's logger drops a second
record of the same stats and says how to see the job blocks.  It changes words only, never what runs.
"""

from __future__ import annotations

import logging

from snakemake_interface_logger_plugins.common import LogEvent

HIDDEN_JOBS_HINT = "(check individual jobs above for details)"
SHOW_JOBS_HINT = "(each job's block and reason: add --quiet host to the command)"
MATCHED_MESSAGES = (HIDDEN_JOBS_HINT,)
"""Snakemake's words this module matches: no module outside engines/pipeline/snakemake/ does."""


class TerminalFilter(logging.Filter):
    """Drops job stats identical to ones already logged; rewrites the hidden-jobs hint."""

    def __init__(self) -> None:
        super().__init__()
        self.stats_seen: list = []

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "event", None) == LogEvent.RUN_INFO:
            stats = getattr(record, "stats", None)
            if stats in self.stats_seen:
                return False
            self.stats_seen.append(stats)
        elif isinstance(record.msg, str) and HIDDEN_JOBS_HINT in record.msg:
            record.msg = record.msg.replace(HIDDEN_JOBS_HINT, SHOW_JOBS_HINT)
        return True


def install_terminal_filter(logger: logging.Logger) -> None:
    """Add the filter once to Snakemake's logger (the Snakefile may be read more than once)."""
    if not any(isinstance(f, TerminalFilter) for f in logger.filters):
        logger.addFilter(TerminalFilter())
