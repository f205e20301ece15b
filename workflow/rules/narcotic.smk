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
