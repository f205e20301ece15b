"""Adding a game is adding a package and one registry line: a toy game, end to end.

The test copies the project into a temporary directory, writes ``engines/coin/``
(an engine composing one shard kind, SQL views and a report declared as a GameReport) and one line in ``engines/registry.py``, and
nothing else; a plain ``snakemake`` then plans, runs and loads it, and the report
index lists it.
"""

from __future__ import annotations

import re
import shutil
import textwrap

import duckdb
from wfhelp import ROOT, snakemake, workdir

ENGINE = '''
"""Coin: flip a fair coin ``flips`` times per shard; how often does it land heads?"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..core.rng import seed_derivation, shard_seed
from ..core.shards import split_range
from ..interface import Engine, ReportFile
from ..kinds import ShardKind


class Flips(ShardKind):
    name = "sim"
    tables = ("coin_flips",)

    def plan(self, section, planned):
        specs = []
        for exp in section["experiments"]:
            for shard, (a, b) in enumerate(split_range(exp["flips"], exp["shards"])):
                specs.append({"experiment": exp["name"], "variant": "fair", "shard": shard, "kind": self.name,
                              "range": [a, b], "work": b - a, "root_seed": exp["seed"],
                              "seed": shard_seed(exp["seed"], self.game, exp["name"], "fair", shard),
                              "seed_derivation": seed_derivation(exp["seed"], self.game, exp["name"], "fair", shard)})
        return specs

    def expected_rows(self, spec, table):
        return spec["range"][1] - spec["range"][0]

    def run(self, spec, progress, inputs, backend):
        a, b = spec["range"]
        heads = np.random.Generator(np.random.PCG64(spec["seed"])).random(b - a) < 0.5
        progress.update(b - a)
        return {"coin_flips": {"experiment": [spec["experiment"]] * (b - a),
                               "flip": np.arange(a, b, dtype=np.int64), "heads": heads}}


class CoinEngine(Engine):
    name = "coin"
    title = "Coin"
    question = "How often does a fair coin land heads?"
    work_unit = "flips"
    tables = {"coin_flips": pa.schema([("experiment", pa.string()), ("flip", pa.int64()), ("heads", pa.bool_())])}
    kinds = (Flips(),)
    sharded_field = "flips"
    report_files = (ReportFile("coin.md"),)

    def tiny_config(self):
        return {"experiments": [{"name": "fair", "flips": 100, "shards": 2, "seed": 1}]}

    def reference_checks(self, n):
        return ()  # numpy's generator is the kernel: nothing separate to compare it with
'''

VIEWS = """
CREATE VIEW coin_summary AS
SELECT experiment, count(*) AS flips, count(*) FILTER (WHERE heads) AS heads FROM coin_flips GROUP BY ALL;
"""

REPORT = """
from pathlib import Path

from ..core.store import write_text
from ..report.game import GameReport

QUERIES = {"totals": "SELECT sum(flips) AS flips, sum(heads) AS heads FROM coin_summary"}


def write_markdown(con, outdir):
    t = REPORT.row(con, "totals")
    return [write_text(Path(outdir) / "coin.md", f"# Coin\\n\\n{t['heads']} heads in {t['flips']} flips\\n")]


def answer(con):
    t = REPORT.row(con, "totals")
    return [f"The coin landed heads {t['heads']:,} times in {t['flips']:,} flips."]


REPORT = GameReport(queries=QUERIES, writers=(write_markdown,), answer=answer)
"""

CONFIG = """
coin:
  experiments:
    - {name: fair, flips: 1000, shards: 3, seed: 5}
"""


def test_a_new_package_and_one_registry_line_make_a_game(tmp_path):
    wd = workdir(tmp_path / "wd", CONFIG)
    shutil.copytree(ROOT / "engines", wd / "engines", ignore=shutil.ignore_patterns("__pycache__"))
    pkg = wd / "engines" / "coin"
    pkg.mkdir()
    (pkg / "__init__.py").write_text('"""A toy game."""\n')
    (pkg / "engine.py").write_text(textwrap.dedent(ENGINE))
    (pkg / "views.sql").write_text(VIEWS)
    (pkg / "report.py").write_text(textwrap.dedent(REPORT))
    registry = wd / "engines" / "registry.py"
    text = registry.read_text()
    line = '    "blackjack": "engines.blackjack.engine:BlackjackEngine",\n'
    assert line in text
    registry.write_text(text.replace(line, line + '    "coin": "engines.coin.engine:CoinEngine",\n'))

    env = {"PYTHONPATH": str(wd), "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    dry = snakemake(wd, "-n", "--cores", "1", env_extra=env).stdout
    assert re.search(r"^coin_shard\s+3$", dry, re.M), dry  # planned: three shards
    snakemake(wd, "--cores", "2", "-q", env_extra=env)

    con = duckdb.connect(str(wd / "results/warehouse.duckdb"), read_only=True)
    try:
        flips, heads = con.execute("SELECT sum(flips), sum(heads) FROM coin_summary").fetchone()
        files = con.execute("SELECT count(*) FROM provenance WHERE game = 'coin'").fetchone()[0]
    finally:
        con.close()
    assert flips == 1000 and 0 < heads < 1000 and files == 3
    page = (wd / "reports/index.html").read_text()
    assert '<section id="coin">' in page and f"heads {heads:,} times in 1,000 flips" in page
    assert (wd / "reports/coin.md").read_text().startswith("# Coin")
