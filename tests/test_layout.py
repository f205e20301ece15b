"""The results layout (engines/core/layout.py): the shard-name format, the Snakemake
wildcard and the parser agree on every shard number up to MAX_SHARD."""

from __future__ import annotations

import re

import pytest
from snakemake.io import regex_from_filepattern, update_wildcard_constraints

from engines.core import layout
from engines.core.layout import ShardPlace, parse_shard_path, shard_name, shard_path, shard_pattern

EDGES = [0, 9_999, 10_000, 999_999]


def snakemake_regex(game: str, table: str) -> re.Pattern:
    """The regex Snakemake matches a shard output against, built as the Snakefile builds it."""
    pattern = update_wildcard_constraints(shard_pattern(game, table), {}, layout.WILDCARDS)
    return re.compile(regex_from_filepattern(pattern))


@pytest.mark.parametrize("shard", EDGES)
def test_shard_numbers_round_trip_through_path_parse_and_wildcard(shard):
    spec = {"experiment": "k20", "variant": "owner", "shard": shard}
    path = shard_path("redblack", "redblack_search", spec)
    root, place = parse_shard_path(path)
    assert (root, place) == ("results", ShardPlace("redblack", "redblack_search", "k20", "owner", shard))
    assert layout.place_path(place, root) == path
    m = snakemake_regex("redblack", "redblack_search").match(path)
    assert m is not None and int(m.group("shard")) == shard
    assert shard_path("redblack", "redblack_search", {**spec, "shard": int(m.group("shard"))}) == path


def test_existing_names_keep_four_digits():
    assert shard_name(7) == "shard=0007" and shard_name(10_000) == "shard=10000"
    assert layout.log_path("narcotic", "seed", "seed", 3) == "results/logs/narcotic/seed/seed/shard=0003.log"


@pytest.mark.parametrize("name", ["shard=00001", "shard=012345", "shard=1000000", "shard=123", "shard=0x12"])
def test_names_the_format_never_writes_are_neither_parsed_nor_matched(name):
    path = f"results/redblack/redblack_search/k20/owner/{name}.parquet"
    assert parse_shard_path(path) is None
    assert snakemake_regex("redblack", "redblack_search").match(path) is None


def test_the_layout_limit_is_the_planners():
    with pytest.raises(ValueError, match="outside"):
        shard_name(layout.MAX_SHARD + 1)


def test_the_snakefile_takes_its_wildcards_from_the_layout():
    text = (layout.Path(__file__).resolve().parent.parent / "Snakefile").read_text()
    assert "**WILDCARDS" in text and "from engines.core.layout import WILDCARDS" in text
    assert not re.search(r"shard\s*=\s*r?\"", text)


@pytest.mark.parametrize("shard", EDGES)
def test_a_log_path_parses_back_to_its_shard(shard):
    path = layout.log_path("redblack", "basins", "all", shard)
    assert layout.parse_log_path(path) == layout.LogPlace("redblack", "basins", "all", shard)
    assert layout.parse_log_path(layout.log_path("narcotic", "a", "b", shard, "/x/r"), "/x/r").shard == shard


def test_other_logs_name_no_shard_and_paths_outside_the_logs_are_refused():
    assert layout.parse_log_path("results/logs/warehouse.log") is None
    assert layout.parse_log_path("results/logs/reports/index.log") is None
    assert layout.parse_log_path("results/logs/redblack/basins/all/shard=123.log") is None
    with pytest.raises(ValueError):
        layout.parse_log_path("elsewhere/redblack/basins/all/shard=0000.log")


def test_a_log_is_found_beside_its_shard_file_in_any_root():
    path = "/data/campaign/results/narcotic/narcotic_games/seed/seed/shard=0002.parquet"
    assert layout.log_of_shard_file(path) == "/data/campaign/results/logs/narcotic/seed/seed/shard=0002.log"
    assert layout.log_of_shard_file("elsewhere/file.parquet") is None


@pytest.mark.parametrize("shard", EDGES)
def test_a_jobs_timing_record_sits_where_its_log_does_under_timings(shard):
    log = layout.log_path("redblack", "logs", "all", shard, "/srv/logs/results")  # "logs" as a name, twice
    assert layout.timing_of(log) == f"/srv/logs/results/timings/redblack/logs/all/{layout.shard_name(shard)}.json"
    path = layout.shard_path("narcotic", "narcotic_games", {"experiment": "e", "variant": "v", "shard": shard})
    assert layout.timing_of_shard_file(path) == layout.timing_of(layout.log_path("narcotic", "e", "v", shard))
    assert layout.timing_of("results/logs/warehouse.log") == "results/timings/warehouse.json"
    assert layout.timing_of("results/logs/reports/index.log") == "results/timings/reports/index.json"
    assert layout.timing_of("/tmp/scratch/job.log") == "/tmp/scratch/job.log.json"  # a scratch job's, beside it


def test_temporaries_of_every_writer_are_found_and_only_they(tmp_path):
    out = tmp_path / "warehouse.duckdb"
    tmps = [
        layout.temp_path(out, 12),
        tmp_path / ".warehouse.duckdb.12.tmp.wal",
        tmp_path / ".warehouse.duckdb.ab_c.tmp",
    ]
    for p in [*tmps, out, tmp_path / ".other.duckdb.1.tmp", tmp_path / "warehouse.duckdb.tmp"]:
        p.write_bytes(b"")
    assert layout.temp_files(out) == sorted(tmps)
    assert all(layout.is_temp(p) for p in tmps) and not layout.is_temp(out)
    assert layout.remove_temp_files(out) == sorted(tmps) and layout.temp_files(out) == []
