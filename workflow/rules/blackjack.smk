# Blackjack dealer outcomes: one shard with every exact variant, seeded simulation
# shards (counts per upcard and outcome), and the report built from the warehouse.


rule blackjack_shard:
    output:
        **shard_outputs("blackjack"),
    params:
        game="blackjack",
        spec=spec_of("blackjack"),
        version=engine_version("blackjack"),
    # One thread per shard: shards are short and Snakemake runs as many side by side as
    # there are cores; numba follows `threads` (engines.jobs.set_threads).
    threads: 1
    resources:
        runtime=20,
        mem_mb=1000,
    log:
        log_pattern("blackjack"),
    script:
        "../scripts/run_shard.py"


WAREHOUSE_INPUTS["blackjack"] = planned_files("blackjack")

BLACKJACK_REPORTS = [
    "reports/blackjack.md",
    "reports/blackjack.csv",
    "reports/blackjack_sim.csv",
    "reports/blackjack_bust.png",
]


rule blackjack_report:
    input:
        WAREHOUSE,
    output:
        md="reports/blackjack.md",
        csv=report("reports/blackjack.csv", caption="../report/blackjack_table.rst", category="Blackjack"),
        sim=report("reports/blackjack_sim.csv", caption="../report/blackjack_sim.rst", category="Blackjack"),
        bust=report("reports/blackjack_bust.png", caption="../report/blackjack_bust.rst", category="Blackjack"),
    params:
        game="blackjack",
        version=files_version(["report_blackjack.py", "report.py", "sql/blackjack.sql"]),
    threads: 1
    resources:
        runtime=10,
        mem_mb=2000,
    log:
        "results/logs/reports/blackjack.log",
    script:
        "../scripts/report.py"


if PLANS["blackjack"]:
    REPORT_FILES += BLACKJACK_REPORTS
