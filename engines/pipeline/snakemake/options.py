"""Snakemake's command line: read with Snakemake's own parser, written in one place.

Every question cardlab asks of a snakemake command line (does it run jobs, which config files does
the run read, how many jobs at once, does it give a ``--config`` key, does it run in another
directory) is answered here from the namespace of ``snakemake.cli.get_argument_parser()``, the
parser Snakemake reads its own command line with: every spelling it accepts (``-pn``, ``-nc2``,
``--cores=4``, ``--configfile A B``) is read as Snakemake reads it.  Every option cardlab puts on a
command line is spelt here too.  Only the options on the command line are read: a profile's
settings are Snakemake's to merge, and none of the project's profiles asks for a dry run.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import sys
from argparse import ArgumentParser, Namespace
from collections.abc import Sequence
from pathlib import Path

from ..planning.plan import run_config_files

RUN_EVERYTHING = ("--cores", "all")
"""What ``cardlab run`` gives Snakemake when it is given no option."""

# Snakemake's own spellings of what cardlab puts on a command line (docs of `snakemake --help`)
CONFIGFILE = "--configfile"
CORES = "--cores"
CONFIG = "--config"

# The namespace fields after which Snakemake runs no job: the actions its cli.args_to_api chooses
# before it executes the workflow (a listing, a graph, a report, a clean-up...) and the dry and touch runs.
NO_JOB_ACTIONS = (
    "dryrun", "touch", "lint", "list_target_rules", "list_rules", "print_compilation", "dag", "rulegraph",
    "filegraph", "d3dag", "containerize", "generate_unit_tests", "unlock", "cleanup_metadata",
    "conda_cleanup_envs", "conda_create_envs_only", "list_conda_envs", "cleanup_shadow",
    "container_cleanup_images", "list_changes", "list_input_changes", "list_params_changes", "list_untracked",
    "summary", "detailed_summary", "archive", "delete_all_output", "delete_temp_output", "report",
)  # fmt: skip
NO_JOB_EXECUTORS = ("dryrun", "touch")


def snakemake_executable() -> str:
    """The snakemake beside this Python (the project's environment), else the one on PATH."""
    here = Path(sys.executable).with_name("snakemake")
    return str(here) if here.exists() else "snakemake"


def parsed(args: Sequence[str]) -> Namespace | None:
    """Snakemake's reading of its options (the words after the program's name); None when it would
    not start (``--help``, ``--version``, an unknown option): it says why itself then."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return snakemake_parser().parse_args([str(a) for a in args])
        except (SystemExit, Exception):
            return None


@functools.cache
def snakemake_parser() -> ArgumentParser:
    """Snakemake's own parser of its command line, built once."""
    # Snakemake's cli module loads its plugin registries (~0.7 s CPU): only a command that starts
    # Snakemake, or the Snakefile, where Snakemake has loaded it already, comes here.
    from snakemake.cli import get_argument_parser

    return get_argument_parser()


def runs_jobs(argv: Sequence[str]) -> bool:
    """Whether a snakemake command line (program name first) asks to run jobs: not a dry run, a
    listing, a graph, a report, a clean-up, nor one Snakemake refuses to start."""
    args = parsed(argv[1:])
    if args is None:
        return False
    return not any(getattr(args, action, None) for action in NO_JOB_ACTIONS) and (args.executor not in NO_JOB_EXECUTORS)


def config_files_of(argv: Sequence[str]) -> list[str]:
    """The config files a snakemake command line (program name first) makes a run read, by
    :func:`engines.pipeline.planning.plan.run_config_files`."""
    args = parsed(argv[1:])
    return run_config_files(args.configfile or () if args is not None else ())


def cores_of(argv: Sequence[str]) -> int:
    """The most jobs a snakemake command line runs at once: its ``--cores`` (or ``--jobs``), all of this
    machine's CPUs when it gives none."""
    args = parsed(argv[1:])
    given = None if args is None else args.cores or args.jobs
    return given if given and given < sys.maxsize else os.cpu_count() or 1


def in_another_directory(argv: Sequence[str]) -> bool:
    """Whether a snakemake command line runs the workflow in another directory (``--directory``)."""
    args = parsed(argv[1:])
    return args is not None and args.directory is not None


def config_given(argv: Sequence[str]) -> dict:
    """The ``--config key=value`` entries of a snakemake command line, as Snakemake reads them (YAML values)."""
    from snakemake.cli import parse_config

    args = parsed(argv[1:])
    try:
        return parse_config(args.config) if args is not None and args.config else {}
    except ValueError:  # Snakemake refuses the command line itself, in its own words
        return {}


def config_entry(key: str, value: object) -> str:
    """A ``--config`` entry as Snakemake reads it back: ``True``/``False`` are its spellings of a boolean
    (``true`` stays the string 'true', which a boolean field of the config refuses)."""
    return f"{key}={value}"


def with_config(argv: Sequence[str], entry: str) -> list[str]:
    """A snakemake command line with ``--config entry`` added (first of any ``--config`` given: a later
    word on the command line is Snakemake's to merge over it)."""
    out = list(argv)
    for i, arg in enumerate(out):
        if arg in (CONFIG, "-C"):
            return [*out[: i + 1], entry, *out[i + 1 :]]
    return [*out, CONFIG, entry]
