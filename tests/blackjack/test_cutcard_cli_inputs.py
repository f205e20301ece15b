"""``cardlab blackjack cutcard`` from any input: a domain for every option at the parser, the shoe's own
limits said in one line, CSV that parses as numbers, and the kept curve of a warehouse used (and said)
where the forward pass would otherwise recompute it (issue 61, part H1)."""

from __future__ import annotations

import csv
import io
import math
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.blackjack import cutcard_law as law_module
from engines.blackjack.cutcard import check_cut, max_dealer_cards, shoe_of_decks
from engines.blackjack.cutcard_curve import Curve
from engines.blackjack.cutcard_law import cutcard_law, kept_curve_law, simulated_law
from engines.blackjack.kinds.cutcard import full_shoe_law
from engines.blackjack.rules import OUTCOMES
from engines.cli import main as cardlab
from engines.core.errors import CardlabError
from engines.core.stats import Z95

ROOT = Path(__file__).resolve().parents[2]
KEPT = ROOT / "results/blackjack/blackjack_cutcard_curve"
SUM_TOLERANCE = 1e-9


def cutcard(capsys, *args: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``cardlab blackjack cutcard ARGS`` (argparse's exit 2 included)."""
    try:
        code = cardlab(["blackjack", "cutcard", *args])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def csv_rounds(text: str) -> dict[int, list[dict]]:
    """round -> its rows of ``--csv``, every number parsed (a ValueError if one is not a plain number)."""
    rows: dict[int, list[dict]] = {}
    for row in csv.DictReader(io.StringIO(text)):
        parsed = {"dealt": float(row["dealt"]), "probability": float(row["probability"]), "outcome": row["outcome"]}
        rows.setdefault(int(row["round"]), []).append(parsed)
    return rows


def assert_a_law(text: str) -> dict[int, list[dict]]:
    """Every round's seven outcome shares are probabilities that sum to 1."""
    rounds = csv_rounds(text)
    assert 0 in rounds
    for rows in rounds.values():
        assert [r["outcome"] for r in rows] == list(OUTCOMES)
        assert all(0 <= r["probability"] <= 1 for r in rows)
        assert math.fsum(r["probability"] for r in rows) == pytest.approx(1, abs=SUM_TOLERANCE)
    return rounds


@pytest.fixture(autouse=True)
def no_default_warehouse(monkeypatch, tmp_path):
    """The project's own warehouse (if built here) is not what these tests read unless they say so."""
    monkeypatch.setenv("CARDLAB_DB", str(tmp_path / "absent.duckdb"))


@pytest.fixture(scope="module")
def kept_warehouse(tmp_path_factory) -> Path:
    """A warehouse holding only the kept one-deck curves (tracked in git), as a default build keeps them."""
    path = tmp_path_factory.mktemp("warehouse") / "warehouse.duckdb"
    con = duckdb.connect(str(path))
    con.execute(f"CREATE TABLE blackjack_cutcard_curve AS SELECT * FROM read_parquet('{KEPT}/*/*/*.parquet')")
    con.close()
    return path


def kept_rows(path: Path, cut: int, players: int, soft17: str) -> dict[int, list[float]]:
    with duckdb.connect(str(path), read_only=True) as con:
        found = con.execute(
            "SELECT round, list(probability ORDER BY outcome_order) FROM blackjack_cutcard_curve "
            "WHERE decks = '1' AND cut = ? AND players = ? AND soft17 = ? GROUP BY round",
            [cut, players, soft17],
        ).fetchall()
    return dict(found)


@pytest.mark.parametrize(
    "args,option,allowed",
    [
        (["--cut", "20", "--players", "-1"], "--players", "0..416 player cards a round, not -1"),
        (["--cut", "0"], "--cut", "1..416 cards, not 0"),
        (["--cut", "417"], "--cut", "1..416 cards, not 417"),
        (["--cut", "10", "--shoes", "0"], "--shoes", "2..1,000,000,000 shoes"),
        (["--cut", "10", "--shoes", "1"], "--shoes", "an interval needs two"),
        (["--cut", "10", "--shoes", str(10**12)], "--shoes", f"not {10**12}"),
        (["--cut", "10", "--seed", "-1"], "--seed", "0..2^64-1, not -1"),
        (["--cut", "10", "--seed", str(2**64)], "--seed", "0..2^64-1"),
        (["--cut", "3", "--decks", "9"], "--decks", "1..8 decks, not 9"),
        (["--cut", "ten"], "--cut", "a whole number"),
    ],
)
def test_a_value_outside_its_domain_is_a_one_line_usage_error(capsys, args, option, allowed):
    code, out, err = cutcard(capsys, *args)
    line = err.strip().splitlines()[-1]
    assert code == 2 and not out and f"argument {option}: " in line and allowed in line, err


@pytest.mark.parametrize(
    "args,says",
    [
        (["--cut", "10", "--players", "100"], "use at most 42 player cards a round"),
        (["--cut", "10", "--players", "301", "--decks", "6"], "in 6 decks, at any cut; use at most 300 player cards"),
        (["--cut", "53"], "use a cut of at most 43 cards"),
        (["--cut", "40", "--players", "4"], "use a cut of at most 39 cards"),
    ],
)
def test_a_setting_beyond_the_shoe_says_what_the_shoe_allows(capsys, args, says):
    code, out, err = cutcard(capsys, *args)
    assert code == 1 and not out and err.count("\n") == 1 and err.startswith("error: cutcard: ") and says in err


@pytest.mark.parametrize("players,cut", [(-1, 20), (-1, 5), (43, 1), (0, 0), (0, 44)])
def test_the_library_refuses_what_the_model_cannot_deal(players, cut):
    """check_cut is the library's guard (every path calls it), not only the parser's."""
    with pytest.raises(CardlabError) as err:
        check_cut(shoe_of_decks(1), cut, players, "stand")
    assert "\n" not in str(err.value)
    with pytest.raises(CardlabError):
        cutcard_law(1, cut, players, "stand", "auto", False, 100, 1)


def test_the_csv_parses_as_numbers_and_each_round_is_a_law(capsys, tmp_path):
    code, out, _ = cutcard(capsys, "--cut", "5", "--exact", "--by-round", "--csv")
    assert code == 0 and "np." not in out
    rounds = assert_a_law(out)
    assert len(rounds) > 2
    path = tmp_path / "cut5.csv"
    path.write_text(out)
    types = duckdb.sql(f"SELECT DISTINCT typeof(dealt), typeof(probability) FROM read_csv('{path}')").fetchall()
    assert types == [("DOUBLE", "DOUBLE")]


def test_a_simulation_csv_is_a_law_with_its_intervals(capsys):
    code, out, _ = cutcard(capsys, "--decks", "2", "--cut", "60", "--players", "3", "--shoes", "2", "--csv")
    assert code == 0
    assert_a_law(out)
    halves = [float(r["half_width_95"]) for r in csv.DictReader(io.StringIO(out)) if r["round"] == "0"]
    assert len(halves) == len(OUTCOMES) and all(h >= 0 for h in halves)


def test_the_kept_curve_answers_at_once_and_says_so(capsys, monkeypatch, kept_warehouse):
    """``--decks 1 --cut 39 --exact --csv`` (99 s and 4 GB to compute) from the kept curve, per round too."""

    def recomputed(*args, **kwargs):
        raise AssertionError("the forward pass ran although the warehouse keeps its answer")

    monkeypatch.setattr(law_module, "cut_curve", recomputed)
    code, out, err = cutcard(
        capsys, "--decks", "1", "--cut", "39", "--exact", "--by-round", "--csv", "--db", str(kept_warehouse)
    )
    assert code == 0 and f"from the warehouse's kept curve: {kept_warehouse}" in err
    rounds = assert_a_law(out)
    want = kept_rows(kept_warehouse, 39, 0, "stand")
    assert len(rounds) == len(want) > 10
    for r, probs in want.items():
        assert [row["probability"] for row in rounds[r]] == probs
    monkeypatch.setenv("CARDLAB_DB", str(kept_warehouse))  # the default warehouse, as `cardlab sql` finds it
    code, out, err = cutcard(capsys, "--cut", "30", "--players", "2")
    assert code == 0 and "kept in the warehouse" in out and str(kept_warehouse) in err


def test_a_curve_kept_without_round_numbers_does_not_answer_by_round(kept_warehouse):
    with duckdb.connect(str(kept_warehouse), read_only=True) as con:
        assert kept_curve_law(con, 1, 30, 2, "stand", by_round=False) is not None
        assert kept_curve_law(con, 1, 30, 2, "stand", by_round=True) is None
        assert kept_curve_law(con, 1, 30, 3, "stand", by_round=False) is None  # no such players count kept
        assert kept_curve_law(con, 2, 30, 0, "stand", by_round=False) is None
        assert kept_curve_law(duckdb.connect(), 1, 30, 0, "stand", by_round=False) is None  # no curve table


def test_the_kept_curve_is_found_whether_decks_is_text_or_a_number(kept_warehouse):
    con = duckdb.connect()
    con.execute(f"ATTACH '{kept_warehouse}' AS kept (READ_ONLY)")
    con.execute("CREATE TABLE blackjack_cutcard_curve AS SELECT * FROM kept.blackjack_cutcard_curve")
    as_text = kept_curve_law(con, 1, 39, 0, "hit", by_round=True)
    con.execute("ALTER TABLE blackjack_cutcard_curve ALTER decks TYPE DOUBLE")
    assert as_text is not None and kept_curve_law(con, 1, 39, 0, "hit", by_round=True) == as_text
    assert math.fsum(as_text.average) == pytest.approx(1, abs=SUM_TOLERANCE) and len(as_text.per_round) > 10


def fake_pass(shoe, players, soft17, layered=False, up_to=None):
    """A stand-in for the forward pass: every outcome 1/7, one round a card."""
    size = sum(shoe) + 1
    return Curve(tuple(shoe), players, soft17, np.ones((1, size)), np.full((1, size, 7), 1 / 7), up_to, 0.0)


@pytest.mark.parametrize("damage", ["garbage", "folder", "held"])
def test_a_warehouse_that_cannot_be_read_is_said_and_the_curve_computed(capsys, monkeypatch, tmp_path, damage):
    path = tmp_path / "warehouse.duckdb"
    if damage == "garbage":
        path.write_bytes(b"not a database " * 400)
    elif damage == "folder":
        path.mkdir()
    else:  # held open for writing by this process: a read-only connection is refused
        held = duckdb.connect(str(path))
        held.execute("CREATE TABLE blackjack_cutcard_curve (x INTEGER)")
    monkeypatch.setenv("CARDLAB_DB", str(path))
    monkeypatch.setattr(law_module, "cut_curve", fake_pass)
    code, out, err = cutcard(capsys, "--cut", "39", "--csv")
    assert code == 0 and [p for *_, p in kept_law_rows(out)] == pytest.approx([1 / 7] * 7)
    notes = [ln for ln in err.splitlines() if ln.startswith("note:")]
    assert len(notes) == 1 and str(path) in notes[0] and "computing" in notes[0], err


def kept_law_rows(text: str) -> list[tuple]:
    return [(r["outcome"], float(r["probability"])) for r in csv.DictReader(io.StringIO(text)) if r["round"] == "0"]


CHEAP_EXACT = {"cut": 4, "players": 2}  # the exact fractions in well under a second (players cost most)
OUTSIDE = {  # values beyond each option's domain, at its edges and far off
    "--decks": ["0", "9", "inf", "-1"],
    "--cut": ["0", "-1", "417", "x"],
    "--players": ["-1", "417", "2.5"],
    "--shoes": ["-1", "0", "1", str(10**9 + 1), str(10**12)],
    "--seed": ["-1", str(2**64), "x"],
}


# capsys is read (and so emptied) once an example; the autouse fixture's setting holds for all of them
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    decks=st.integers(1, 2),
    cut=st.integers(1, 100),
    players=st.integers(0, 8),
    shoes=st.sampled_from([None, 2, 37]),
    seed=st.sampled_from([0, 7, 2**64 - 1]),
    fault=st.sampled_from([None, None, None, *OUTSIDE]),
    data=st.data(),
)
def test_any_input_is_a_law_or_a_one_line_error(capsys, decks, cut, players, shoes, seed, fault, data):
    """Values inside every domain, or one option beyond its own: a correct law (the shares of each round sum
    to 1) or a one-line error, never a traceback; inside every domain and the shoe's limits, always a law.
    Cheap paths only: the exact fractions at shallow cuts, else a few simulated shoes."""
    if shoes is None and (decks > 1 or cut > CHEAP_EXACT["cut"] or players > CHEAP_EXACT["players"]):
        shoes = 37
    options = {"--decks": decks, "--cut": cut, "--players": players, "--shoes": shoes, "--seed": seed}
    if fault:
        options[fault] = data.draw(st.sampled_from(OUTSIDE[fault]), label=fault)
    args = [str(a) for option, value in options.items() if value is not None for a in (option, value)]
    code, out, err = cutcard(capsys, *args, "--csv")
    if code == 0:
        assert_a_law(out)
    else:
        assert code in (1, 2) and not out and err.strip().splitlines()[-1].startswith("error: "), err
        assert "Traceback" not in err
    deepest = 52 * decks - players - max_dealer_cards(shoe_of_decks(decks), "stand") + 1
    assert code == 0 or fault is not None or cut > deepest, err


@settings(max_examples=12, deadline=None)
@given(
    cut=st.integers(1, CHEAP_EXACT["cut"]),
    players=st.integers(0, CHEAP_EXACT["players"]),
    soft17=st.sampled_from(["stand", "hit"]),
    seed=st.integers(0, 2**64 - 1),
)
def test_the_simulation_agrees_with_the_exact_law(cut, players, soft17, seed):
    """The simulated share of every outcome within 5 standard errors of the exact one (a false alarm about
    once in 10^6 comparisons), and its rounds a shoe likewise close."""
    exact = cutcard_law(1, cut, players, soft17, "exact", False, 0, 0)
    simulated = simulated_law(1, cut, players, soft17, 20_000, seed)
    for want, got, half in zip(exact.average, simulated.average, simulated.half_width):
        assert abs(got - want) <= 5 * half / Z95 + 1e-12
    assert simulated.rounds_per_shoe == pytest.approx(exact.rounds_per_shoe, rel=0.02)


@pytest.mark.parametrize("players", [0, 1])
@pytest.mark.parametrize("cut", [1, 2, 3])
@pytest.mark.parametrize("decks", range(1, 9))
def test_the_exact_fractions_hold_for_every_shoe(capsys, decks, cut, players):
    """Regression: from 7-8 decks the fractions' class codes (digits in base the shoe's largest count, 129^9)
    overflowed int64 and ended in Fraction(0, 0). The seven shares are exact fractions summing to 1; where one
    round only can be dealt (a round deals at least players + 2 cards) they are the full shoe's law exactly,
    else within 5 standard errors of simulated shoes."""
    code, out, err = cutcard(
        capsys, "--decks", str(decks), "--cut", str(cut), "--players", str(players), "--exact", "--csv"
    )
    assert (code, err) == (0, ""), err
    rows = [r for r in csv.DictReader(io.StringIO(out)) if r["round"] == "0"]
    exact = [Fraction(r["exact"]) for r in rows]
    assert [r["outcome"] for r in rows] == list(OUTCOMES) and sum(exact) == 1 and min(exact) > 0
    assert [float(r["probability"]) for r in rows] == [float(p) for p in exact]
    if cut <= players + 2:
        assert tuple(exact) == full_shoe_law(decks, "stand")
    else:
        simulated = simulated_law(decks, cut, players, "stand", 20_000, seed=decks)
        for want, got, half in zip(exact, simulated.average, simulated.half_width):
            assert abs(got - float(want)) <= 5 * half / Z95 + 1e-12
