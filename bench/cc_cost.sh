#!/usr/bin/env bash
# Usage: bench/cc_cost.sh [CORE_RUN] [REPEATS]
# CPU per data packet of one TCP flow on scenarios/cubic-dumbbell.toml (600 s simulated,
# 0.01 % random loss) with each congestion controller, runs interleaved REPEATS times
# (default 5). CPU is user + system time of the whole core_run process (the run, the
# links, the receiver and its acks included), divided by the flow's data_packets_sent.
# CORE_RUN defaults to a plain release build of this tree's core_run.
# IR=1: instead of CPU time, instructions (valgrind callgrind, deterministic, one run of
# 60 s simulated per controller): the guest's load does not move them.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-}
if [ -z "$BIN" ]; then
  cargo build --release -q -p sctplab-bench --example core_run
  BIN=${CARGO_TARGET_DIR:-target}/release/examples/core_run
fi
N=${2:-5}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
CASES="reno cubic cubic+pacing bbr"
if [ "${IR:-0}" = 1 ]; then
  echo "controller     instructions  packets  instructions/packet  vs reno"
  base=
  for c in $CASES; do
    cc=${c%%+*}
    extra=()
    [ "$c" = "cubic+pacing" ] && extra=(--set flows.bulk.pacing=true)
    ir=$(valgrind --tool=callgrind --callgrind-out-file="$TMP/cg" "$BIN" \
      scenarios/cubic-dumbbell.toml --seed 1 --set duration=60s \
      --set "flows.bulk.congestion_control=\"$cc\"" "${extra[@]}" --summary "$TMP/s.json" 2>&1 |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    n=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['flows']['bulk']['data_packets_sent'])" "$TMP/s.json")
    per=$((ir / n))
    [ -z "$base" ] && base=$per
    printf '%-14s %12s %8s %20s %+8.1f%%\n' "$c" "$ir" "$n" "$per" "$(python3 -c "print(($per / $base - 1) * 100)")"
  done
  exit 0
fi
for i in $(seq "$N"); do
  for c in $CASES; do
    cc=${c%%+*}
    extra=()
    [ "$c" = "cubic+pacing" ] && extra=(--set flows.bulk.pacing=true)
    /usr/bin/time -f "%U %S" -o "$TMP/time" "$BIN" scenarios/cubic-dumbbell.toml --seed "$i" \
      --set duration=600s --set "flows.bulk.congestion_control=\"$cc\"" "${extra[@]}" \
      --summary "$TMP/s.json" >/dev/null 2>&1
    python3 - "$c" "$TMP/time" "$TMP/s.json" >>"$TMP/rows" <<'PY'
import json, sys
case, tfile, sfile = sys.argv[1:]
u, s = map(float, open(tfile).read().split()[-2:])
f = json.load(open(sfile))["flows"]["bulk"]
n = f["data_packets_sent"]
print(case, u + s, n, (u + s) / n * 1e9)
PY
  done
done
python3 - "$TMP/rows" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
cases = []
for r in rows:
    if r[0] not in cases:
        cases.append(r[0])
base = None
print(f"{'controller':14} {'runs':>4} {'packets/run':>12} {'ns/packet median':>17} {'min':>8} {'vs reno':>8}")
for c in cases:
    ns = [float(r[3]) for r in rows if r[0] == c]
    pk = statistics.median(float(r[2]) for r in rows if r[0] == c)
    med = statistics.median(ns)
    if base is None:
        base = med
    print(f"{c:14} {len(ns):>4} {pk:>12.0f} {med:>17.0f} {min(ns):>8.0f} {med / base - 1:>+8.1%}")
PY
