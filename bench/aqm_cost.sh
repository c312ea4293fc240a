#!/usr/bin/env bash
# Usage: bench/aqm_cost.sh [BIN] [ROUNDS]
# CPU cost per hop of each queue discipline against drop-tail on bench/aqm_chain.toml
# (8 hops, no drop or mark under any discipline: the same packets cross the same hops).
# Runs every variant once per round, interleaved; prints the minimum user CPU per
# variant, the hops (sum of tx_packets) and the ns per hop.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/examples/core_run}; ROUNDS=${2:-5}
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
VARIANTS=(droptail red codel fq_codel pie)
for v in "${VARIANTS[@]}"; do
  if [ "$v" = droptail ]; then cp bench/aqm_chain.toml "$D/$v.toml"
  else sed "s|^# AQM$|aqm = { kind = \"$v\" }|" bench/aqm_chain.toml > "$D/$v.toml"; fi
done
for r in $(seq 1 "$ROUNDS"); do
  for v in "${VARIANTS[@]}"; do
    /usr/bin/time -o "$D/t" -f "%U" "$BIN" "$D/$v.toml" --seed 1 --summary "$D/$v.json" >/dev/null 2>&1
    echo "$v $(tail -1 "$D/t")" >> "$D/all"
  done
done
for v in "${VARIANTS[@]}"; do
  min=$(awk -v v="$v" '$1==v {print $2}' "$D/all" | sort -n | head -1)
  python3 - "$D/$v.json" "$v" "$min" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
hops = sum(l["tx_packets"] for l in s["links"].values())
drops = sum(l["aqm_drops"] + l["queue_drops"] + l["ecn_marks"] for l in s["links"].values())
cpu = float(sys.argv[3])
print(f"{sys.argv[2]:9s} min user CPU {cpu:.2f} s, {hops} hops, {drops} drops+marks, {cpu / hops * 1e9:.0f} ns/hop")
PY
done
