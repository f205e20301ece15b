# The result warehouse: every planned shard checked against its planned spec and loaded
# into one DuckDB catalog, rebuilt into a temporary file and swapped in. The declared
# output is the build's manifest: Snakemake deletes a job's outputs before it starts and
# when it fails, and the catalog (results/warehouse.duckdb) must survive both.


rule warehouse:
    input:
        shards=[f for g in GAMES for f in planned_files(g)],
        # a new independent check of a kept campaign (cardlab verify --recompute) rebuilds the
        # catalog, whose table recompute_checks holds them all
        checks=check_record_files(),
    output:
        WAREHOUSE_MANIFEST,
    log:
        "results/logs/warehouse.log",
    threads: 1
    resources:
        runtime=30,
        mem_mb=4000,
    params:
        step="warehouse",
        version=warehouse_version(),
    script:
        "../scripts/step.py"
