#!/usr/bin/env bash
# Times the README's first quick-start command as a new user runs it: a fresh clone of
# HEAD, a new virtual environment (nothing from the machine's site-packages), the
# package built from source (profile-guided when the toolchain allows), then
# `sctplab reproduce all`, then `sctplab reproduce all --quick` into a second folder.
# Prints the wall and CPU time of each step with the date and the load average; the
# README's quick-start timings come from this script. Needs network access to PyPI for
# the dependencies. KEEP=1 keeps the clone (its path is printed).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
DIR=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"' EXIT
git clone -q "$SRC" "$DIR/sctplab"
cd "$DIR/sctplab"
say() { echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg): $*"; }
say "commit $(git rev-parse --short HEAD), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(python3 --version), $(rustc --version)"
step() {
  local name=$1
  shift
  /usr/bin/time -f "%e %U %S" -o "$DIR/time" "$@" >"$DIR/$name.log" 2>&1
  read -r wall user sys <"$DIR/time"
  say "$name: ${wall} s wall, ${user} s user + ${sys} s system CPU"
}
step venv python3 -m venv .venv
# shellcheck disable=SC1091
. .venv/bin/activate
step "pip install" pip install -c constraints.txt .
step "reproduce all" sctplab reproduce all
step "reproduce all --quick" sctplab reproduce all --quick --out reproduction-quick
if [ "${KEEP:-0}" = 1 ]; then say "kept $DIR/sctplab"; fi
