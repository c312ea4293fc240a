#!/usr/bin/env bash
# Usage: bench/routing_cost.sh [SEED]
# CPU of one run of the routing study (scenarios/routing.toml: 50 nodes, 900 s, 30 CBR
# sources, pause 0, the costliest pause time) per routing protocol, with the installed
# sctplab (its wheel or editable build), whole process (user + system time of `sctplab
# run`, interpreter start-up included), without and with the ns-2 trace the study reads
# path optimality from; and the trace's size.
set -euo pipefail
cd "$(dirname "$0")/.."
SEED=${1:-1}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf "%-6s %-8s %10s %12s %10s\n" protocol trace cpu_s events trace_MB
for p in aodv dsdv dsr; do
  for tr in none ns2; do
    extra=()
    [ "$tr" = ns2 ] && extra=(--trace ns2)
    out="$TMP/$p-$tr"
    /usr/bin/time -f "%U %S" -o "$TMP/time" sctplab run scenarios/routing.toml --seed "$SEED" \
      --set "wireless.routing=\"$p\"" --out "$out" --quiet "${extra[@]}" >/dev/null 2>&1
    read -r u s <"$TMP/time"
    events=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['events'])" "$out/summary.json")
    mb=0
    [ -f "$out/trace.tr" ] && mb=$(($(stat -c %s "$out/trace.tr") / 1000000))
    printf "%-6s %-8s %10.2f %12s %10s\n" "$p" "$tr" "$(echo "$u + $s" | bc)" "$events" "$mb"
    rm -rf "$out"
  done
done
