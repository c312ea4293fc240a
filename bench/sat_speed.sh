#!/usr/bin/env bash
# Issue 39's speed measures (bench/RESULTS.md, "Satellites in the run loop"):
# 1. the ns-2.35 comparison scenario of `validate ns2` (python/sctplab/ns2/satellite.tcl,
#    TCP SACK over the 6 x 11 polar constellation, and the UDP probe): CPU of the whole
#    process, ns-2.35 (no trace) and sctplab's core_run (no trace), REPS runs each;
# 2. the Starlink-like shell of bench/sat_shell.py (72 x 22, 100 stations, 10 TCP flows,
#    200 s) in core_run.
# Usage: bash bench/sat_speed.sh [REPS]   (needs `ns` and the sctplab package installed)
set -euo pipefail
REPS=${1:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
(cd "$ROOT" && cargo build --release -q -p sctplab-bench --example core_run)
BIN=$ROOT/target/release/examples/core_run
TCL=$ROOT/python/sctplab/ns2/satellite.tcl
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for spec in "tcp 600" "tcp 200" "cbr 6100"; do
  set -- $spec
  python -c "from sctplab.validation.satellite import scenario; print(scenario('$1', $2))" > "$T/$1-$2.toml"
  for r in $(seq "$REPS"); do
    /usr/bin/time -f "ns-2.35 $1 $2 s: %U user %S sys" ns "$TCL" "$1" "$2" none 2>&1 | tail -1
    /usr/bin/time -f "sctplab $1 $2 s: %U user %S sys" "$BIN" "$T/$1-$2.toml" 2>&1 | tail -1
  done
done
python "$ROOT/bench/sat_shell.py" > "$T/shell.toml"
for r in $(seq "$REPS"); do
  /usr/bin/time -f "sctplab shell 72x22, 100 stations, 10 TCP, 200 s: %U user %S sys" \
    "$BIN" "$T/shell.toml" --summary "$T/shell.json" 2>&1 | tail -2
done
