# One rule per game and stage, made from the engine registry: each planned shard is one
# job writing one Parquet file per table (results/<game>/<table>/<experiment>/<variant>/).
for _game in GAMES:
    for _stage, _spec in engine(_game).stages().items():

        rule:
            name:
                f"{_game}_{_stage}"
            input:
                inputs_of(_game),
            output:
                **{t: shard_pattern(_game, t) for t in _spec.tables},
            log:
                log_pattern(_game),
            threads: threads_of(_game)
            resources:
                runtime=_spec.runtime_min,
                mem_mb=_spec.mem_mb,
            params:
                step="shard",
                game=_game,
                spec=spec_of(_game),
                version=version_of(_game),
            script:
                "../scripts/step.py"
