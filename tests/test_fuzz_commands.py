"""Every command driven with values at and beyond each option's domain (issue 61).

Two things are kept here.  The parser: every option that takes a value, given values at and past its
domain (0, -1, 10^30, 2^64, NaN, infinities, nothing, text, a folder, a file), is either accepted or
refused with argparse's one `error:` line and exit 2, and every option that takes a number has a
bounded type from engines/core/argtypes.py (a bare ``type=int`` is what let ``--players -1`` through).
The commands cheap enough to run: whatever they are given, they answer (with the answer's invariant
checked: shares sum to 1, wins never exceed games) or end with one `error:` line, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import math
import os
import re
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wfhelp import ROOT

from engines.cli import build_parser, main

FOLDER = str(ROOT / "engines")
FILE = str(ROOT / "pyproject.toml")
CONFIG = str(ROOT / "config.yaml")

# values at and beyond any domain: numbers' edges, what is not a number, paths of the wrong kind
EDGES = (
    "0", "-1", "1", "1.5", "1e3", str(10**30), str(2**63 - 1), str(2**63), str(2**64 - 1), str(2**64), str(-(2**64)),
    "nan", "inf", "-inf", "", " ", "text", "1_000", "0x10", "é", FOLDER, FILE, "/no/such/path",
)  # fmt: skip

FAST = settings(max_examples=300, deadline=None, derandomize=True)
SLOW = settings(max_examples=2000, deadline=None, derandomize=True)


# ----------------------------------------------------------------------------- the parser tree


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], object]]:
    """Every command that runs (a parser without subcommands), with the words that name it."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
    for action in subs:
        seen = set()
        for name, sub in action.choices.items():
            if id(sub) not in seen:  # an alias names the same parser
                seen.add(id(sub))
                yield from commands(sub, (*path, name))


def takes_value(action: argparse.Action) -> bool:
    skipped = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)
    return action.nargs != 0 and not isinstance(action, skipped) and action.nargs != argparse.REMAINDER


PARSER = build_parser(None)
COMMANDS = list(commands(PARSER))
SLOTS = [(path, action) for path, parser in COMMANDS for action in parser._actions if takes_value(action)]


def name(path: tuple[str, ...], action: argparse.Action) -> str:
    return f"cardlab {' '.join(path)} {'/'.join(action.option_strings) or action.dest}"


def domain(action: argparse.Action) -> tuple | None:
    return getattr(action.type, "domain", None)


def valid(action: argparse.Action) -> str:
    """A value the option accepts: a choice, its domain's low end, a real file or folder, else a word."""
    if action.choices is not None:
        return str(next(iter(action.choices)))
    if getattr(action.type, "__name__", "") in ("existing_file", "file_path"):
        return FILE
    if getattr(action.type, "__name__", "") == "folder":
        return FOLDER
    if domain(action) and domain(action)[0] is not None:
        return str(domain(action)[0])
    return "1"


def argv_with(path: tuple[str, ...], parser, action: argparse.Action | None, value: str = "") -> list[str]:
    """The command's words with every required argument valid, ``action`` given ``value``."""
    positionals, options = [], []
    for a in parser._actions:
        if not takes_value(a):
            continue
        given = value if a is action else valid(a)
        if not a.option_strings:
            positionals.append(given)
        elif a is action or a.required:
            options.append(f"{a.option_strings[-1]}={given}")  # `=`: a value like -1 or '' stays a value
    return [*path, *options, *positionals]


def edges_of(action: argparse.Action) -> list[str]:
    """EDGES, and just inside and outside the option's own domain."""
    lo, hi = domain(action) or (None, None)
    around = [v for b in (lo, hi) if b is not None for v in (b - 1, b, b + 1)]
    return [*EDGES, *(str(int(v)) if float(v).is_integer() else repr(v) for v in around)]


