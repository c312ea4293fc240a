#!/usr/bin/env bash
# Usage: bench/aqm_refcheck.sh BIN OUTDIR
# Summaries of the AQM reference set (bench/refcheck.sh has no AQM scenario): the 144
# dumbbell cases of bench/aqm_refset.py, seed 000's satellite path with each discipline
# with and without ECN, and bench/aqm_chain.toml under each discipline (10 s). Compare two
# OUTDIRs with `diff -r` (every summary must be byte-identical after a speed step).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$1; OUT=$2
mkdir -p "$OUT"
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
python3 bench/aqm_refset.py "$D"
for f in "$D"/*.toml; do
  "$BIN" "$f" --seed 3 --summary "$OUT/$(basename "$f" .toml).json" >/dev/null 2>&1
done
for a in red codel fq_codel pie; do
  for e in false true; do
    "$BIN" scenarios/satellite.toml --seed 2 --set duration=100s --set "links.l2.aqm={kind=\"$a\",ecn=$e}" \
      --set flows.tcp.ecn=$e --set flows.sctp.ecn=$e --summary "$OUT/sat-$a-$e.json" >/dev/null 2>&1
  done
done
for v in droptail red codel fq_codel pie; do
  sed -e 's/^duration = "100s"/duration = "10s"/' bench/aqm_chain.toml > "$D/chain.toml"
  [ "$v" = droptail ] || sed -i "s|^# AQM$|aqm = { kind = \"$v\" }|" "$D/chain.toml"
  "$BIN" "$D/chain.toml" --seed 1 --summary "$OUT/chain-$v.json" >/dev/null 2>&1
done
echo "wrote $(ls "$OUT" | wc -l) summaries to $OUT"
