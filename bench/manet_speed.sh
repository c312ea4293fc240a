#!/usr/bin/env bash
# Speed of one 920-s run of seed 004's MANET scenario (scenarios/manet-tcp.toml: 46 nodes,
# 802.11, AODV, 10 CBR flows and one TCP-SACK transfer), whole process against whole
# process, on one ns-2 setdest movement file that both simulators replay:
#
#   1. sctplab movement scenarios/manet-tcp.toml --seed $SEED   -> $OUT/setdest.tcl
#   2. sctplab run scenarios/manet-tcp.toml --set mobility.file=$OUT/setdest.tcl
#   3. ns-2.35 on the same file (see the marked block below)
#
# Each command runs $RUNS times under GNU time: elapsed, user and system CPU seconds and
# peak resident memory (max RSS). The target (issue): sctplab's CPU at most 1/10 of
# ns-2.35's (aim 1/20) and its peak memory at most twice ns-2's.
# Needs an installed sctplab (pip install -c constraints.txt .: profile-guided unless
# SCTPLAB_PGO=0, see docs/architecture.md "Build") and /usr/bin/time. The sctplab timed is
# the console script pip installed beside the interpreter, not a version manager's shim
# (pyenv's runs pyenv first, about 0.04 s of CPU that is not sctplab's).
# Environment: RUNS (default 3), SEED (1), DURATION (920s), ROUTING (aodv; dsdv runs both
# simulators' DSDV), NS2_TCL, NS2_CMD (see below).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
SEED=${SEED:-1}
DURATION=${DURATION:-920s}
ROUTING=${ROUTING:-aodv}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
MOVE=$OUT/setdest.tcl
SCTPLAB=$(python3 -c 'import os, sysconfig; p = os.path.join(sysconfig.get_path("scripts"), "sctplab"); print(p if os.access(p, os.X_OK) else "sctplab")')

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M UTC')"
echo "sctplab $(python3 -c 'import sctplab; print(sctplab.__version__)' 2>/dev/null || echo '?'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

sctplab movement scenarios/manet-tcp.toml --seed "$SEED" --out "$MOVE"
echo "movement file: $(grep -c setdest "$MOVE") setdest lines, seed $SEED, routing $ROUTING"

# time_runs NAME CMD...: prints one line per run and the minimum CPU (user + system).
time_runs() {
  local name=$1
  shift
  local best=""
  for i in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %U %S %M" -o "$OUT/time" "$@" > "$OUT/stdout" 2> "$OUT/stderr" || {
      echo "$name: run $i failed"; cat "$OUT/stderr"; return 1; }
    read -r wall user sys rss < "$OUT/time"
    cpu=$(python3 -c "print(f'{$user + $sys:.2f}')")
    echo "$name run $i: wall ${wall} s, cpu ${cpu} s (user ${user}, sys ${sys}), max RSS $((rss / 1024)) MiB"
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $cpu < $best else 1)"; then
      best=$cpu
      echo "$rss" > "$OUT/$name.rss"
    fi
  done
  echo "$best" > "$OUT/$name.cpu"
  echo "$name: min cpu ${best} s"
}

time_runs sctplab "$SCTPLAB" run scenarios/manet-tcp.toml --seed "$SEED" \
  --set "duration=$DURATION" --set "measure.end=$DURATION" \
  --set "mobility.file=$MOVE" --set "wireless.routing=$ROUTING" --quiet --out "$OUT/run"
python3 -c "
import json
r = json.load(open('$OUT/run/run.json'))
s = json.load(open('$OUT/run/summary.json'))
print('sctplab events:', s['events'], '| core-only wall', round(r['wall_time_s'], 2), 's,',
      round(r['events_per_s'] / 1e6, 1), 'M events/s')
"

# ---- ns-2.35 on the same movement file ----------------------------------------------
# >>> PLACE FOR ns-2.35's TIME <<<
# python/sctplab/ns2/manet.tcl (`ns manet.tcl TRANSPORT MOVEMENT PAIRS SEED STOP TRACE`)
# replays the movement file with the CBR pairs of sctplab's run (as `sctplab validate`
# does); NS2_TCL points elsewhere if needed. ns-2's own seed only drives its MAC backoff
# and AODV jitter. NS2_CMD, if set, replaces the whole command ({MOVE} and {PAIRS} are
# substituted).
NS2_TCL=${NS2_TCL:-python/sctplab/ns2/manet.tcl}
PAIRS=$OUT/pairs.txt
python3 -c "
import json
s = json.load(open('$OUT/run/summary.json'))
# Node nK is declared K-th in the scenario: node K in ns-2.
rows = [(int(f['from'][1:]), int(f['to'][1:]), float(f['start_s']))
        for name, f in s['flows'].items() if name.startswith('background.')]
open('$PAIRS', 'w').write(''.join(f'{a} {b} {t!r}\\n' for a, b, t in rows))
print('CBR pairs for ns-2:', len(rows))
"
if [ -z "${NS2_CMD:-}" ] && [ -f "$NS2_TCL" ] && command -v ns > /dev/null; then
  NS2_CMD="ns $NS2_TCL tcp {MOVE} {PAIRS} $SEED ${DURATION%s} - ${ROUTING^^}"
fi
if [ -n "${NS2_CMD:-}" ]; then
  NS2_CMD=${NS2_CMD//\{MOVE\}/$MOVE}
  NS2_CMD=${NS2_CMD//\{PAIRS\}/$PAIRS}
  echo "ns-2 command: $NS2_CMD"
  # shellcheck disable=SC2086  # NS2_CMD is a command line to split
  time_runs ns2 $NS2_CMD
  python3 -c "
ns, sl = float(open('$OUT/ns2.cpu').read()), float(open('$OUT/sctplab.cpu').read())
nr, sr = int(open('$OUT/ns2.rss').read()), int(open('$OUT/sctplab.rss').read())
print(f'sctplab / ns-2.35: cpu {sl:.2f} / {ns:.2f} s = 1/{ns / sl:.1f} (target 1/10, aim 1/20);',
      f'peak memory {sr // 1024} / {nr // 1024} MiB = {sr / nr:.2f} (target <= 2)')
"
else
  echo "ns-2.35: not measured ($NS2_TCL or ns missing; set NS2_TCL or NS2_CMD)"
fi
