# Reports from the warehouse: one rule per game the config runs (its Markdown, CSV and
# figures), then reports/index.html, one self-contained page with every answer.
from engines.report import code_version as report_code_version

for _game in RUN_GAMES:

    rule:
        name:
            f"{_game}_report"
        input:
            WAREHOUSE_MANIFEST,
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
            version=engine(_game).report_version() + report_code_version(_game),
        script:
            "../scripts/step.py"


# The index reads each game's report files by name: figures are embedded, tables linked.
rule report_index:
    input:
        **{g: getattr(rules, f"{g}_report").output for g in RUN_GAMES},
        warehouse=WAREHOUSE_MANIFEST,
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
        version=report_code_version() + "".join(engine(g).report_version() + report_code_version(g) for g in RUN_GAMES),
    script:
        "../scripts/step.py"


REPORT_FILES = [f.path for g in RUN_GAMES for f in engine(g).report_outputs] + ["reports/index.html"]
