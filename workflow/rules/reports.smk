# Reports from the warehouse: one rule per game the config runs (its Markdown, CSV and
# figures), then reports/index.html, one self-contained page with every answer.
# A game's report reruns when what it reads or how it writes changes (its shards, check records,
# views and report code: the list its `<game>_report_inputs` job writes), not whenever the
# warehouse is rebuilt: the catalog is read after it is built (ancient: its time is no reason to
# rerun), so a change of one game rebuilds the warehouse, that game's report and the index only.
# Every reason a report has to rerun sits on the list's job, never on the report's: Snakemake 9
# checks no job downstream of one that reruns (the warehouse) for reasons of its own (dag.py
# update_needrun masks it), so a report's own params would be ignored in every run that rebuilds
# the warehouse; the list's job is not downstream of the warehouse, so it is always checked, and
# `snakemake -n` lists exactly the reports the run then makes (tests/test_report_dry_run.py).
for _game in RUN_GAMES:

    rule:
        name:
            f"{_game}_report_inputs"
        input:
            planned_files(_game),
            game_check_records(_game),
        output:
            report_inputs_path(_game),
        log:
            f"results/logs/reports/{_game}.inputs.log",
        localrule: True
        threads: 1
        resources:
            runtime=1,
            mem_mb=200,
        params:
            views=views_version(_game),
            report=report_code(_game),
        script:
            "../scripts/report_inputs.py"

    rule:
        name:
            f"{_game}_report"
        input:
            ancient(WAREHOUSE_MANIFEST),
            report_inputs_path(_game),
        output:
            **report_outputs(_game),
        log:
            f"results/logs/reports/{_game}.log",
        threads: 1
        resources:
            runtime=10,
            mem_mb=2000,
        params:
            step="game_report",
            game=_game,
        script:
            "../scripts/step.py"


# The index reads each game's report files by name: figures are embedded, tables linked.
rule report_index:
    input:
        **{g: getattr(rules, f"{g}_report").output for g in RUN_GAMES},
        warehouse=ancient(WAREHOUSE_MANIFEST),
    output:
        report("reports/index.html", caption="../report/index.rst", category="Overview"),
    log:
        "results/logs/reports/index.log",
    threads: 1
    resources:
        runtime=10,
        mem_mb=2000,
    params:
        step="index",
        games=RUN_GAMES,
        # figure captions, shared with Snakemake's own report (snakemake --report)
        captions="workflow/report",
    script:
        "../scripts/step.py"


REPORT_FILES = [f.path for g in RUN_GAMES for f in report_outputs_of(engine(g))] + ["reports/index.html"]
