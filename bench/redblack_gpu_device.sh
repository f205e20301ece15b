#!/usr/bin/env bash
# One call on a lent GPU machine (the `device` tool): versions, then bench/redblack_gpu.py's
# checks, speeds, the full deck's GPU-hours and as many k = 23 campaign shards as fit; every
# output under $OUT (the bench's log and JSON, the finished shards with their logs as one tar).
# Usage: bash bench/redblack_gpu_device.sh SECONDS   (the bench starts no shard past SECONDS)
# numba-cuda 0.30.4 needs a numpy with np.row_stack (< 2.5): carry the pinned numpy wheel in
# PYTHONPATH where the machine has a newer one.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  python3 -c 'import numba, numpy, pyarrow, numba_cuda; print("numba", numba.__version__, "numba-cuda", numba_cuda.__version__, "numpy", numpy.__version__, "pyarrow", pyarrow.__version__)'
  grep -m1 "model name" /proc/cpuinfo
} 2>&1 | tee "$OUT/bench.log"
before=$(find results/redblack -name 'shard=*.parquet' -path '*exhaustive_k23*' | sort)
python3 bench/redblack_gpu.py --check --k23-windows 8 --k23-window 25000000 --cost-window 20000000 \
  --shards 58 --until "${1:-400}" --json "$OUT/gpu.json" --keep "$OUT/measurement.json" 2>&1 | tee -a "$OUT/bench.log"
after=$(find results/redblack -name 'shard=*.parquet' -path '*exhaustive_k23*' | sort)
new=$(comm -13 <(echo "$before") <(echo "$after"))
if [ -n "$new" ]; then
  logs=$(for f in $new; do n=$(basename "$f" .parquet); echo "results/logs/redblack/exhaustive_k23/owner/$n.log"; done | sort -u)
  tar cf "$OUT/k23-gpu-shards.tar" $new $logs && echo "tarred $(echo "$new" | wc -l) files"
fi
