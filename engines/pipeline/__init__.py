"""Pipeline glue: config validation, running shards for Snakemake, the warehouse, verify."""
