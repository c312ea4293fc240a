#!/usr/bin/env bash
# Usage: bench/ab_core.sh BIN_A BIN_B [ROUNDS]
# User CPU of two core_run binaries (e.g. the PGO builds of two commits, from
# scripts/pgo_core_run.sh), run one after the other in each round so that both see the
# same machine state, on two 920-s seed-004 runs: manet-tcp seed 1 at 16 kb/s, and
# manet-sctp seed 2 at 64 kb/s and 10 m/s (the heaviest kind of reproduce run). Prints
# one line per run, then the minimum and median per binary and run.
set -euo pipefail
A=$1; B=$2; ROUNDS=${3:-5}
cd "$(dirname "$0")/.."
T=$(mktemp); trap 'rm -f "$T" "$T.all"' EXIT
POINTS=("scenarios/manet-tcp.toml --seed 1"
        "scenarios/manet-sctp.toml --seed 2 --set flows.background.rate=64Kb --set mobility.max_speed=10m/s")
for r in $(seq 1 "$ROUNDS"); do
  for p in 0 1; do
    for side in A B; do
      bin=$A; [ "$side" = B ] && bin=$B
      # shellcheck disable=SC2086
      /usr/bin/time -o "$T" -f "%U" "$bin" ${POINTS[$p]} >/dev/null 2>&1
      echo "round $r point $p $side $(tail -1 "$T")" | tee -a "$T.all"
    done
  done
done
for p in 0 1; do
  for side in A B; do
    awk -v p="$p" -v s="$side" '$4==p && $5==s {print $6}' "$T.all" | sort -n |
      awk -v p="$p" -v s="$side" '{v[NR]=$1} END {printf "point %s %s: min %.2f s, median %.2f s (%d runs)\n", p, s, v[1], v[int((NR+1)/2)], NR}'
  done
done
