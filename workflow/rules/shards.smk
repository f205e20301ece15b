# One rule per game and stage, made from the engine registry: each planned shard is one
# job writing one Parquet file per table (results/<game>/<table>/<experiment>/<variant>/),
# except small shards, which share a job: one rule per batch, below.
for _game in GAMES:
    for _stage, _spec in stages_of(engine(_game)).items():

        rule:
            name:
                f"{_game}_{_stage}"
            input:
                inputs_of(_game),
            output:
                **{t: shard_pattern(_game, t) for t in _spec.tables},
            log:
                log_pattern(_game),
            priority: priority_of(_game)
            threads: threads_of(_game)
            resources:
                runtime=_spec.runtime_min,
                mem_mb=_spec.mem_mb,
                gpu=gpus_of(_game),
            params:
                step="shard",
                game=_game,
                spec=spec_of(_game),
                version=version_of(_game),
            script:
                "../scripts/step.py"


# Small shards computed one after another by one job (engines/pipeline/planning/batches.py): a rule of
# named outputs, which Snakemake prefers to the stage's rule for those files (no wildcards).
for _game in GAMES:
    for _batch in BATCHES[_game]:
        _spec = stages_of(engine(_game))[_batch.stage]

        rule:
            name:
                _batch.rule
            output:
                batch_outputs(_batch),
            log:
                batch_logs(_batch),
            threads: batch_threads(_batch)
            resources:
                runtime=_spec.runtime_min,
                mem_mb=_spec.mem_mb,
                gpu=batch_gpus(_batch),
            params:
                step="batch",
                game=_game,
                specs=list(_batch.specs),
                versions=[s.version for s in batch_shards(_batch)],
            script:
                "../scripts/step.py"