def parse(argv: list[str]) -> tuple[int, str]:
    """(0, '') when the parser takes argv, else (its exit status, what it printed on stderr)."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            PARSER.parse_args(argv)
    except SystemExit as exc:
        return exc.code, err.getvalue()
    return 0, ""


def assert_one_error_line(err: str, argv) -> None:
    """One `error:` line, the last; anything before it argparse's usage (or a command's progress)."""
    lines = err.strip().splitlines()
    assert "Traceback" not in err, f"{argv}: {err}"
    assert lines and lines[-1].startswith("error:"), f"{argv}: {err!r}"
    assert sum(ln.startswith("error:") for ln in lines) == 1, f"{argv}: {err!r}"


def assert_parsed_or_refused(argv: list[str]) -> None:
    code, err = parse(argv)
    if code:
        assert code == 2, f"{argv}: exit {code}"
        assert_one_error_line(err, argv)


@contextlib.contextmanager
def in_repository():
    """Defaults such as config.yaml are read relative to where a user runs cardlab: the checkout."""
    before = os.getcwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(before)


def test_the_walk_finds_every_command_and_a_valid_line_for_each():
    names = {" ".join(path) for path, _ in COMMANDS}
    for expected in ("sql", "narcotic simulate", "redblack replay", "blackjack cutcard", "verify", "status", "run"):
        assert expected in names
    with in_repository():
        refused = [(path, parse(argv_with(path, p, None))) for path, p in COMMANDS]
    assert [(" ".join(path), err) for path, (code, err) in refused if code] == []


def test_every_number_option_has_a_bounded_domain():
    """A number option's type comes from engines/core/argtypes.py with both ends (or it has choices):
    a bare ``type=int`` or ``type=float`` takes -1, 10^30 and NaN."""

    def takes_number(a: argparse.Action) -> bool:
        default_is_number = isinstance(a.default, (int, float)) and not isinstance(a.default, bool)
        return a.type in (int, float) or domain(a) is not None or default_is_number

    def bounded(a: argparse.Action) -> bool:
        return a.choices is not None or (domain(a) is not None and None not in domain(a))

    unbounded = sorted({name(path, a) for path, a in SLOTS if takes_number(a) and not bounded(a)})
    assert unbounded == [], "options taking a number without a bounded type: " + ", ".join(unbounded)


def test_every_option_takes_or_refuses_every_edge_value():
    with in_repository():
        parsers = dict(COMMANDS)
        for path, action in SLOTS:
            for value in edges_of(action):
                assert_parsed_or_refused(argv_with(path, parsers[path], action, value))


def test_each_domain_holds_at_its_ends_and_paths_are_of_their_kind():
    """A whole number's ends are taken and one past them refused, NaN never taken; a folder is no file and a
    file no folder.  The refusal names the value given."""
    parsers = dict(COMMANDS)
    wrong_kind = {"folder": FILE, "existing_file": FOLDER, "file_path": FOLDER}
    with in_repository():
        for path, action in SLOTS:
            kind = getattr(action.type, "__name__", "")
            lo, hi = domain(action) or (None, None)
            refused = ["nan", *([str(lo - 1)] if lo is not None else []), *([str(hi + 1)] if hi is not None else [])]
            taken = [str(lo), str(hi)] if kind in ("integer", "cores_or_all") and None not in (lo, hi) else []
            if domain(action) is None:
                refused, taken = [wrong_kind[kind]] if kind in wrong_kind else [], []
            for value in taken:
                assert parse(argv_with(path, parsers[path], action, value))[0] == 0, (name(path, action), value)
            for value in refused:
                code, err = parse(argv_with(path, parsers[path], action, value))
                assert code == 2 and value in err, (name(path, action), value, err)


VALUES = st.one_of(
    st.sampled_from(EDGES),
    st.text(max_size=30),
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


def check_any_option_any_value(data) -> None:
    path, action = data.draw(st.sampled_from(SLOTS), label="option")
    value = data.draw(VALUES, label="value")
    with in_repository():
        assert_parsed_or_refused(argv_with(path, dict(COMMANDS)[path], action, value))


@FAST
@given(st.data())
def test_any_option_any_value(data):
    check_any_option_any_value(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_any_option_any_value_at_length(data):
    check_any_option_any_value(data)


# ----------------------------------------------------------------------------- running the cheap commands


def cardlab(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of the command run in this process; an uncaught exception fails the test."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


def answered(argv: list[str], stdin: str = "") -> str | None:
    """The command's output when it answers (exit 0), None when it refuses with one error line."""
    code, out, err = cardlab(argv, stdin)
    if code == 0:
        return out
    assert code in (1, 2), f"{argv}: exit {code}: {err}"
    assert_one_error_line(err, argv)
    return None


def sometimes(valid, beyond):
    """Mostly ``valid``, about one draw in eight from ``beyond``: a command given five values still runs
    half the time.  (Hypothesis draws the ends of a range more often than its middle: the middle picks.)"""
    return st.integers(0, 7).flatmap(lambda i: beyond if i == 3 else valid)


