#!/usr/bin/env bash
# Instructions per run of a local sweep's driver and worker (issue 14), user space only.
#
# Runs `sctplab sweep SCENARIO --seeds N --jobs 1` under callgrind --trace-children=yes
# for N = 1 and N = 1 + RUNS into a store on tmpfs, sums each process's instructions by
# role (the driver, the worker: its command line has `_worker_main`), and prints the
# difference per run. The core's own share of a worker's count is `_core.run` on the
# same runs in one process (the last line; subtract it from the worker's per-run count).
#
#   bench/sweep_callgrind.sh [SCENARIO] [RUNS]     (defaults: example-cbr, 200)
#   PYTHON=/tmp/venv/bin/python bench/sweep_callgrind.sh ...   another install
#
# Under callgrind a sweep runs ~50 times slower, so the driver's 0.5-s flush makes a
# timing-dependent number of catalog transactions: its per-run count moves by ~0.04M.
set -euo pipefail
scenario=${1:-scenarios/example-cbr.toml}
runs=${2:-200}
# The interpreter itself, not a wrapper that execs it (pyenv's shim), which callgrind
# would follow only with --trace-children.
python=$("${PYTHON:-python3}" -c 'import sys; print(sys.executable)')
work=$(mktemp -d /dev/shm/sweep-cg.XXXXXX)
trap 'rm -rf "$work"' EXIT

sweep() {  # $1: seeds; prints "driver_Ir worker_Ir"
  local dir="$work/n$1"
  mkdir -p "$dir"
  valgrind --tool=callgrind --trace-children=yes -q \
    --callgrind-out-file="$dir/cg.%p" \
    "$python" -m sctplab.cli sweep "$scenario" --seeds "$1" --jobs 1 \
    --store "$dir/store" --quiet >/dev/null
  local d=0 w=0 f cmd ir
  for f in "$dir"/cg.*; do
    cmd=$(sed -n 's/^cmd: //p' "$f" | head -1)
    ir=$(sed -n 's/^summary: //p' "$f" | head -1)
    if [[ $cmd == *_worker_main* ]]; then w=$((w + ir)); else d=$((d + ir)); fi
  done
  echo "$d $w"
}

read -r d1 w1 < <(sweep 1)
read -r dn wn < <(sweep $((runs + 1)))
core=$(valgrind --tool=callgrind -q --callgrind-out-file="$work/core.cg" "$python" -c "
import sys
from sctplab import _core
from sctplab.sweeps import plan
runs = plan('$scenario', {}, $runs)[3]
for r in runs:
    t = r.task
    _core.run(t.text, is_json=t.is_json, source=t.source, default_name=t.default_name,
              sets=list(t.sets), seed=t.seed)
" >/dev/null; sed -n 's/^summary: //p' "$work/core.cg")
# The same plan without the runs: planning costs ~0.06-0.08M Ir per run, which is the
# driver's (counted there), not the core's (before session 7 the base planned one run,
# so the core's count included it and the worker's "outside" count lacked it).
base=$(valgrind --tool=callgrind -q --callgrind-out-file="$work/base.cg" "$python" -c "
from sctplab import _core
from sctplab.sweeps import plan
runs = plan('$scenario', {}, $runs)[3]
for r in runs:
    t = r.task
    list(t.sets)
" >/dev/null; sed -n 's/^summary: //p' "$work/base.cg")
awk -v d1="$d1" -v w1="$w1" -v dn="$dn" -v wn="$wn" -v n="$runs" -v c="$core" -v b="$base" 'BEGIN {
  core = (c - b) / n; dr = (dn - d1) / n; wr = (wn - w1) / n
  printf "fixed (one run): driver %.1fM, worker %.1fM Ir\n", d1 / 1e6, w1 / 1e6
  printf "per run: driver %.3fM, worker %.3fM (core %.3fM, outside it %.3fM) Ir\n", dr / 1e6, wr / 1e6, core / 1e6, (wr - core) / 1e6
  printf "per-run overhead / core: %.1f %%\n", 100 * (dr + wr - core) / core
  if (wr < core) print "WARNING: the worker counted less than the core: its profile is cut short (the driver kills a worker that takes over 5 s to exit, as under callgrind on a loaded machine); measure again"
}'
