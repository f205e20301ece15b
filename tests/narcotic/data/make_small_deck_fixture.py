"""Regenerate tests/narcotic/data/narcotic_small_decks.txt by running the seed's own Ruby code on small decks.

    .venv/bin/python tests/narcotic/data/make_small_deck_fixture.py   # needs `ruby` on PATH

For each deck of r = 1, 2, 3 values (4r cards), the seed's program (narcotic_seed.rb with
its CARDS_IN_DECK set to 4r, and a harness that checks every deck against the seed's own
deck, ``i % (CARDS_IN_DECK / NUM_SUITS) + 1``) plays EVERY distinct value sequence, in
lexicographic order of the seed's array (index 0 first; the last element is dealt first):
1, 70 and 34,650 sequences.  The sequences are enumerated here in plain Python,
independently of engines/narcotic/exact.py, so the file only holds the results, in that
order: ``time`` for a finished game, ``timeL`` for one that loops (the program's
``time did_loop``), 25 a line under a ``r=R sequences=N`` line.
"""

import re
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "narcotic_small_decks.txt"
RANKS = (1, 2, 3)
PER_LINE = 25

HARNESS = """# --- harness (not from the seed): every deck must be a shuffle of the seed's own deck ---
FRESH = Array.new(CARDS_IN_DECK){|i| i%(CARDS_IN_DECK / NUM_SUITS) + 1}.sort
STDIN.each_line do |line|
  deck = line.split.map(&:to_i)
  raise "not a deck of #{CARDS_IN_DECK} cards: #{line}" unless deck.sort == FRESH
  time, did_loop = narcotic_iterations(deck)
  puts "#{time} #{did_loop}"
end
"""


def seed_program(cards: int) -> str:
    """narcotic_seed.rb with ``CARDS_IN_DECK = cards`` and the checking harness."""
    text = (HERE / "narcotic_seed.rb").read_text()
    text, n = re.subn(r"^CARDS_IN_DECK = 52$", f"CARDS_IN_DECK = {cards}", text, flags=re.M)
    assert n == 1, "narcotic_seed.rb must set CARDS_IN_DECK = 52 exactly once"
    functions = text.split("# --- harness")[0]
    return functions + HARNESS


def lexicographic_sequences(counts: dict[int, int]) -> list[list[int]]:
    """Every distinct sequence of the multiset ``counts`` (value -> cards), smallest first."""
    if not any(counts.values()):
        return [[]]
    out = []
    for v in sorted(counts):
        if counts[v]:
            counts[v] -= 1
            out += [[v, *rest] for rest in lexicographic_sequences(counts)]
            counts[v] += 1
    return out


def ruby_results(r: int, sequences: list[list[int]]) -> list[str]:
    with tempfile.NamedTemporaryFile("w", suffix=".rb") as prog:
        prog.write(seed_program(4 * r))
        prog.flush()
        text = "".join(" ".join(map(str, s)) + "\n" for s in sequences)
        out = subprocess.run(["ruby", prog.name], input=text, capture_output=True, text=True, check=True)
    results = []
    for line in out.stdout.splitlines():
        time, did_loop = line.split()
        results.append(time + ("L" if did_loop == "true" else ""))
    assert len(results) == len(sequences)
    return results


def main() -> None:
    lines = [
        "# produced by make_small_deck_fixture.py: the seed's Ruby (narcotic_seed.rb, CARDS_IN_DECK = 4r) on every",
        "# distinct value sequence of a deck of r values, in lexicographic order of the seed's array;",
        "# a result is the program's `time did_loop`: time, with L appended when the game loops",
    ]
    for r in RANKS:
        sequences = lexicographic_sequences(dict.fromkeys(range(1, r + 1), 4))
        results = ruby_results(r, sequences)
        lines.append(f"r={r} sequences={len(sequences)}")
        lines += [" ".join(results[i : i + PER_LINE]) for i in range(0, len(results), PER_LINE)]
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
