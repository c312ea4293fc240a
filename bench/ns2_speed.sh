#!/usr/bin/env bash
# Speed against ns-2.35 on equal simulated work (issue 14), ns-2.35 without a trace:
# - TCP-SACK on seed 000's GEO path (bench/seed000-tcp-sack.toml; ns-2:
#   bench/ns2/seed000_tcp.tcl), 1 % loss of data on the satellite link, TCP_S seconds;
# - SCTP (`ns2` preset) on seed 002's path with an 8 Mb/s bottleneck and no loss, SCTP_S
#   seconds (ns-2: python/sctplab/ns2/random_loss.tcl). ns-2.35's Agent/SCTP stops
#   sending in very long runs on slower paths (after some 5,000-20,000 s), so its work
#   is scaled by a faster link instead.
# The packet counts of both simulators on the bottleneck are printed to show the work is
# equal. Each command runs RUNS times, the commands interleaved; the minimum user CPU
# (GNU time) is reported, for the whole process (`sctplab run`, `ns`) and for
# sctplab's core alone (crates/sctplab-bench/examples/core_run: `run_scenario`, what the
# Python binding calls), with events/s and events per packet on the bottleneck.
# Needs ns (Debian package ns2), GNU time, an installed sctplab (the tree's wheel) and
# cargo. The whole process is the console script pip installed (`sctplab` beside the
# interpreter), not a version manager's shim: pyenv's `sctplab` shim is a bash script
# that runs pyenv before Python, about 0.04 s of user CPU that is not sctplab's.
# Instruction counts (callgrind) of the core: CALLGRIND=1 (TCP 5,000 s, SCTP
# 1,000 s).
set -euo pipefail
cd "$(dirname "$0")/.."
TCL=python/sctplab/ns2/random_loss.tcl
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
TCP_S=${TCP_S:-150000}
SCTP_S=${SCTP_S:-10000}
RUNS=${RUNS:-3}
# core_run built as the wheel's extension is: profile-guided unless PGO=0.
CORE=$(bash scripts/pgo_core_run.sh | tail -1)
SCTPLAB=$(python3 -c 'import os, sysconfig; p = os.path.join(sysconfig.get_path("scripts"), "sctplab"); print(p if os.access(p, os.X_OK) else "sctplab")')

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%FT%TZ)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); commit $(git rev-parse --short HEAD); core $CORE; whole $SCTPLAB"
echo "ns: $(dpkg-query -W -f='${Version}' ns2 2>/dev/null || echo unknown); sctplab $(python3 -c 'import sctplab; print(sctplab.__version__)')"

TCP_TOML=bench/seed000-tcp-sack.toml
SCTP_TOML=scenarios/golden/seed002-sctp-newreno-d0.toml
SCTP_SET=(--set "duration=${SCTP_S}s" --set links.r1.bandwidth=8Mb --set flows.sctp1.variant=ns2)
declare -A CMD
CMD[tcp_ns2]="ns bench/ns2/seed000_tcp.tcl 1 $TCP_S"
CMD[tcp_sctplab]="$SCTPLAB run $TCP_TOML --set duration=${TCP_S}s --quiet --out $OUT/tcp"
CMD[tcp_core]="$CORE $TCP_TOML --set duration=${TCP_S}s --summary $OUT/tcp_core.json"
CMD[sctp_ns2]="ns $TCL SCTP 0 1 $SCTP_S 8 - 8Mb"
CMD[sctp_sctplab]="$SCTPLAB run $SCTP_TOML ${SCTP_SET[*]} --quiet --out $OUT/sctp"
CMD[sctp_core]="$CORE $SCTP_TOML ${SCTP_SET[*]} --summary $OUT/sctp_core.json"
ORDER=(tcp_ns2 tcp_sctplab tcp_core sctp_ns2 sctp_sctplab sctp_core)

for r in $(seq "$RUNS"); do
  for k in "${ORDER[@]}"; do
    rm -rf "$OUT/tcp" "$OUT/sctp"
    /usr/bin/time -f "%U" -o "$OUT/$k.$r" ${CMD[$k]} > "$OUT/$k.stdout" 2> "$OUT/$k.stderr" || {
      echo "$k failed:"; cat "$OUT/$k.stderr"; exit 1; }
    tail -1 "$OUT/$k.$r" > "$OUT/$k.$r.u"
  done
done
min() { cat "$OUT/$1".*.u | sort -g | head -1; }
all() { cat "$OUT/$1".*.u | tr '\n' ' '; }

# Packet counts on the bottleneck: ns-2 with a queue monitor, sctplab from its summary.
ns2_tcp_pkts=$(ns bench/ns2/seed000_tcp.tcl 1 "$TCP_S" 1 | sed 's/.*: //')
sed -e 's/^proc finish {} {/proc finish {} {\n    global qm\n    puts "[$qm set pdepartures_]"/' \
    -e 's/^\$ns at \$duration "finish"/set qm [$ns monitor-queue $r1 $k1 ""]\n$ns at $duration "finish"/' \
    "$TCL" > "$OUT/count.tcl"
ns2_sctp_pkts=$(ns "$OUT/count.tcl" SCTP 0 1 "$SCTP_S" 8 - 8Mb)
stat() {  # summary.json, link -> "packets events"
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['links'][sys.argv[2]]['tx_packets'], s['events'])" "$1" "$2"
}
read -r tcp_pkts tcp_events < <(stat "$OUT/tcp_core.json" 'n2->n3')
read -r sctp_pkts sctp_events < <(stat "$OUT/sctp_core.json" 'r1->k1')

echo
echo "| run | packets on the bottleneck (ns-2 / sctplab) | ns-2.35 CPU | sctplab CPU (whole process) | ratio | sctplab core CPU | ratio | core events/s | events per packet |"
echo "|---|---|---|---|---|---|---|---|---|"
row() {  # name label ns2pkts pkts events
  local n=$1 ns2 whole core
  ns2=$(min "${n}_ns2"); whole=$(min "${n}_sctplab"); core=$(min "${n}_core")
  python3 - "$2" "$3" "$4" "$5" "$ns2" "$whole" "$core" <<'PY'
import sys
label, np, p, ev, ns2, whole, core = sys.argv[1:]
ns2, whole, core, ev, p = float(ns2), float(whole), float(core), int(ev), int(p)
print(f"| {label} | {int(np):,} / {p:,} | {ns2:.2f} s | {whole:.2f} s | {ns2/whole:.1f}x | "
      f"{core:.2f} s | {ns2/core:.1f}x | {ev/core/1e6:.1f} M | {ev/p:.2f} |")
PY
}
row tcp "TCP-SACK, seed 000 path, ${TCP_S} s" "$ns2_tcp_pkts" "$tcp_pkts" "$tcp_events"
row sctp "SCTP ns2 preset, 8 Mb/s, ${SCTP_S} s" "$ns2_sctp_pkts" "$sctp_pkts" "$sctp_events"
echo
echo "user CPU of each run (s):"
for k in "${ORDER[@]}"; do echo "  $k: $(all "$k")"; done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "${CALLGRIND:-0}" = 1 ]; then
  for c in "tcp $TCP_TOML --set duration=5000s" "sctp $SCTP_TOML ${SCTP_SET[*]} --set duration=1000s"; do
    set -- $c; name=$1; shift
    ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$CORE" "$@" 2>&1 | awk '/Collected/ {print $4}')
    echo "callgrind Ir, core, $name: $ir"
  done
fi
