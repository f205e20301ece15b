"""The cardlab command: query the warehouse, play and search games, build and check results.

Each game adds its own subcommands from ``engines/<game>/cli/`` (``register(subparsers)``); the
warehouse's commands run in :mod:`engines.cli.warehouse`.  Help texts are plain text (no
reStructuredText).  Every failure the user can cause ends with one line ``error: <reason>`` on
stderr and a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence

from ..core import argtypes
from ..core.errors import CardlabError, one_line
from ..core.layout import WAREHOUSE, default_db
from ..interface import source_version
from ..registry import GAMES, engine


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports bad arguments as one line and exits with status 2."""

    def error(self, message: str):  # noqa: D401 (argparse API)
        # one line whatever the value quoted in it holds (a path or number with a line break in it)
        self.exit(2, f"error: {self.prog}: {one_line(message)}\n")


def version_text() -> str:
    import importlib.metadata  # only for --version: the parser never needs it

    engines = ", ".join(f"{g} {source_version(engine(g))}" for g in GAMES)
    return f"cardlab {importlib.metadata.version('cardlab')} (engines: {engines})"


class VersionAction(argparse.Action):
    """``--version``, computed only when asked (it hashes every engine's source)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit(0)


EXAMPLES = {
    None: """examples:
  cardlab status                     where the campaign in this directory stands
  cardlab sql "SELECT * FROM narcotic_summary"
  cardlab narcotic deal 5 | cardlab narcotic play
  cardlab redblack replay 10 110
  cardlab blackjack table --decks 6 --soft17 hit --peek yes
  cardlab verify
`cardlab COMMAND --help` shows each command's options and examples.""",
    "sql": """examples:
  cardlab sql "SELECT * FROM narcotic_summary"
  cardlab sql "SELECT k, count(*) FROM redblack_infinite GROUP BY k ORDER BY k" --csv
  cardlab sql "SHOW TABLES\"""",
    "warehouse": """examples:
  cardlab warehouse results/narcotic/narcotic_games/seed/*/*.parquet --out /tmp/seed.duckdb
  cardlab warehouse --from-file shards.txt --out /tmp/w.duckdb""",
    "report": """examples:
  cardlab report                                  every game's report from results/warehouse.duckdb
  cardlab report --game blackjack --outdir /tmp/reports""",
    "verify": """examples:
  cardlab verify
  cardlab verify --results /shared/campaign/results --config campaign.yaml""",
}


OWN_COMMANDS = ("sql", "warehouse", "report")  # the commands build_parser adds itself

# the commands registered by modules (each module's `register`), by name
COMMAND_MODULES = (
    {game: f"engines.{game}.cli" for game in GAMES}
    | {
        command: f"engines.pipeline.{module}"
        for module, commands in (
            ("trust.parsers", ["verify", "clean"]),
            ("commands.recompute", ["recompute"]),
            ("commands.view", ["status"]),
            ("commands.run", ["run"]),
        )
        for command in commands
    }
    | {"campaign": "engines.campaign.cli"}
)


