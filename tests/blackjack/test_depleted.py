"""Depleted shoes and effects of removal: exact tables for any shoe, checked against hand-built
shoes, brute force over card orders, the law of total probability and the simulator."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from engines import blackjack as bj
from engines.blackjack.depleted import CARD_LABELS, EFFECT_DECKS, REMOVED
from engines.blackjack.rules import shoe_counts
from engines.core.errors import CardlabError

# The effects view, over the table the engine loads into the warehouse.
VIEW_FILES = [Path(bj.__file__).parent / "views.sql"]


def effects_view_statements() -> list[str]:
    """The statements creating blackjack_bust_effects, from whichever file holds them."""
    out = []
    for path in VIEW_FILES:
        if path.exists():
            code = "\n".join(ln for ln in path.read_text().splitlines() if not ln.lstrip().startswith("--"))
            out += [s.strip() for s in code.split(";") if "VIEW blackjack_bust_effects" in s]
    return out


@pytest.fixture(scope="module")
def effects():
    return bj.effects_of_removal()


# ----------------------------------------------------------------- cards and shoes


def test_parse_cards_ranks_aliases_and_case():
    assert bj.parse_cards("A,a, 2,9,T,t,10,J,q,K") == (1, 1, 2, 9, 10, 10, 10, 10, 10, 10)
    assert bj.parse_cards("") == () and bj.parse_cards(["5", "k"]) == (5, 10)
    for bad in ("X", "1", "11", "A,,T", "0"):
        with pytest.raises(CardlabError, match="is not a rank"):
            bj.parse_cards(bad)


def test_depleted_shoe_counts_and_errors():
    assert bj.depleted_shoe(2, bj.parse_cards("A,A,T,5")) == (0, 6, 8, 8, 8, 7, 8, 8, 8, 8, 31)
    assert bj.depleted_shoe("1", ()) == shoe_counts("1")
    with pytest.raises(CardlabError) as exc:
        bj.depleted_shoe(1, [1] * 5)
    msg = str(exc.value)
    assert msg.startswith("cannot remove A: a 1-deck shoe has none left after removing A, A, A, A")
    assert "left: A 0, 2 4," in msg and "T 16 (48 cards)" in msg and "\n" not in msg
    with pytest.raises(CardlabError, match="cannot remove T: .*left: .*T 0"):
        bj.depleted_shoe(1, [10] * 17)
    with pytest.raises(CardlabError, match="cannot remove 5: an infinite shoe"):
        bj.depleted_shoe("inf", [5])
    assert bj.depleted_shoe("inf", ()) == shoe_counts("inf")


# ----------------------------------------------------------------- depleted tables


@pytest.mark.parametrize("decks", ["1", "2", "6", "8"])
def test_removing_nothing_is_the_full_table(decks):
    for soft17 in bj.SOFT17:
        for peek in bj.PEEK:
            assert bj.depleted_table(decks, soft17, peek, "") == bj.exact_table(decks, soft17, peek)


def test_removal_from_an_infinite_shoe_is_refused():
    # the infinite shoe has no finite composition to deplete; the full table stays the CLI's
    with pytest.raises(CardlabError, match="infinite shoe"):
        bj.depleted_table("inf", "stand", "no", "A")


@pytest.mark.parametrize("decks,cards", [("1", "A,A,T,5"), ("2", "5,5,5,5,6,6,K,Q"), ("6", "9,8,7,A")])
def test_depleted_table_equals_exact_outcomes_on_hand_built_shoe(decks, cards):
    shoe = [4 * int(decks)] * 11
    shoe[0], shoe[10] = 0, 16 * int(decks)
    for v in bj.parse_cards(cards):
        shoe[v] -= 1
    for soft17 in bj.SOFT17:
        table = bj.depleted_table(decks, soft17, "no", cards)
        assert list(table) == list(bj.UPCARDS)
        for u, probs in table.items():
            assert probs == bj.exact_outcomes(shoe, bj.UPCARD_VALUE[u], soft17)
            assert sum(probs) == 1


def test_peek_conditions_the_depleted_table():
    for cards in ("A,A,T,5", "T,T,T,T,T,T,T,T", "A,A,A"):
        plain = bj.depleted_table(1, "hit", "no", cards)
        peeked = bj.depleted_table(1, "hit", "yes", cards)
        for u in bj.UPCARDS:
            if u in ("10", "A"):
                p_nat = plain[u][bj.NATURAL]
                assert 0 < p_nat < 1 and peeked[u][bj.NATURAL] == 0
                assert peeked[u] == [
                    Fraction(0) if i == bj.NATURAL else p / (1 - p_nat) for i, p in enumerate(plain[u])
                ]
                assert sum(peeked[u]) == 1
            else:
                assert peeked[u] == plain[u]


def test_upcard_no_longer_in_shoe_has_no_row():
    table = bj.depleted_table(1, "stand", "no", "A,A,A,A,7,7,7,7")
    assert table["A"] == "none left in the shoe" and table["7"] == "none left in the shoe"
    assert all(sum(table[u]) == 1 for u in bj.UPCARDS if u not in ("A", "7"))
    # only aces and tens left: with peek, an ace upcard always has a natural unless an ace is the hole card
    small = ",".join(r for r in "23456789" for _ in range(4))
    peeked = bj.depleted_table(1, "stand", "yes", small)
    assert peeked["10"][4] == 1  # 20 (hole card a ten), the natural conditioned out
    assert peeked["A"][bj.BUST] == 1  # A, A, then tens: soft 12 -> hard 12 -> bust
    all_but_tens = ",".join(r for r in "A23456789" for _ in range(4))
    only_tens = bj.depleted_table(1, "stand", "yes", all_but_tens)
    assert only_tens["A"] == "none left in the shoe" and only_tens["10"][4] == 1


def brute_force(cards: list[int], upcard: int, soft17: str, peek: str) -> list[Fraction]:
    """Every ordering of the labelled cards left after the upcard, dealt from the top."""
    rest = list(cards)
    rest.remove(upcard)
    counts, n = [0] * 7, 0
    for order in itertools.permutations(rest):
        hand = bj.play_hand(upcard, iter(order).__next__, soft17)
        if peek == "yes" and len(hand) == 2 and bj.outcome_index(hand) == bj.NATURAL:
            continue
        counts[bj.outcome_index(hand)] += 1
        n += 1
    return [Fraction(c, n) for c in counts]


@pytest.mark.parametrize("keep", [[1, 1, 5, 6, 10, 10, 10, 10], [1, 2, 3, 4, 6, 9, 10, 10]])
def test_heavily_depleted_shoe_equals_brute_force_over_card_orders(keep):
    """One deck less all but eight cards: every ordering of the rest, both rules, with and without peek."""
    full = [r for r in range(1, 11) for _ in range(16 if r == 10 else 4)]
    removed = list(full)
    for v in keep:
        removed.remove(v)
    for soft17 in bj.SOFT17:
        for peek in bj.PEEK:
            table = bj.depleted_table(1, soft17, peek, removed)
            for u in bj.UPCARDS:
                v = bj.UPCARD_VALUE[u]
                if v not in keep:
                    assert table[u] == "none left in the shoe"
                else:
                    assert table[u] == brute_force(keep, v, soft17, peek), (u, soft17, peek)


def test_shoe_too_small_for_the_dealer_is_a_clear_error():
    removed = [r for r in range(1, 11) for _ in range(16 if r == 10 else 4)]
    for v in (1, 1, 2, 2):  # keep A, A, 2, 2: upcard 2 then A, A, 2 is 16 with nothing left
        removed.remove(v)
    with pytest.raises(CardlabError, match="run out before the dealer finishes; left: A 2, 2 2"):
        bj.depleted_table(1, "stand", "no", removed)


def test_depleted_shoe_agrees_with_the_simulator():
    """The fresh-shoe kernel dealing from the depleted shoe: every cell within 4.5 binomial standard errors."""
    from engines.blackjack.simulation import deal_fresh

    shoe = bj.depleted_shoe(1, bj.parse_cards("A,A,T,T,T,5,5,6"))
    table = bj.depleted_table(1, "hit", "no", "A,A,T,T,T,5,5,6")
    hands = 200_000
    for u in ("5", "10", "A"):
        v = bj.UPCARD_VALUE[u]
        rest = [c for c in range(1, 11) for _ in range(shoe[c] - (c == v))]
        counts = deal_fresh(
            np.uint64(77),
            np.int64(v << 56),
            np.int64(0),
            np.int64(hands),
            np.int64(v),
            np.array(rest, np.int64),
            False,
            True,
            np.int64(1 << 16),
        )
        for c, p in zip(counts, table[u]):
            se = math.sqrt(float(p) * (1 - float(p)) / hands)
            assert (c == 0) if p == 0 else abs(c / hands - float(p)) < 4.5 * se, (u, c, p)


# ----------------------------------------------------------------- effects of removal


def test_effects_rows_cover_every_setting(effects):
    assert len(effects) == len(EFFECT_DECKS) * 2 * 10 * 10 * 7
    keys = {(r["decks"], r["soft17"], r["upcard"], r["removed"], r["outcome"]) for r in effects}
    assert len(keys) == len(effects)
    assert {r["peek"] for r in effects} == {"no"} and [r for r in REMOVED] == list(CARD_LABELS[1:])
    for r in effects[:300]:
        assert r["delta_exact"] == r["exact"] - r["base_exact"] and r["delta"] == float(r["delta_exact"])
        assert r["base_exact"] == bj.exact_table(r["decks"], r["soft17"], "no")[r["upcard"]][r["outcome_order"]]


def test_law_of_total_probability_over_the_removed_card(effects):
    """Full-shoe probability = sum over ranks of (share of that rank in the shoe less the upcard) x
    (probability with one card of that rank removed), exactly; so the weighted deltas sum to zero."""
    groups: dict[tuple, list[dict]] = {}
    for r in effects:
        groups.setdefault((r["decks"], r["soft17"], r["upcard"], r["outcome"]), []).append(r)
    assert len(groups) == len(EFFECT_DECKS) * 2 * 10 * 7
    for (decks, _soft17, upcard, _outcome), rows in groups.items():
        shoe = list(shoe_counts(decks))
        shoe[bj.UPCARD_VALUE[upcard]] -= 1
        rest = sum(shoe)
        weighted = sum(Fraction(shoe[r["removed_order"] + 1], rest) * r["exact"] for r in rows)
        assert weighted == rows[0]["base_exact"]
        assert sum(shoe[r["removed_order"] + 1] * r["delta_exact"] for r in rows) == 0


def test_effects_equal_the_depleted_table(effects):
    row = next(r for r in effects if (r["decks"], r["soft17"], r["upcard"], r["removed"]) == ("2", "hit", "6", "5"))
    assert row["exact"] == bj.depleted_table(2, "hit", "no", "5")["6"][row["outcome_order"]]


def test_griffin_single_deck_bust_effects_signs(effects):
    """Griffin's qualitative result: removing a 5 raises the dealer's bust probability most for small
    upcards (2..5), removing a ten lowers it for upcards 2..6; effects shrink with more decks."""
    bust = {
        (r["decks"], r["soft17"], r["upcard"], r["removed"]): r["delta_exact"]
        for r in effects
        if r["outcome"] == "bust"
    }
    for soft17 in bj.SOFT17:
        for u in ("2", "3", "4", "5"):
            rise = {rank: bust["1", soft17, u, rank] for rank in REMOVED}
            assert max(rise, key=rise.get) == "5", (soft17, u)
        for u in ("2", "3", "4", "5", "6"):
            assert bust["1", soft17, u, "T"] < 0
            assert abs(bust["8", soft17, u, "5"]) < abs(bust["1", soft17, u, "5"])


def test_effects_table_schema_and_view():
    table = bj.effects_of_removal_table(["1"], ["stand"])
    assert table.column_names == list(bj.EFFECT_COLUMNS)
    assert table.num_rows == 10 * 10 * 7
    assert table.schema.field("delta").type == pa.float64() and table.schema.field("upcard_order").type == pa.int32()
    assert table.schema.field("delta_exact").type == pa.string()
    con = duckdb.connect()
    con.register("arrow_in", table)
    con.execute("CREATE TABLE blackjack_effects_of_removal AS SELECT * FROM arrow_in")
    statements = effects_view_statements()
    assert statements, "no CREATE VIEW blackjack_bust_effects in views.sql"
    con.execute(statements[-1])  # views.sql's, once it holds the view
    rows = con.execute(
        'SELECT upcard, largest_rise, total_probability_residual, "5" FROM blackjack_bust_effects ORDER BY upcard_order'
    ).fetchall()
    assert [r[0] for r in rows] == list(bj.UPCARDS)
    assert [r[1] for r in rows[:4]] == ["5"] * 4
    assert all(abs(r[2]) < 1e-15 for r in rows)
    assert rows[3][3] > 1  # removing a 5 against a 5 upcard, one deck: over a percentage point


# ----------------------------------------------------------------- CLI


def test_cli_remove_happy_path(capsys):
    from engines.cli import main

    assert main(["blackjack", "table", "--decks", "1", "--remove", "A,a,t,5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("Exact dealer outcomes: 1 deck, dealer stands on soft 17, no peek, cards removed: A, A, T, 5")
    table = bj.depleted_table(1, "stand", "no", "A,A,T,5")
    assert lines[2].split("\t")[1].strip() == f"{100 * float(table['2'][0]):6.2f}%".strip()
    assert len(lines) == 12
    # J, Q, K and 10 are all ten-valued: the same table as T
    assert main(["blackjack", "table", "--decks", "1", "--remove", "J,Q,K,10", "--csv"]) == 0
    jqk = capsys.readouterr().out
    assert main(["blackjack", "table", "--decks", "1", "--remove", "T,T,T,T", "--csv"]) == 0
    assert capsys.readouterr().out == jqk
    rows = jqk.splitlines()
    assert rows[0] == "upcard,outcome,probability,exact" and len(rows) == 71
    up, outcome, p, frac = rows[1].split(",")
    assert (up, outcome) == ("2", "bust") and Fraction(frac) == bj.depleted_table(1, "stand", "no", "T,T,T,T")["2"][0]


def test_cli_upcard_none_left(capsys):
    from engines.cli import main

    assert main(["blackjack", "table", "--decks", "1", "--remove", "A,A,A,A", "--peek", "yes"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "A: none left in the shoe" and out[-2].startswith("10\t")
    assert main(["blackjack", "table", "--decks", "1", "--remove", "A,A,A,A", "--csv"]) == 0
    got = capsys.readouterr()
    assert len(got.out.splitlines()) == 1 + 63 and "upcard A: none left in the shoe" in got.err


@pytest.mark.parametrize(
    "argv,code,message",
    [
        (["--decks", "1", "--remove", "A,A,A,A,A"], 1, "error: cannot remove A: a 1-deck shoe has none left"),
        (["--decks", "inf", "--remove", "5"], 1, "error: cannot remove 5: an infinite shoe"),
        (["--decks", "2", "--remove", "A,X"], 2, "error: cardlab blackjack table: argument --remove: card 'X'"),
        (["--decks", "2", "--remove", "A,,T"], 2, "argument --remove: card '' is not a rank"),
    ],
)
def test_cli_remove_errors(capsys, argv, code, message):
    from engines.cli import main

    try:
        rc = main(["blackjack", "table", *argv])
    except SystemExit as exc:
        rc = exc.code
    assert rc == code
    err = capsys.readouterr().err
    assert err.startswith("error:") and message in err and err.count("\n") == 1
