"""`cardlab narcotic play`: output format, rule options, and malformed input."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest

from engines import narcotic as N
from engines.cli import main as cardlab
from engines.interface import source_version


def run(monkeypatch, capsys, stdin: str, *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = cardlab(["narcotic", "play", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def deck_lines(seed: int, n: int) -> tuple[np.ndarray, str]:
    decks = N.shuffled_decks(np.uint64(seed), 0, n)
    return decks, "".join(" ".join(map(str, d)) + "\n" for d in decks)


def test_play_prints_one_line_per_deck_matching_the_reference(monkeypatch, capsys):
    decks, text = deck_lines(3, 40)
    code, out, err = run(monkeypatch, capsys, text)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 40
    for d, line in zip(decks, lines):
        assert line == N.play_reference(list(d)).line()
    assert any(l.startswith("won ") and l.endswith(" - -") for l in lines)
    assert any(l.startswith("looped ") for l in lines)


def test_play_rule_options_override_the_preset(monkeypatch, capsys):
    decks, text = deck_lines(4, 10)
    code, out, _ = run(
        monkeypatch, capsys, text, "--rules", "classic", "--gather", "bottom-left", "--pile-four", "discard"
    )
    rules = N.Rules("cascade", "bottom-left", "discard")
    assert code == 0
    assert out.splitlines() == [N.play_reference(list(d), rules).line() for d in decks]


@pytest.mark.parametrize(
    "bad, message",
    [
        (" ".join(["1"] * 51), "line 2: expected 52 cards, got 51"),
        (" ".join(["14"] + [str(v) for v in N.fresh_deck()[1:]]), "line 2: card value 14 out of range"),
        (" ".join(["2"] + [str(v) for v in N.fresh_deck()[1:]]), "line 2: value 1 appears 3 times"),
        (" ".join(["x"] + [str(v) for v in N.fresh_deck()[1:]]), "line 2: 'x' is not an integer"),
    ],
)
def test_malformed_line_is_an_error_naming_the_line_and_prints_no_results(monkeypatch, capsys, bad, message):
    _, good = deck_lines(5, 1)
    code, out, err = run(monkeypatch, capsys, good + bad + "\n" + good)
    assert code == 1
    assert out == ""
    assert err.startswith("error: ") and message in err


def test_empty_input_is_an_error(monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, "\n")
    assert code == 1 and out == "" and "no decks" in err


def test_unknown_rule_value_is_rejected(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(SystemExit) as exc:
        cardlab(["narcotic", "play", "--gather", "sideways"])
    assert exc.value.code == 2
    assert "invalid choice: 'sideways'" in capsys.readouterr().err


def test_version_names_every_engine_hash(capsys):
    from engines.registry import engine

    with pytest.raises(SystemExit) as exc:
        cardlab(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("cardlab ") and all(
        f"{g} {source_version(engine(g))}" in out for g in ("narcotic", "redblack", "blackjack")
    )
