"""Test-only: caps the SLURM executor's pause between two status checks (tests/test_slurm_real.py
puts this directory first on the PYTHONPATH of the snakemake it starts; nothing else imports it).

snakemake-executor-plugin-slurm 2.8.0 adds 10 s to the pause after every check that finds no job
finished (up to 180 s), and has no option for it: right for 10-60 minute shards, but the test's jobs
last seconds, and each job's end was noticed up to 30 s late.  Only the pause is capped; which
command is asked and what is done with each state is the plugin's own.

Python imports one sitecustomize, the first on the path: this one then runs the next one there
(tests/hooks/sitecustomize.py, the barrier, where a test puts it on the path too)."""

import importlib.util
import os
import sys

CAP_S = 1  # the test's --seconds-between-status-checks


def _cap_status_check_pause() -> None:
    from snakemake_interface_executor_plugins.executors.remote import RemoteExecutor

    pause = RemoteExecutor.next_seconds_between_status_checks

    def capped(self, value):
        pause.fset(self, min(value, CAP_S))

    RemoteExecutor.next_seconds_between_status_checks = pause.setter(capped)


def _run_next_sitecustomize() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        candidate = os.path.join(entry, "sitecustomize.py")
        if entry and os.path.abspath(entry) != here and os.path.isfile(candidate):
            spec = importlib.util.spec_from_file_location("_next_sitecustomize", candidate)
            spec.loader.exec_module(importlib.util.module_from_spec(spec))
            return


if os.path.basename(sys.argv[0]) == "snakemake":  # the run's own snakemake, not the one inside a job
    try:
        _cap_status_check_pause()
    except ImportError:  # a snakemake without executor plugins: nothing to cap
        pass
_run_next_sitecustomize()