def number(low: int, high: int, *beyond: str):
    """Whole numbers in [low, high] (cheap to run), sometimes an edge past any domain."""
    return sometimes(st.integers(low, high).map(str), st.sampled_from(beyond or EDGES))


# a run with these values ends quickly whatever the command's domain is: tiny, or no number at all
REFUSED = ("0", "-1", str(2**64), str(10**30), "nan", "inf", "", "text", "1.5", FOLDER)


def check_narcotic(data) -> None:
    n = data.draw(number(1, 20, *REFUSED), label="N")
    seed = data.draw(number(0, 2**64 - 1, *REFUSED), label="seed")
    out = answered(["narcotic", "deal", n, "--seed", seed])
    if out is not None:
        decks = [list(map(int, line.split())) for line in out.splitlines()]
        assert len(decks) == int(n) and all(sorted(d) == sorted(list(range(1, 14)) * 4) for d in decks)
        played = answered(["narcotic", "play"], stdin=out)
        assert played is not None and len(played.splitlines()) == len(decks)
    games = data.draw(number(1, 200, *REFUSED), label="games")
    rules = data.draw(sometimes(st.sampled_from(["seed", "classic"]), st.just("fancy")), label="rules")
    jobs = data.draw(number(1, 2, *REFUSED), label="jobs")
    out = answered(["narcotic", "simulate", "--games", games, "--seed", seed, "--jobs", jobs, "--rules", rules])
    if out is not None:
        won, lo, hi = map(float, re.search(r"won ([\d.]+) % \(95 % interval ([\d.]+) – ([\d.]+) %\)", out).groups())
        assert 0 <= lo <= won <= hi <= 100, out  # wins <= games, inside their interval


def check_narcotic_play(data) -> None:
    """Any text on standard input: one line a deck played, or one error line naming the bad line."""
    card = st.one_of(st.integers(1, 13), st.integers(-2, 20)).map(str)
    line = st.one_of(st.lists(card, min_size=50, max_size=53).map(" ".join), st.text(max_size=20))
    stdin = "\n".join(data.draw(st.lists(line, max_size=4), label="stdin")) + "\n"
    out = answered(["narcotic", "play"], stdin=stdin)
    if out is not None:
        played = out.splitlines()
        assert len(played) == sum(1 for ln in stdin.split("\n") if ln.strip()), out
        assert all(ln.split()[0] in ("won", "looped") for ln in played), out


DECK = st.one_of(st.text("01", max_size=8), st.text("01", min_size=24, max_size=28), st.text(max_size=5))


def check_redblack(data) -> None:
    p1, p2 = data.draw(DECK, label="p1"), data.draw(DECK, label="p2")
    rounds = data.draw(number(0, 40, *REFUSED), label="rounds")
    out = answered(["redblack", "replay", p1, p2, "--rounds", rounds])
    if out is not None:
        assert out.splitlines()[-1].startswith(("finite: ends after", "infinite: enters a cycle")), out
    out = answered(["redblack", "rank", p1, p2])
    if out is not None:
        assert int(out) >= 0 and len(p1) == len(p2)
    small = data.draw(st.text("01", max_size=5), label="basin p1"), data.draw(st.text("01", max_size=5), label="p2")
    states = data.draw(number(1, 500, *REFUSED, str(2**63 - 1)), label="max-states")
    out = answered(["redblack", "basin", *small, "--max-states", states])
    if out is not None:
        assert "finite" in out or "cycle " in out, out
    k = data.draw(number(1, 6, *REFUSED, "27"), label="k")
    ranks = data.draw(st.one_of(st.none(), st.sampled_from([":", "0:1", "1:0", "0:10**9", "-1:", "a:b", "3"])))
    out = answered(["redblack", "search", k, "--jobs", "1", *(["--ranks", ranks] if ranks else [])])
    if out is not None:
        assert out.splitlines()[-1].startswith(f"k={int(k)}: "), out


def shares_by(rows: list[dict], key: str) -> dict[str, float]:
    sums: dict[str, float] = defaultdict(float)
    for row in rows:
        sums[row[key]] += float(row["probability"])
    return sums


