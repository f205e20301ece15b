"""`snakemake -n` names exactly the jobs the run then does: after a config change to one game, the
other games' reports are in neither, and a report whose code changed is in both.

Two ways they parted (workflow/rules/reports.smk): a real run removed the warehouse manifest when a
config change planned a new shard (engines/pipeline/snakemake/resume.py), so every report's `ancient`
input was missing and every report ran, which the dry run never listed; and a report's own params
were never checked while the warehouse reran (Snakemake masks the jobs downstream of a rerunning one).
"""

from __future__ import annotations

import re
import shutil

from conftest import env_of
from wfhelp import snakemake

JOB = re.compile(r"^(?:local)?rule (\w+):$", re.M)


def jobs(output: str) -> list[str]:
    """The rules of the jobs a run printed (or a dry run planned), one entry a job, sorted."""
    return sorted(JOB.findall(output))


def test_dry_run_lists_exactly_the_jobs_the_run_does(tiny_pipeline, tmp_path):
    wd = tmp_path / "wd"
    shutil.copytree(tiny_pipeline, wd, symlinks=True)  # copy2: mtimes kept, so nothing is new but the edits
    config = wd / "config.yaml"
    # one more Blackjack shard: a shard file the warehouse never loaded
    text = config.read_text()
    edited = text.replace("hands_per_upcard: 5000, shards: 2, seed: 14", "hands_per_upcard: 5000, shards: 3, seed: 14")
    assert edited != text
    config.write_text(edited)
    # and the code of Narcotic's report: a reason of its own while the warehouse reruns
    labels = wd / "engines/narcotic/report/labels.py"
    labels.write_text(labels.read_text() + "\n_A_REPORT_EDIT = 1\n")

    env = env_of(wd)
    planned = jobs(snakemake(wd, "-n", "--cores", "2", "--quiet", "host", env_extra=env).stdout)
    run = snakemake(wd, "--cores", "2", "--quiet", "host", env_extra=env)
    done = jobs(run.stdout + run.stderr)

    assert done == planned
    assert {"warehouse", "blackjack_report", "narcotic_report", "report_index"} <= set(planned)
    assert "redblack_report" not in planned, planned
    assert planned.count("blackjack_report") == 1
    assert jobs(snakemake(wd, "-n", "--cores", "2", "--quiet", "host", env_extra=env).stdout) == []
