"""The warehouse: every planned shard file checked against its plan and loaded into one DuckDB catalog
(``warehouse``, swapped in whole), with the jobs' timings (``shard_timings``) and the kept measurements of
devices the pipeline does not run on (``measurements``)."""
