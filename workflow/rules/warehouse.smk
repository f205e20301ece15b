# The result warehouse: every planned shard checked and loaded into one DuckDB
# catalog, rebuilt into a temporary file and swapped in.


rule warehouse:
    input:
        [f for g in GAMES for f in planned_files(g)],
    output:
        WAREHOUSE,
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
