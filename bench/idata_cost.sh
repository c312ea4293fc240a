#!/usr/bin/env bash
# Usage: bench/idata_cost.sh [BIN] [SECONDS]
# Instructions per DATA packet of a bulk SCTP association with I-DATA
# (`interleaving = true`) against DATA, on scenarios/cmt.toml with `cmt = false` (one
# 2 Mb/s path, ns2 preset, no loss; the bulk application, so I-DATA changes the chunk
# header and the numbering, not the order; 1448-byte messages, one chunk a packet with
# either header). callgrind's instruction count (Ir) of the
# whole core_run process, which does not depend on the machine's load as CPU time on a
# shared guest does; SECONDS of simulated time (default 600). Prints Ir, data packets
# sent and Ir per packet for each, then I-DATA's cost relative to DATA (issue 36 asks
# for at most +10 %).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/examples/core_run}; SECS=${2:-600}
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
for v in false true; do
  valgrind --tool=callgrind --callgrind-out-file="$D/cg.$v" "$BIN" scenarios/cmt.toml --seed 1 \
    --set duration=${SECS}s --set measure.start=0s --set flows.sctp1.cmt=false \
    --set flows.sctp1.interleaving=$v --set flows.sctp1.message_size=1448B --summary "$D/$v.json" >/dev/null 2>"$D/err.$v"
  ir=$(awk '/^summary:/ {print $2}' "$D/cg.$v")
  python3 - "$D/$v.json" "$v" "$ir" <<'PY' | tee -a "$D/per"
import json, sys
f = json.load(open(sys.argv[1]))["flows"]["sctp1"]
ir, pkts = int(sys.argv[3]), f["data_packets_sent"]
print(f"interleaving={sys.argv[2]:5s} {ir} Ir, {pkts} data packets, {ir / pkts:.0f} Ir/packet, "
      f"negotiated={f.get('interleaving_negotiated')}, delivered {f['delivered_bytes']} B")
PY
done
awk '{for (i = 1; i <= NF; i++) if ($i == "Ir/packet,") v[NR] = $(i - 1)} END {printf "I-DATA / DATA per packet: %.3f\n", v[2] / v[1]}' "$D/per"