def build_parser(command: str | None = None) -> ArgumentParser:
    """The whole command line, or when `command` is one that a module registers, only that command's part."""
    raw = argparse.RawDescriptionHelpFormatter
    p = ArgumentParser(prog="cardlab", description=__doc__.splitlines()[0], epilog=EXAMPLES[None], formatter_class=raw)
    p.add_argument(
        "--version",
        action=VersionAction,
        help="package version and each engine's version hash (as recorded in provenance)",
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=ArgumentParser)

    s = sub.add_parser(
        "sql",
        help="run one SQL query on the warehouse (read-only)",
        description="Runs one SQL query on the warehouse, opened read-only, and prints an aligned table "
        "(or CSV). Tables and views: docs/warehouse.md.",
        epilog=EXAMPLES["sql"],
        formatter_class=raw,
    )
    s.add_argument("query", help='e.g. "SELECT * FROM narcotic_summary"; several statements print one table each')
    s.add_argument("--csv", action="store_true", help="CSV output for machines")
    s.add_argument(
        "--db",
        type=argtypes.file_path,
        default=default_db(),
        help="warehouse file (default: $CARDLAB_DB, else %(default)s)",
    )
    s.set_defaults(func="engines.cli.warehouse:cmd_sql")

    w = sub.add_parser(
        "warehouse",
        help="build the warehouse from shard files (the workflow does this)",
        description="Checks the shard files and loads them into a DuckDB catalog, written to a temporary "
        "file and renamed into place.",
        epilog=EXAMPLES["warehouse"],
        formatter_class=raw,
    )
    w.add_argument("files", nargs="*", type=argtypes.file_path, help="shard Parquet files")
    w.add_argument("--from-file", type=argtypes.existing_file, help="a file listing shard files, one per line")
    w.add_argument(
        "--out", type=argtypes.file_path, default=WAREHOUSE, help="warehouse file to write (default: %(default)s)"
    )
    w.set_defaults(func="engines.cli.warehouse:cmd_warehouse")

    r = sub.add_parser(
        "report",
        help="regenerate reports from the warehouse (the workflow does this)",
        description="Writes each game's Markdown report (and its HTML page), CSV tables and figures.",
        epilog=EXAMPLES["report"],
        formatter_class=raw,
    )
    r.add_argument("--game", choices=GAMES, help="only this game (default: every game)")
    r.add_argument(
        "--db",
        type=argtypes.file_path,
        default=default_db(),
        help="warehouse to read (default: $CARDLAB_DB, else %(default)s)",
    )
    r.add_argument(
        "--outdir", type=argtypes.folder, default="reports", help="directory to write (default: %(default)s)"
    )
    r.set_defaults(func="engines.cli.warehouse:cmd_report")

    # a command's own module is enough to run it (none for those above): the others cost start-up (about 0.1 CPU-s)
    wanted = [m for c, m in COMMAND_MODULES.items() if c == command]
    if not wanted and command not in OWN_COMMANDS:
        wanted = list(dict.fromkeys(COMMAND_MODULES.values()))
    for module in wanted:
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module).register(sub)
    return p


def handler_of(args: argparse.Namespace) -> Callable[[argparse.Namespace], int | None]:
    """The function that runs the parsed command.  A parser names it ``"engines.x.y:function"`` when its
    module is heavy (duckdb, numba, the warehouse): building the parser, which every command does, then
    loads none of it.  tests/test_layers.py reads these names as imports, so the arrows still show."""
    func = args.func
    if isinstance(func, str):
        module, _, name = func.partition(":")
        func = getattr(importlib.import_module(module), name)
    return func


INTERNAL_ERROR = 70  # sysexits' EX_SOFTWARE: neither the input (1, 2) nor an interruption (130)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv else None)
    if argv[:1] == ["run"] and argv[1:2] not in (["-h"], ["--help"]):
        # `cardlab run <snakemake options>`: everything after `run` is snakemake's, options included
        args = parser.parse_args(["run"])
        args.snakemake_args = argv[1:]
    else:
        args = parser.parse_args(argv)
    try:
        return int(handler_of(args)(args) or 0)
    except CardlabError as exc:
        print(f"error: {one_line(str(exc))}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into `head`: not an error (checked before OSError, its base)
        sys.stderr.close()
        return 0
    except OSError as exc:  # a file named on the command line that cannot be read or written
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug of cardlab's: one line for the user, the traceback on request
        if os.environ.get("CARDLAB_DEBUG"):
            raise
        print(
            f"error: internal error ({type(exc).__name__}: {one_line(str(exc))}): a bug in cardlab, not in your "
            "input; CARDLAB_DEBUG=1 shows where, for a report",
            file=sys.stderr,
        )
        return INTERNAL_ERROR


def run() -> None:
    """The ``cardlab`` console command: :func:`main`, then the process ends without
    Python's interpreter teardown.

    Tearing down numba's and LLVM's objects after a kernel ran costs about 0.15
    CPU-seconds (as much as 100,000 Narcotic games), which every timed run would pay.
    When main returns every command has closed its files, so flushing the standard
    streams is all that is left to do."""
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # a reader such as `head` left early (main closed stderr then)
        pass
    os._exit(code)


if __name__ == "__main__":
    run()
