#!/usr/bin/env bash
# Local sweep throughput against the number of worker processes: the same 40 runs
# (seed 002's SACK path with 1 % loss, 10,000 simulated seconds each, 40 seeds) into a
# fresh store each time, with --jobs 1 .. nproc. Needs hyperfine and an installed sctplab.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
args=()
for j in $(seq 1 "$(nproc)"); do
  args+=(-n "jobs=$j" "sctplab sweep scenarios/golden/seed002-tcp-sack-d0.toml --grid 'duration=[\"10000s\"]' --grid 'links.r1.loss.rate=[0.01]' --seeds 40 --jobs $j --quiet --store $OUT/store")
done
# Every timed run starts from an empty store, so nothing is reused.
hyperfine --runs "${RUNS:-3}" --prepare "rm -rf $OUT/store" "${args[@]}"
