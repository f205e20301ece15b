# The result warehouse: every planned shard checked and loaded into one DuckDB
# catalog, rebuilt into a temporary file and swapped in.


rule warehouse:
    input:
        [f for g in GAMES for f in WAREHOUSE_INPUTS[g]],
    output:
        WAREHOUSE,
    params:
        version=files_version(["warehouse.py", "store.py", "sql/narcotic.sql", "sql/redblack.sql", "sql/blackjack.sql"]),
    threads: 1
    resources:
        runtime=30,
        mem_mb=4000,
    log:
        "results/logs/warehouse.log",
    script:
        "../scripts/build_warehouse.py"
