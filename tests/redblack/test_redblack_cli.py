"""`cardlab redblack ...`: replay, search, basin, and their one-line errors."""

from __future__ import annotations

import csv
import io

import pytest

from engines import redblack as rb
from engines.cli import main


def run(capsys, *argv):
    """Exit status (argparse's exit 2 for a value outside its domain included), stdout and stderr."""
    try:
        rc = main(["redblack", *argv])
    except SystemExit as exc:
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err


def test_replay_prints_the_seed_table_and_the_cycle(capsys):
    rc, out, _ = run(capsys, "replay", "10", "110", "--rounds", "2")
    assert rc == 0
    lines = out.splitlines()
    table = [l.split()[:3] for l in lines if l[:1] in "01-" and not l.startswith("---")]
    assert table[:9] == [
        list(r)
        for r in [
            ("10", "110", "-"),
            ("0", "110", "1"),
            ("0", "10", "11"),
            ("-", "10", "110"),
            ("110", "10", "-"),
            ("110", "0", "1"),
            ("10", "0", "11"),
            ("10", "-", "110"),
            ("10", "110", "-"),
        ]
    ]
    assert "infinite: enters a cycle of 2 rounds after 0 rounds" in lines[-1]


def test_replay_of_a_finite_deal_names_the_winner(capsys):
    expected = rb.play_reference("001000", "101111")
    rc, out, _ = run(capsys, "replay", "001000", "101111")
    assert rc == 0
    assert f"ends after {expected.rounds} rounds" in out
    assert f"player {expected.winner} runs out of cards and wins" in out


@pytest.mark.parametrize(
    "argv,code,says",
    [
        (("replay", "10", "12"), 1, "error: P2 '12' is not a string of 0 (red) and 1 (black)"),
        (("replay", "", "1"), 1, "error: P1 is empty; give a string of 0 (red) and 1 (black), top card first"),
        (("replay", "ab", "01"), 1, "error: P1 'ab' is not a string of 0 (red) and 1 (black)"),
        (("basin", "1", "x"), 1, "error: P2 'x' is not a string of 0 (red) and 1 (black)"),
        (("search", "0"), 2, "error: cardlab redblack search: argument k: 1..26 cards per player, not 0"),
        (("search", "27"), 2, "error: cardlab redblack search: argument k: 1..26 cards per player, not 27"),
        (("search", "3", "--jobs", "0"), 2, "error: cardlab redblack search: argument --jobs: 1..4,096 cores, not 0"),
    ],
)
def test_bad_input_is_one_line_error(capsys, argv, code, says):
    """A value outside an option's domain is argparse's (exit 2), a deck the parser cannot judge the command's (1)."""
    rc, out, err = run(capsys, *argv)
    assert (rc, out, err) == (code, "", says + "\n")


def test_search_lists_the_infinite_deals_sorted_then_counts(capsys):
    k = 6
    res = rb.search(k)
    rc, out, _ = run(capsys, "search", str(k), "--jobs", "1")
    assert rc == 0
    lines = out.splitlines()
    deals = sorted(f"{d['p1']} {d['p2']}" for d in res.infinite)
    assert lines[:-1] == deals
    assert f"{res.infinite_count} infinite" in lines[-1] and f"{res.deals:,} canonical" in lines[-1]


def test_search_csv(capsys):
    rc, out, err = run(capsys, "search", "6", "--csv")
    assert rc == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows and all(rb.play_reference(r["p1"], r["p2"]).cycle_id == r["cycle_id"] for r in rows)
    assert "canonical deals searched" in err


def test_basin_lists_the_balanced_deals_of_the_cycle(capsys):
    res = rb.search(6)
    some = res.infinite[0]
    same_cycle = sorted(f"{d['p1']} {d['p2']}" for d in res.infinite if d["cycle_id"] == some["cycle_id"])
    rc, out, _ = run(capsys, "basin", some["p1"], some["p2"])
    assert rc == 0
    lines = out.splitlines()
    assert lines[:-1] == same_cycle
    assert f"cycle {some['cycle_id']}: period {some['period']} rounds" in lines[-1]


def test_basin_of_a_finite_deal(capsys):
    rc, out, _ = run(capsys, "basin", "01", "10")
    assert rc == 0 and "finite" in out
