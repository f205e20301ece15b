#!/usr/bin/env bash
# A stand-in batch scheduler for the cluster test (tests/test_cluster.py), used by the
# cluster-generic executor: it starts the jobscript as its own process, in a new
# session with a scrubbed environment, and prints a job id.  Jobs share nothing with
# the submitting snakemake but the files of the working directory, as on a cluster.
# PYTHONPATH is passed on like a cluster's module environment (the tests point it at
# a snapshot of the engines).
set -euo pipefail
jobscript="${!#}"
logdir=".snakemake/local-cluster"
mkdir -p "$logdir"
id="local-$$-${RANDOM}"
setsid env -i PATH="/usr/local/bin:/usr/bin:/bin" HOME="${HOME:-/tmp}" LANG=C.UTF-8 \
    ${PYTHONPATH:+PYTHONPATH="$PYTHONPATH"} \
    bash "$jobscript" > "$logdir/$id.log" 2>&1 < /dev/null &
echo "$id"
