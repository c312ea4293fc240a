#!/usr/bin/env bash
# Local sweep throughput against the number of worker processes (issue 14: two workers
# on two cores at 1.9x or better): the same 40 runs (seed 002's SACK path with 1 % loss,
# 10,000 simulated seconds each, 40 seeds) into a fresh store each time, with --jobs 1 ..
# nproc, the settings interleaved in each round. Prints every run's wall and CPU time,
# then per setting the mean and minimum wall time and the speedup against --jobs 1.
# Needs an installed sctplab (or SCTPLAB="python -m sctplab.cli"); RUNS rounds
# (default 3); MAX_JOBS caps the settings (default nproc). Measure on an idle machine:
# other load takes cores from the workers and the speedup says nothing. The default
# SCTPLAB is the console script pip installed beside python3, not a version manager's
# shim (pyenv's is a bash script that runs pyenv first: ~0.04 s more of every sweep's
# fixed start, which is not sctplab's), as in bench/ns2_speed.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
SCTPLAB=${SCTPLAB:-$(python3 -c 'import os, sysconfig; p = os.path.join(sysconfig.get_path("scripts"), "sctplab"); print(p if os.access(p, os.X_OK) else "sctplab")')}
RUNS=${RUNS:-3}
MAX_JOBS=${MAX_JOBS:-$(nproc)}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
echo "sweep: scenarios/golden/seed002-tcp-sack-d0.toml, duration 10000s, loss 1 %, 40 seeds; $SCTPLAB"
RESULTS="$OUT/results"
: >"$RESULTS"
for round in $(seq 1 "$RUNS"); do
  for j in $(seq 1 "$MAX_JOBS"); do
    store="$OUT/store-$round-$j"
    # shellcheck disable=SC2086  # SCTPLAB may be a command with arguments
    /usr/bin/time -f "%e %U %S" -o "$OUT/time" $SCTPLAB sweep scenarios/golden/seed002-tcp-sack-d0.toml \
      --grid 'duration=["10000s"]' --grid 'links.r1.loss.rate=[0.01]' --seeds 40 \
      --jobs "$j" --quiet --store "$store" >/dev/null
    read -r wall user sys <"$OUT/time"
    ran=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"select count(*) from runs where status='ok'\").fetchone()[0])" "$store/catalog.sqlite")
    [ "$ran" = 40 ] || { echo "jobs=$j: $ran of 40 runs recorded" >&2; exit 1; }
    # A fresh store per run, so nothing is reused; all are deleted at the end.
    echo "$j $wall $user $sys" >>"$RESULTS"
    echo "round $round jobs=$j: wall $wall s, CPU user $user s sys $sys s"
  done
done
rm -rf "$OUT"/store-*
awk '
  { n[$1]++; w[$1] += $2; c[$1] += $3 + $4; if (!($1 in m) || $2 < m[$1]) m[$1] = $2 }
  END {
    for (j = 1; j in n; j++) {
      line = sprintf("jobs=%d: wall mean %.2f s, min %.2f s, CPU mean %.2f s, %.2f runs/s",
                     j, w[j] / n[j], m[j], c[j] / n[j], 40 / (w[j] / n[j]))
      if (j > 1)
        line = line sprintf("; speedup vs jobs=1: %.2fx (means), %.2fx (minima)",
                            (w[1] / n[1]) / (w[j] / n[j]), m[1] / m[j])
      print line
    }
  }' "$RESULTS"
