# Reports from the warehouse: one rule per game the config runs (its Markdown, CSV and
# figures), then reports/index.html, one self-contained page with every answer.
# A game's report reruns when what it reads changes (its shards, check records and views: the
# list its `<game>_report_inputs` job writes), not whenever the warehouse is rebuilt: the
# catalog is read after it is built (ancient: its time is no reason to rerun), so a change of
# one game rebuilds the warehouse, that game's report and the index only. (The list is a job of
# its own because Snakemake does not check a job downstream of one that reruns for its own
# reasons, such as its set of inputs changed by undoing an edit.)
from engines.report import code_version as report_code_version

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
            version=report_version(engine(_game)) + report_code_version(_game),
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
        version=report_code_version() + "".join(report_version(engine(g)) + report_code_version(g) for g in RUN_GAMES),
    script:
        "../scripts/step.py"


REPORT_FILES = [f.path for g in RUN_GAMES for f in report_outputs_of(engine(g))] + ["reports/index.html"]
