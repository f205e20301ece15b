#!/usr/bin/env bash
# One call on a lent GPU machine (the `device` tool): versions, then bench/redblack_gpu.py's
# checks, speeds, the full deck's GPU-hours and as many campaign shards of size K as fit; every
# output under $OUT (the bench's log and JSON, the kept measurement, and the finished shards with
# their timing records and logs at their own paths, $OUT/results/...: copy that results/ over the
# project's as it is, then `cardlab redblack campaign K --keep`).
# Usage: [SHARDS_ONLY=1] bash bench/redblack_gpu_device.sh [SECONDS [K [DEALS_PER_SHARD]]]
#   SECONDS: the bench starts no shard that would end later (default 400), and is stopped at
#   SECONDS + 120 whatever it is doing (so the copy below still runs: give the device call a
#   timeout of at least SECONDS + 180); K: the campaign (default 23); DEALS_PER_SHARD: its grid
#   where no shard or config block gives one yet. SHARDS_ONLY=1: no checks, no CPU timings, no
#   cost windows and no kept measurement, only one k = 23 window of a launch's size (to price
#   the first shard) and then the shards: a second call in one session.
# numba-cuda 0.30.4 needs a numpy with np.row_stack (< 2.5): where the machine has a newer one,
# carry the pinned numpy wheel and put it first in PYTHONPATH (this script keeps PYTHONPATH).
set -u
OUT=${OUT:-/tmp/out}
K=${2:-23}
SIZE=$(printf "exhaustive_k%02d" "$K") # the experiment names the size with two digits
mkdir -p "$OUT"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  python3 -c 'import numba, numpy, pyarrow, numba_cuda; print("numba", numba.__version__, "numba-cuda", numba_cuda.__version__, "numpy", numpy.__version__, "pyarrow", pyarrow.__version__)'
  grep -m1 "model name" /proc/cpuinfo
} 2>&1 | tee "$OUT/bench.log"
shards() { find results/redblack -name 'shard=*.parquet' -path "*${SIZE}/*" | sort; }
before=$(shards)
if [ "${SHARDS_ONLY:-0}" = 1 ]; then
  measure=(--no-cpu --k23-windows 1 --k23-window 1073741824 --k26-windows 1 --k26-deals 1000000)
else
  measure=(--check --k23-windows 8 --k23-window 25000000 --cost-window 1073741824 --keep "$OUT/measurement.json")
fi
timeout --signal=INT $(( ${1:-400} + 120 )) python3 bench/redblack_gpu.py "${measure[@]}" \
  --shards 100000 --k "$K" ${3:+--deals-per-shard "$3"} --until "${1:-400}" \
  --json "$OUT/gpu.json" 2>&1 | tee -a "$OUT/bench.log"
new=$(comm -13 <(echo "$before") <(shards))
if [ -n "$new" ]; then
  kept=$(for f in $new; do n=$(basename "$f" .parquet)
    echo "results/timings/redblack/${SIZE}/owner/$n.json results/logs/redblack/${SIZE}/owner/$n.log"
  done | tr ' ' '\n' | sort -u)
  cp --parents $new $kept "$OUT/" && echo "copied $(echo "$new" | wc -l) shard files with their timing records to $OUT/results"
fi
