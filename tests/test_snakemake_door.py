"""Snakemake behind one door: only engines/pipeline/snakemake/ names its options or matches its words.

An option is any that Snakemake's own parser knows (``snakemake.cli.get_argument_parser()``), found as
a Python string in code outside the door (``"--cores"``, ``"--configfile=a.yaml"``): a command line
built or read by hand.  Prose (a message naming ``snakemake --cores all``) is not a string of the
option alone, and a cardlab command's own option of the same name (``add_argument("--cores")``) is
cardlab's.  The words the door matches in Snakemake's output (engines/pipeline/snakemake/terminal.py)
appear nowhere else in the code or the workflow.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from conftest import env_of
from wfhelp import snakemake

from engines.core.layout import WAREHOUSE, manifest_of
from engines.pipeline.snakemake import options
from engines.pipeline.snakemake.terminal import MATCHED_MESSAGES

ROOT = Path(__file__).resolve().parent.parent
DOOR = ROOT / "engines" / "pipeline" / "snakemake"
EVERY_PARSER = {"-h", "--help", "--version"}  # argparse's own, in every command's parser


def outside_the_door(pattern: str) -> list[Path]:
    files = [*(ROOT / "engines").rglob(pattern), *(ROOT / "workflow").rglob(pattern)]
    return sorted(f for f in files if DOOR not in f.parents)


def snakemake_options() -> set[str]:
    from snakemake.cli import get_argument_parser

    return {o for action in get_argument_parser()._actions for o in action.option_strings} - EVERY_PARSER


def options_named(source: str, known: set[str]) -> list[tuple[int, str]]:
    """(line, string) of each string constant that is a Snakemake option (or ``option=value``), but the
    names a command's own ``add_argument`` declares."""
    tree = ast.parse(source)
    declared = {id(a) for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "add_argument" for a in n.args}  # fmt: skip
    return [
        (n.lineno, n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in declared
        if n.value.partition("=")[0] in known
    ]


def test_the_check_finds_an_option_built_by_hand():
    known = snakemake_options()
    assert {"--cores", "--configfile", "--dry-run", "-n", "--rerun-incomplete"} <= known
    found = options_named('cmd = [exe, "--cores", n, "--configfile=a.yaml"]\nhelp = "run `snakemake -n`"', known)
    assert found == [(1, "--cores"), (1, "--configfile=a.yaml")]
    assert options_named('p.add_argument("--cores", help="snakemake --cores")', known) == []


def test_no_module_outside_the_door_names_a_snakemake_option():
    known = snakemake_options()
    named = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for path in outside_the_door("*.py")
        for line, text in options_named(path.read_text(), known)
    ]
    assert not named, "Snakemake options named outside engines/pipeline/snakemake/ (use its options module):\n" + "\n".join(named)  # fmt: skip


def test_no_file_outside_the_door_matches_snakemake_words():
    assert MATCHED_MESSAGES
    files = [*outside_the_door("*.py"), *outside_the_door("*.smk"), ROOT / "Snakefile"]
    matched = [f"{f.relative_to(ROOT)}: {m!r}" for f in files for m in MATCHED_MESSAGES if m in f.read_text()]
    assert not matched, matched


def test_snakemakes_parser_reads_every_spelling_of_a_command_line(tmp_path):
    run = ["snakemake", "--cores", "3", "--configfile", "a.yaml", "b.yaml", "--config", "xy=1", "allow=True"]
    assert options.runs_jobs(run) and options.cores_of(run) == 3
    assert options.config_files_of(run) == ["a.yaml", "b.yaml"]
    assert options.config_given(run) == {"xy": 1, "allow": True}
    assert options.with_config(["snakemake"], "allow=True") == ["snakemake", "--config", "allow=True"]
    assert not options.runs_jobs(["snakemake", "-pnc2"]) and options.cores_of(["snakemake", "-pnc2"]) == 2
    assert not options.runs_jobs(["snakemake", "--help"])  # Snakemake starts no run: nothing to prepare
    # every action named is one of Snakemake's (a field a new Snakemake renamed would be read as a run)
    assert set(options.NO_JOB_ACTIONS) <= set(vars(options.parsed([])))
    assert options.in_another_directory(["snakemake", "-d", str(tmp_path)])
    assert not options.in_another_directory(run)


def test_files_snakemake_found_in_place_are_recorded_so_its_report_misses_no_metadata(tiny_copy):
    """Files Snakemake did not write (kept campaign files after a clone; here a finished run whose records
    are gone) are recorded by Snakemake once a run succeeds: its report then warns of no file, and a
    dry run after it has nothing to do."""
    wd, env = tiny_copy, env_of(tiny_copy)
    shutil.rmtree(wd / ".snakemake" / "metadata")
    (wd / manifest_of(WAREHOUSE)).unlink()  # the next run has work to do: the warehouse
    snakemake(wd, "--cores", "2", env_extra=env)
    report = snakemake(wd, "--report", "reports/snakemake.html", env_extra=env)
    assert "Missing metadata" not in report.stdout + report.stderr
    dry = snakemake(wd, "-n", env_extra=env)
    assert "Nothing to be done" in dry.stdout + dry.stderr
