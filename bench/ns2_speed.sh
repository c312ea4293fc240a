#!/usr/bin/env bash
# Speed against ns-2.35 on equal simulated work (CONTRACTS.md "Validation and
# benchmarks"), run long enough that one ns-2 run takes at least 5 s of CPU. Whole
# process against whole process (hyperfine), plus sctplab's core-only time from run.json.
# - TCP-SACK on seed 002's path (0.8 Mb/s bottleneck) with 1 % random loss of data;
# - SCTP (ns2 preset) on the same path with an 8 Mb/s bottleneck and no loss: ns-2.35's
#   Agent/SCTP stops sending in very long runs on the 0.8 Mb/s path (after about
#   19,000 s without loss, sooner with loss), so its work is scaled by a faster link
#   instead. The packet counts of both simulators are printed to show the work is equal.
# Needs ns (Debian package ns2), hyperfine and an installed sctplab.
set -euo pipefail
cd "$(dirname "$0")/.."
TCL=python/sctplab/ns2/random_loss.tcl
OUT=$(mktemp -d)
TCP_S=${TCP_S:-60000}
SCTP_S=${SCTP_S:-10000}
RUNS=${RUNS:-3}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
echo "ns: $(dpkg-query -W -f='${Version}' ns2 2>/dev/null || echo unknown); sctplab $(python3 -c 'import sctplab; print(sctplab.__version__)')"

hyperfine --runs "$RUNS" --export-markdown "$OUT/tcp.md" \
  -n "ns-2.35 TCP/Sack1, ${TCP_S} s" "ns $TCL Sack1 0.01 1 $TCP_S 8 -" \
  -n "sctplab tcp sack, ${TCP_S} s" \
  "sctplab run scenarios/golden/seed002-tcp-sack-d0.toml --set duration=${TCP_S}s --set links.r1.loss.rate=0.01 --quiet --out $OUT/tcp"
hyperfine --runs "$RUNS" --export-markdown "$OUT/sctp.md" \
  -n "ns-2.35 Agent/SCTP, 8 Mb/s, ${SCTP_S} s" "ns $TCL SCTP 0 1 $SCTP_S 8 - 8Mb" \
  -n "sctplab sctp ns2 preset, 8 Mb/s, ${SCTP_S} s" \
  "sctplab run scenarios/golden/seed002-sctp-newreno-d0.toml --set duration=${SCTP_S}s --set links.r1.bandwidth=8Mb --set flows.sctp1.variant=ns2 --quiet --out $OUT/sctp"
cat "$OUT/tcp.md" "$OUT/sctp.md"
for f in tcp sctp; do
  python3 -c "import json; r=json.load(open('$OUT/$f/run.json')); s=json.load(open('$OUT/$f/summary.json')); print('$f core-only:', round(r['wall_time_s'],3), 's,', round(r['events_per_s']/1e6,2), 'M events/s; sctplab packets on R1->K1:', s['links']['r1->k1']['tx_packets'])"
done
# ns-2's packet counts for the same runs (a queue monitor on R1->K1).
for args in "Sack1 0.01 1 $TCP_S 8" "SCTP 0 1 $SCTP_S 8"; do
  extra=""; [ "${args%% *}" = SCTP ] && extra="8Mb"
  sed -e 's/^proc finish {} {/proc finish {} {\n    global qm\n    puts "ns-2 packets on R1->K1: [$qm set pdepartures_]"/' \
      -e 's/^\$ns at \$duration "finish"/set qm [$ns monitor-queue $r1 $k1 ""]\n$ns at $duration "finish"/' "$TCL" > "$OUT/count.tcl"
  echo "${args%% *}: $(ns "$OUT/count.tcl" $args - $extra)"
done
rm -rf "$OUT"
