#!/usr/bin/env bash
# Usage: bench/cmt_cost.sh [BIN] [ROUNDS]
# CPU per delivered DATA packet of CMT-SCTP against single-path SCTP on
# scenarios/cmt.toml (two disjoint 2 Mb/s paths, ns2 preset; `cmt = false` sends to one
# path, so it delivers about half the packets in the same simulated time). 6000 s of
# simulated time, no loss; each variant once per round, interleaved; prints the minimum
# user CPU per variant, the DATA packets delivered (1452-byte messages) and the ns per
# delivered packet, then CMT's cost relative to single path (issue 35 asks for at most
# +20 %).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/examples/core_run}; ROUNDS=${2:-5}
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
for r in $(seq 1 "$ROUNDS"); do
  for v in true false; do
    /usr/bin/time -o "$D/t" -f "%U" "$BIN" scenarios/cmt.toml --seed 1 --set duration=6000s \
      --set measure.start=0s --set flows.sctp1.cmt=$v --summary "$D/$v.json" >/dev/null 2>&1
    echo "$v $(tail -1 "$D/t")" >> "$D/all"
  done
done
for v in true false; do
  min=$(awk -v v="$v" '$1==v {print $2}' "$D/all" | sort -n | head -1)
  python3 - "$D/$v.json" "$v" "$min" <<'PY' | tee -a "$D/per"
import json, sys
s = json.load(open(sys.argv[1]))
pkts = s["flows"]["sctp1"]["delivered_bytes"] // 1452
cpu = float(sys.argv[3])
print(f"cmt={sys.argv[2]:5s} min user CPU {cpu:.2f} s, {pkts} packets delivered, {cpu / pkts * 1e9:.0f} ns/packet")
PY
done
awk '{gsub("ns/packet",""); v[NR]=$(NF)} END {printf "CMT / single path per delivered packet: %.3f\n", v[1]/v[2]}' "$D/per"
