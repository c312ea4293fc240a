#!/usr/bin/env bash
# docs/sweeps.md's throughput table: `sctplab sweep` runs per second with --jobs 1 and
# --jobs 2 on three kinds of run, each into a fresh store, as the sweep's last line
# reports it (its own wall time, without the interpreter's start), then the same sweep
# again into the complete store (nothing to run). Prints the date, the load and the
# commit: measure on an idle machine, other load takes cores from the workers.
set -euo pipefail
cd "$(dirname "$0")/.."
SCTPLAB=${SCTPLAB:-sctplab}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "$(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
sweep() {
  local label=$1 jobs=$2 seeds=$3 scenario=$4 duration=$5
  local store="$OUT/$label-$jobs"
  # shellcheck disable=SC2086  # SCTPLAB may be a command with arguments
  line=$($SCTPLAB sweep "$scenario" --grid "duration=[\"$duration\"]" --seeds "$seeds" \
    --jobs "$jobs" --store "$store" 2>/dev/null | tail -1)
  echo "$label, $seeds runs, --jobs $jobs: $line"
}
for jobs in 1 2; do
  sweep cbr-2s "$jobs" 1000 scenarios/example-cbr.toml 2s
  sweep tcp-60s "$jobs" 200 scenarios/example-tcp.toml 60s
  sweep cbr-5000s "$jobs" 40 scenarios/example-cbr.toml 5000s
done
# shellcheck disable=SC2086
again=$(/usr/bin/time -f "%e" $SCTPLAB sweep scenarios/example-tcp.toml --grid 'duration=["60s"]' \
  --seeds 200 --jobs 2 --store "$OUT/tcp-60s-2" --quiet 2>&1 >/dev/null | tail -1)
echo "tcp-60s again, store complete: ${again} s wall, interpreter start included"
