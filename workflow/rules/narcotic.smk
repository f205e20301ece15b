# Narcotic solitaire: seeded Monte Carlo shards, one Parquet file of games each.


rule narcotic_shard:
    output:
        **shard_outputs("narcotic"),
    params:
        game="narcotic",
        spec=spec_of("narcotic"),
        version=engine_version("narcotic"),
    threads: 1
    resources:
        runtime=60,
        mem_mb=1000,
    log:
        log_pattern("narcotic"),
    script:
        "../scripts/run_shard.py"


WAREHOUSE_INPUTS["narcotic"] = planned_files("narcotic")


rule narcotic_report:
    input:
        WAREHOUSE,
    output:
        md="reports/narcotic.md",
        csv=report("reports/narcotic.csv", caption="../report/narcotic_table.rst", category="Narcotic"),
        passes=report("reports/narcotic_passes.png", caption="../report/narcotic_passes.rst", category="Narcotic"),
        rules=report("reports/narcotic_rules.png", caption="../report/narcotic_rules.rst", category="Narcotic"),
    params:
        game="narcotic",
        version=files_version(["report.py", "report_narcotic.py"]),
    threads: 1
    resources:
        runtime=10,
        mem_mb=2000,
    log:
        "results/logs/reports/narcotic.log",
    script:
        "../scripts/report.py"


REPORT_FILES += [
    "reports/narcotic.md",
    "reports/narcotic.csv",
    "reports/narcotic_passes.png",
    "reports/narcotic_rules.png",
]
