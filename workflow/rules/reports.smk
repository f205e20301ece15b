# Cross-game report outputs (each game's own report rule lives in its rules file):
# reports/index.html, one self-contained page with every game's answer, tables,
# figures and provenance, read from the warehouse and the game reports.

# The games shown: those the config runs (their report rules are in REPORT_FILES).
INDEX_GAMES = [g for g in GAMES if PLANS[g]]


rule report_index:
    input:
        warehouse=WAREHOUSE,
        # each game's report files by name: figures are embedded, tables linked
        **{g: getattr(rules, f"{g}_report").output for g in INDEX_GAMES},
    output:
        report("reports/index.html", caption="../report/index.rst", category="Overview"),
    params:
        games=INDEX_GAMES,
        # figure captions, shared with Snakemake's own report (snakemake --report)
        captions="workflow/report",
        version=files_version(
            ["report_index.py", "report.py", "report_narcotic.py", "report_redblack.py", "report_blackjack.py"]
        ),
    threads: 1
    resources:
        runtime=10,
        mem_mb=2000,
    log:
        "results/logs/reports/index.log",
    script:
        "../scripts/report_index.py"


REPORT_FILES += ["reports/index.html"]
