"""The command line a new user meets: help text and an example for every command, plain text,
a way to make decks for `narcotic play`, titled tables, DuckDB's hints, and `cardlab status`."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from engines.cli import build_parser, main


def parsers(parser, path=("cardlab",)):
    """(command path, parser) for the top level and every subcommand."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parsers(sub, (*path, name))


ALL = list(parsers(build_parser()))


@pytest.mark.parametrize("path,parser", ALL, ids=[" ".join(p) for p, _ in ALL])
def test_every_command_has_help_and_an_example(path, parser):
    text = parser.format_help()
    assert "``" not in text and ":mod:" not in text, "reStructuredText in --help"
    assert "examples:\n  cardlab " in text, f"{' '.join(path)} has no example"
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        assert action.help, f"{' '.join(path)}: {action.option_strings or action.dest} has no help text"


def test_the_parser_loads_no_heavy_module():
    """Start-up is part of every command's time (compare-speed times whole processes):
    building the parser, as ``cardlab --help`` and every command do, imports none of these."""
    heavy = ("numpy", "numba", "duckdb", "pyarrow", "polars", "jsonschema", "yaml")
    code = (
        "import sys; from engines.cli import build_parser; build_parser(); "
        f"print(' '.join(m for m in {heavy!r} if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == []


def test_every_handler_a_parser_names_imports_and_is_a_function():
    """A heavy command's parser names its handler "engines.x.y:function" (engines/cli handler_of imports it
    when the command runs): a misspelt one fails here, not when a user first runs the command."""
    from engines.cli import handler_of

    named = {" ".join(path): p._defaults["func"] for path, p in ALL if isinstance(p._defaults.get("func"), str)}
    assert {"cardlab verify", "cardlab sql", "cardlab blackjack table", "cardlab redblack search"} <= set(named)
    for path, func in named.items():
        assert callable(handler_of(argparse.Namespace(func=func))), f"{path}: {func}"


def test_the_command_flushes_its_output_and_keeps_its_exit_status():
    """``cardlab`` ends with os._exit (no interpreter teardown): what it printed still
    arrives whole, errors keep their status, and a reader that leaves early is no error."""
    cmd = [sys.executable, "-m", "engines.cli", "narcotic", "deal"]
    full = subprocess.run([*cmd, "3000"], capture_output=True, text=True, timeout=300)
    assert full.returncode == 0 and len(full.stdout.splitlines()) == 3000 and full.stdout.endswith("\n")
    bad = subprocess.run([*cmd, "-1"], capture_output=True, text=True, timeout=300)
    assert (
        bad.returncode == 2
        and bad.stderr == "error: cardlab narcotic deal: argument N: 1..1,000,000,000 decks, not -1\n"
    )
    early = subprocess.run(
        ["bash", "-o", "pipefail", "-c", f"{' '.join(cmd)} 200000 | head -1"], capture_output=True, text=True
    )
    assert early.returncode == 0 and len(early.stdout.split()) == 52 and "Traceback" not in early.stderr


def test_narcotic_deal_makes_decks_for_play(capsys):
    from engines.narcotic import shuffled_decks

    assert main(["narcotic", "deal", "3", "--seed", "7"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [list(map(int, ln.split())) for ln in lines] == shuffled_decks(np.uint64(7), 0, 3).tolist()
    assert all(sorted(map(int, ln.split())) == sorted(list(range(1, 14)) * 4) for ln in lines)
    proc = subprocess.run(
        [sys.executable, "-m", "engines.cli", "narcotic", "play"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env={**os.environ},
        timeout=300,
    )
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 3
    with pytest.raises(SystemExit) as refused:
        main(["narcotic", "deal", "-1"])
    assert refused.value.code == 2
    assert capsys.readouterr().err == "error: cardlab narcotic deal: argument N: 1..1,000,000,000 decks, not -1\n"


def test_blackjack_table_names_its_variant(capsys):
    assert main(["blackjack", "table", "--decks", "6", "--soft17", "hit", "--peek", "yes"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "Exact dealer outcomes: 6 decks, dealer hits soft 17, after peeking for a natural"


def test_sql_keeps_duckdbs_hint(tiny_pipeline, capsys):
    db = str(tiny_pipeline / "results/warehouse.duckdb")
    assert main(["sql", "SELECT * FROM narcotic_sumary", "--db", db]) == 1
    err = capsys.readouterr().err
    assert 'Did you mean "narcotic_summary"?' in err and err.count("\n") == 1


def test_status_of_a_finished_and_an_interrupted_campaign(tiny_pipeline, tmp_path, capsys, monkeypatch):
    wd = tmp_path / "wd"
    shutil.copytree(tiny_pipeline, wd, symlinks=True, ignore=shutil.ignore_patterns("engines"))
    monkeypatch.chdir(wd)
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("cardlab campaign finished: ") and "warehouse  current" in out
    # an interrupted shard: its output missing, its record stopped half-way
    shard = next(iter(sorted((wd / "results/narcotic/narcotic_games/seed").rglob("shard=0001.parquet"))))
    shard.unlink()
    record = wd / "results/timings/narcotic/seed" / shard.parent.name / "shard=0001.json"
    reading = {"done": 700, "total": 1500, "unit": "games", "rate": 350.0, "elapsed_s": 2.0}
    record.write_text(json.dumps({"state": "running", "started": 0.0, "threads": 1, "reading": reading}))
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "not running" in out.splitlines()[0]
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("narcotic"))
    assert "1 interrupted" in line and "warehouse  current" not in out
    assert "resume with `snakemake --cores all`" in out and "results/logs/" in out


def test_status_judges_the_reports_as_snakemake_does(tiny_pipeline, tmp_path, capsys, monkeypatch):
    """A rebuilt warehouse alone reruns no report (an ``ancient`` input); a changed list of what a report
    reads does."""
    wd = tmp_path / "wd"
    shutil.copytree(tiny_pipeline, wd, symlinks=True, ignore=shutil.ignore_patterns("engines"))
    monkeypatch.chdir(wd)
    index = (wd / "reports/index.html").stat().st_mtime
    os.utime(wd / "results/warehouse.duckdb", (index + 60, index + 60))  # as `--forcerun warehouse` leaves it
    assert main(["status"]) == 0
    assert "warehouse  current;  reports current" in capsys.readouterr().out
    inputs = next(iter(sorted((wd / "results/logs/reports").glob("*.inputs"))))
    os.utime(inputs, (index + 120, index + 120))
    assert main(["status"]) == 0
    assert "warehouse  current;  reports to be rebuilt" in capsys.readouterr().out


def test_a_bug_reaching_the_top_is_one_line_and_its_own_exit_status(monkeypatch, capsys):
    """Whatever a command raises that is not the user's input (a bug) is one `internal error` line with
    exit 70, never a traceback; CARDLAB_DEBUG=1 (set for the whole suite) lets the traceback through."""
    import engines.blackjack.cli.commands as blackjack_commands
    import engines.cli as cli

    def broken(args):
        raise ZeroDivisionError("Fraction(0, 0)")

    monkeypatch.setattr(blackjack_commands, "cmd_table", broken)  # the parser names it: the call finds this one
    monkeypatch.delenv("CARDLAB_DEBUG")
    assert cli.main(["blackjack", "table"]) == cli.INTERNAL_ERROR
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: internal error (ZeroDivisionError: Fraction(0, 0))"), err
    monkeypatch.setenv("CARDLAB_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        cli.main(["blackjack", "table"])