def check_blackjack_table(data) -> None:
    decks = data.draw(sometimes(st.sampled_from(["1", "2", "6", "8", "inf"]), st.sampled_from([*REFUSED, "9"])))
    soft17 = data.draw(sometimes(st.sampled_from(["stand", "hit"]), st.just("maybe")), label="soft17")
    peek = data.draw(st.sampled_from(["no", "yes"]), label="peek")
    remove = data.draw(st.lists(st.sampled_from("A23456789TJQKX0"), max_size=6).map(",".join), label="remove")
    table = ["blackjack", "table", "--decks", decks, "--soft17", soft17, "--peek", peek, "--csv"]
    out = answered([*table, *(["--remove", remove] if remove else [])])
    if out is not None:
        for upcard, total in shares_by(list(csv.DictReader(io.StringIO(out))), "upcard").items():
            assert math.isclose(total, 1, abs_tol=1e-9), f"upcard {upcard}: shares sum to {total}"


def check_cutcard(data) -> None:
    shoe = sometimes(st.sampled_from("87654321"), st.sampled_from(REFUSED))  # casino shoes first: 8, 6
    decks = data.draw(shoe, label="decks")
    cut = data.draw(number(1, 3, *REFUSED), label="cut")  # the exact law of a cut of 5 takes 10 s
    players = data.draw(number(0, 1, *REFUSED, "100"), label="players")
    how = data.draw(st.one_of(st.just(["--exact"]), number(1, 300, *REFUSED).map(lambda n: ["--shoes", n])))
    out = answered(
        ["blackjack", "cutcard", "--decks", decks, "--cut", cut]
        + ["--players", players, *how, "--seed", data.draw(number(0, 9, *REFUSED), label="seed"), "--csv"]
    )
    if out is not None:
        for round_, total in shares_by(list(csv.DictReader(io.StringIO(out))), "round").items():
            assert math.isclose(total, 1, abs_tol=1e-6), f"round {round_}: shares sum to {total}"


SCRATCH = tempfile.TemporaryDirectory(prefix="cardlab-fuzz-")  # removed when the tests end
EMPTY_RESULTS = os.path.join(SCRATCH.name, "results")
os.mkdir(EMPTY_RESULTS)


def tiny_warehouse() -> str:
    """A small DuckDB catalog for `cardlab sql` (it opens any warehouse read-only)."""
    import duckdb

    path = os.path.join(SCRATCH.name, "warehouse.duckdb")
    con = duckdb.connect(path)
    con.execute("CREATE TABLE t AS SELECT range AS n, range % 3 = 0 AS won FROM range(10)")
    con.close()
    return path


WAREHOUSE = tiny_warehouse()
QUERIES = ["SELECT * FROM t", "SELECT count(*) FROM t; SELECT 1", "DELETE FROM t", "SHOW TABLES", "SELECT 1/0", ""]


def check_sql(data) -> None:
    query = data.draw(st.one_of(st.sampled_from(QUERIES), st.text(max_size=40)), label="query")
    db = data.draw(st.sampled_from([WAREHOUSE, FILE, FOLDER, "/no/such.duckdb", ""]), label="db")
    out = answered(["sql", query, "--db", db, *data.draw(st.sampled_from([[], ["--csv"]]))])
    if out is not None:
        assert db == WAREHOUSE


def check_status_and_verify(data) -> None:
    """An empty results tree, a missing one, a file in its place; the config, a file that is none, a folder,
    a missing one."""
    where = [EMPTY_RESULTS, os.path.join(EMPTY_RESULTS, "none"), FILE]
    results = data.draw(st.sampled_from(where), label="results")
    config = data.draw(st.sampled_from([CONFIG, FILE, FOLDER, "/no/such.yaml"]), label="config")
    with in_repository():  # the config names files relative to the checkout
        out = answered(["status", "--results", results, "--config", config])
        assert out is None or "warehouse" in out
        assert answered(["verify", "--results", results, "--config", config]) is None  # nothing there is sound


CHECKS = {  # each check's examples: about 15 s in all on one core
    "narcotic": (check_narcotic, 80),
    "narcotic play": (check_narcotic_play, 100),
    "redblack": (check_redblack, 120),
    "blackjack table": (check_blackjack_table, 60),
    "blackjack cutcard": (check_cutcard, 40),
    "sql": (check_sql, 100),
    "status and verify": (check_status_and_verify, 8),
}


@pytest.mark.parametrize("which", CHECKS)
def test_cheap_commands_answer_or_refuse_in_one_line(which):
    check, examples = CHECKS[which]
    given(st.data())(settings(FAST, max_examples=examples)(check))()


@pytest.mark.slow
@pytest.mark.parametrize("which", CHECKS)
def test_cheap_commands_at_length(which):
    check, examples = CHECKS[which]
    given(st.data())(settings(SLOW, max_examples=10 * examples)(check))()
