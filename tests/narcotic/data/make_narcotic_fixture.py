"""Regenerate tests/narcotic/data/narcotic_ruby_fixture.txt by running the seed's own Ruby code.

    .venv/bin/python tests/narcotic/data/make_narcotic_fixture.py   # needs `ruby` on PATH

Each line: 52 card values (seed array order), then the Ruby program's
`time did_loop`. The decks come from cardlab's seeded shuffle, so the file can
be rebuilt bit for bit; the test compares the kernel to these lines.
"""

import subprocess
from pathlib import Path

import numpy as np

from engines.narcotic import shuffled_decks

HERE = Path(__file__).resolve().parent
GAMES, SEED = 3000, 20260101

decks = shuffled_decks(np.uint64(SEED), 0, GAMES)
text = "".join(" ".join(map(str, d)) + "\n" for d in decks)
out = subprocess.run(
    ["ruby", str(HERE / "narcotic_seed.rb")], input=text, capture_output=True, text=True, check=True
).stdout.splitlines()
assert len(out) == GAMES
with open(HERE / "narcotic_ruby_fixture.txt", "w") as fh:
    fh.write(f"# seed={SEED} games={GAMES}; produced by make_narcotic_fixture.py with the seed's Ruby\n")
    for line, res in zip(text.splitlines(), out):
        fh.write(f"{line} | {res}\n")
