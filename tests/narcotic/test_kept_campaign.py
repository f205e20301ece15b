"""Kept Narcotic results: the tally shards (campaigns) and exhaustive shards the default config plans
are in the repository (results/narcotic/, tracked with git add -f, timing records under results/timings/), and a
fresh copy of kept files is taken as it is: nothing recomputed, not even after a kernel edit."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import NamedTuple

import duckdb
import pytest
import yaml
from wfhelp import ROOT, snakemake, workdir

from engines.core.layout import log_path, shard_path, timing_of, timing_of_shard_file
from engines.pipeline.planning.plan import load_config
from engines.registry import engine

NARCOTIC = engine("narcotic")


class Kept(NamedTuple):
    """A kind of kept shard: its config key, tables, the view that adds them up, and a stand-in
    section for when the repository keeps none (the mechanism is the same)."""

    kind: str
    key: str
    tables: tuple[str, ...]
    complete_sql: str
    stand_in: object
    experiments: tuple[str, ...] = ()  # where the kind shares its tables: the experiments that are its own


KEPT = {
    "tally": Kept(
        "tally",
        "campaigns",
        ("narcotic_tallies", "narcotic_tally_passes"),
        "SELECT experiment || ' ' || variant, complete FROM narcotic_campaign ORDER BY ALL",
        [{"name": "kept_tiny", "rules": "seed", "games": 900, "games_per_shard": 500, "seed": 3}],
    ),
    "exhaustive": Kept(
        "exhaustive",
        "exhaustive",
        ("narcotic_exhaustive",),
        "SELECT experiment || ' ' || variant, complete FROM narcotic_exact "
        "JOIN (SELECT DISTINCT experiment, variant FROM narcotic_exhaustive) USING (variant) ORDER BY ALL",
        {"ranks": [2, 3], "rules": "seed", "sequences_per_shard": 20000},
        ("exhaustive",),
    ),
    "canonical": Kept(
        "canonical",
        "exhaustive",
        ("narcotic_exhaustive",),
        "SELECT experiment || ' ' || variant, complete FROM narcotic_exact "
        "JOIN (SELECT DISTINCT experiment, variant FROM narcotic_exhaustive) USING (variant) ORDER BY ALL",
        [{"ranks": [3], "rules": "seed", "canonical": True, "decks_per_shard": 200}],
        ("canonical",),
    ),
}


def default_section(kept: Kept):
    return (load_config(ROOT / "config.yaml").get("narcotic") or {}).get(kept.key)


def planned_specs(kept: Kept, section, every_kind: bool = False) -> list[dict]:
    """The kind's shards the section plans (or, every_kind, those of every kept kind of its key)."""
    kinds = {k.kind for k in KEPT.values() if k.key == kept.key} if every_kind else {kept.kind}
    return [s for s in NARCOTIC.plan({kept.key: section}) if s["kind"] in kinds]


def kept_files_of(kept: Kept, section, every_kind: bool = False) -> list[str]:
    """Shard files and timing records of the shards a section plans, relative to a results root's parent."""
    specs = planned_specs(kept, section, every_kind)
    files = [shard_path("narcotic", t, s) for s in specs for t in kept.tables]
    return files + [timing_of(log_path("narcotic", s["experiment"], s["variant"], s["shard"])) for s in specs]


def files_in_repository(kept: Kept) -> list[str]:
    """The kind's shard files under results/narcotic/ and their timing records, relative to the repository."""
    shards = sorted(
        f
        for t in kept.tables
        for f in (ROOT / "results/narcotic" / t).glob("*/*/shard=*.parquet")
        if not kept.experiments or f.parts[-3] in kept.experiments
    )
    records = [timing_of_shard_file(f) for f in shards if f.parts[-4] == kept.tables[0]]
    return sorted([str(f.relative_to(ROOT)) for f in shards] + [str(Path(g).relative_to(ROOT)) for g in records])


@pytest.mark.parametrize("kept", KEPT.values(), ids=list(KEPT))
def test_the_default_config_plans_exactly_the_kept_shards(kept):
    """Every such shard the default config plans is kept (with its timing record), and every kept one is planned."""
    planned = kept_files_of(kept, default_section(kept)) if default_section(kept) else []
    missing = [f for f in planned if not (ROOT / f).is_file()]
    assert not missing, f"the default config plans {kept.kind} shards missing from results/: {missing[:4]}"
    assert sorted(planned) == files_in_repository(kept)


@pytest.mark.parametrize("kept", KEPT.values(), ids=list(KEPT))
def test_kept_files_are_accepted_and_not_recomputed(kept, tmp_path):
    """A fresh directory holding the kept files (or, while none are kept, a stand-in's, run here)
    and their config section runs no shard job, even after an edit of the kernel's code; the
    warehouse adds the shards up to complete results."""
    section, source = default_section(kept), ROOT
    if not section:
        section = kept.stand_in
        source = workdir(tmp_path / "first", yaml.safe_dump({"narcotic": {kept.key: section}}))
        snakemake(source, "--cores", "1", "warehouse")
    wd = workdir(tmp_path / "wd", yaml.safe_dump({"narcotic": {kept.key: section}}))
    for f in kept_files_of(kept, section, every_kind=True):
        (wd / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / f, wd / f)
    if (source / "results/ledger/narcotic").is_dir():  # a campaign block plans the shards its ledger keeps
        shutil.copytree(source / "results/ledger/narcotic", wd / "results/ledger/narcotic")
    shutil.copytree(ROOT / "engines", wd / "engines", ignore=shutil.ignore_patterns("__pycache__"))
    kernel = wd / "engines/narcotic/kernel.py"
    kernel.write_text(kernel.read_text() + "\nKERNEL_EDITED = True  # a refactor: kept results stay\n")
    env = {"PYTHONPATH": str(wd)}
    dry = snakemake(wd, "-n", "--cores", "1", env_extra=env).stdout
    stage = NARCOTIC.kind_of(planned_specs(kept, section)[0]).stage  # (a kind of the key's shares its stage)
    assert not re.search(rf"^narcotic_{stage}\s+\d+$", dry, re.M), dry
    snakemake(wd, "--cores", "1", "warehouse", env_extra=env)
    con = duckdb.connect(str(wd / "results/warehouse.duckdb"), read_only=True)
    try:
        rows = con.execute(kept.complete_sql).fetchall()
    finally:
        con.close()
    assert rows == sorted(tiles_from_zero(planned_specs(kept, section, every_kind=True)).items())


def tiles_from_zero(specs: list[dict]) -> dict[str, bool]:
    """Per experiment and variant: whether its planned shards tile the games (or sequences) from 0
    without a gap, what the warehouse calls complete (a campaign in progress plans only the
    shards kept so far, and is not)."""
    ranges: dict[str, list] = {}
    for s in specs:
        ranges.setdefault(f"{s['experiment']} {s['variant']}", []).append(s["range"])
    return {
        name: min(a for a, _ in rs) == 0 and max(b for _, b in rs) == sum(b - a for a, b in rs)
        for name, rs in ranges.items()
    }
