#!/usr/bin/env bash
# Usage: refcheck.sh TREE OUTDIR
# Builds TREE's core_run (release, profile-guided as the wheel; PGO=0: plain) and writes summary.json of the reference set into OUTDIR.
# Compare two OUTDIRs with bench/refcheck_cmp.sh A B (e.g. a commit before a speed step and after it).
set -euo pipefail
TREE=$1; OUT=$2
mkdir -p "$OUT"
# The core as the wheel ships it: profile-guided (scripts/pgo_core_run.sh; PGO=0 for the
# plain build). Trees from before that script get the plain build.
if [ -f "$TREE/scripts/pgo_core_run.sh" ]; then
  BIN=$(bash "$TREE/scripts/pgo_core_run.sh" | tail -1)
else
  (cd "$TREE" && cargo build --release -q -p sctplab-bench --example core_run)
  BIN=$TREE/target/release/examples/core_run
fi
S=$TREE/scenarios
for f in $S/*.toml $S/golden/*.toml; do
  b=$(basename "$f" .toml)
  case $b in manet*) continue;; esac
  "$BIN" "$f" --seed 1 --summary "$OUT/$b.json" 2>/dev/null
done
for p in tcp sctp; do
  for seed in 1 2 3; do
    "$BIN" $S/manet-$p.toml --seed $seed --set duration=200s --set measure.end=200s --set flows.transport.stop=200s --summary "$OUT/manet-$p-200-s$seed.json" 2>/dev/null
  done
  "$BIN" $S/manet-$p.toml --seed 1 --summary "$OUT/manet-$p-920-s1.json" 2>/dev/null
done
"$BIN" $S/manet-sctp.toml --seed 1 --set flows.background.rate=64Kb --set duration=200s --set measure.end=200s --set flows.transport.stop=200s --summary "$OUT/manet-sctp-64k-200-s1.json" 2>/dev/null
"$BIN" $S/manet-sctp.toml --seed 2 --set nodes.n0.wlan=2 --set nodes.n1.wlan=2 --set duration=200s --set measure.end=200s --set flows.transport.stop=200s --summary "$OUT/manet-sctp-mh-200-s2.json" 2>/dev/null
"$BIN" $S/manet-tcp.toml --seed 2 --set 'mobility.fixed=["n0","n1"]' --set duration=200s --set measure.end=200s --set flows.transport.stop=200s --summary "$OUT/manet-tcp-fixed-200-s2.json" 2>/dev/null
echo "wrote $(ls "$OUT" | wc -l) summaries to $OUT"
