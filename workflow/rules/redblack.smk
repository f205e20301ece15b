# RedBlack: exhaustive rank-range shards and seeded sample shards (counts, length
# histograms, infinite deals), then one basin job that reads the cycles every shard
# found and enumerates their basins backwards; then the report.
from engines.redblack import BASIN_EXPERIMENT, BASIN_TABLES, BASIN_VARIANT, SEARCH_TABLES, basin_sources

RB_PLAN = PLANS["redblack"]
RB_SEARCH = [s for s in RB_PLAN if s["kind"] != "basin"]
RB_BASINS = [s for s in RB_PLAN if s["kind"] == "basin"]


rule redblack_shard:
    output:
        **{t: shard_pattern("redblack", t) for t in SEARCH_TABLES},
    params:
        game="redblack",
        spec=spec_of("redblack"),
        version=engine_version("redblack"),
    wildcard_constraints:
        variant="canonical|balanced|any_split",
    # numba follows `threads` (engines.jobs.set_threads); redblack.exhaustive.threads sets it
    threads: threads_of("redblack")
    resources:
        runtime=120,
        mem_mb=1000,
    log:
        log_pattern("redblack"),
    script:
        "../scripts/run_shard.py"


# the basin job exists when redblack.basins is on (the default)
if RB_BASINS:

    rule redblack_basin:
        input:
            [shard_path("redblack", "redblack_found", s) for s in basin_sources(RB_PLAN)],
        output:
            **{t: shard_path("redblack", t, s) for s in RB_BASINS for t in BASIN_TABLES},
        params:
            game="redblack",
            spec=RB_BASINS[0],
            version=engine_version("redblack"),
        threads: 1
        resources:
            runtime=60,
            mem_mb=4000,
        log:
            f"results/logs/redblack/{BASIN_EXPERIMENT}/{BASIN_VARIANT}/shard=0000.log",
        script:
            "../scripts/run_shard.py"


WAREHOUSE_INPUTS["redblack"] = [shard_path("redblack", t, s) for s in RB_SEARCH for t in SEARCH_TABLES] + [
    shard_path("redblack", t, s) for s in RB_BASINS for t in BASIN_TABLES
]

REDBLACK_REPORTS = [
    "reports/infinite_games.md",
    "reports/infinite_games.csv",
    "reports/redblack_cycles.csv",
    "reports/redblack_infinite_share.png",
    "reports/redblack_lengths.png",
]


rule redblack_report:
    input:
        WAREHOUSE,
    output:
        md="reports/infinite_games.md",
        csv=report("reports/infinite_games.csv", caption="../report/infinite_games.rst", category="RedBlack"),
        cycles=report("reports/redblack_cycles.csv", caption="../report/redblack_cycles.rst", category="RedBlack"),
        share=report("reports/redblack_infinite_share.png", caption="../report/redblack_infinite_share.rst", category="RedBlack"),
        lengths=report("reports/redblack_lengths.png", caption="../report/redblack_lengths.rst", category="RedBlack"),
    params:
        game="redblack",
        version=files_version(["report_redblack.py", "report.py", "sql/redblack.sql"]),
    threads: 1
    resources:
        runtime=10,
        mem_mb=2000,
    log:
        "results/logs/reports/redblack.log",
    script:
        "../scripts/report.py"


if RB_PLAN:
    REPORT_FILES += REDBLACK_REPORTS
