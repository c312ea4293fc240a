#!/usr/bin/env bash
# Builds crates/sctplab-bench's core_run (release) the way `pip install .` builds the
# extension: profile-guided, trained on the same runs
# (build_backend/sctplab_build/training.txt), so that bench/ns2_speed.sh and
# bench/refcheck.sh measure the core as the wheel ships it. Prints the binary's path on
# stdout (last line); progress goes to stderr.
#
# core_run gets its own profile, trained through core_run: a profile gathered through
# the extension names the core's functions with another crate hash (see
# build_backend/sctplab_build/pgo.py) and would not apply here.
#
# Environment: PGO=0 (or SCTPLAB_PGO=0) for the plain release build
# (target/release/examples/core_run); LLVM_PROFDATA to name llvm-profdata. Without
# llvm-profdata (rustup component add llvm-tools) or when a step fails, the plain build
# is made, with one line on stderr saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=$(realpath -m "${CARGO_TARGET_DIR:-target}")
PGO_DIR=$TARGET/pgo/core_run
TRAINING=build_backend/sctplab_build/training.txt

plain() {
  [ -n "${1:-}" ] && echo "pgo_core_run: $1: plain release build" >&2
  CARGO_TARGET_DIR=$TARGET cargo build -q --release -p sctplab-bench --example core_run >&2
  echo "$TARGET/release/examples/core_run"
}

if [ "${PGO:-1}" = 0 ] || [ "${SCTPLAB_PGO:-1}" = 0 ]; then
  plain ""
  exit 0
fi
PROFDATA=${LLVM_PROFDATA:-$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata}
if [ ! -x "$PROFDATA" ]; then
  timeout 300 rustup component add llvm-tools >/dev/null 2>&1 || true
fi
[ -x "$PROFDATA" ] || { plain "llvm-profdata missing (rustup component add llvm-tools)"; exit 0; }

# build_core FLAG DIR: core_run built with one more Rust flag into its own target dir.
build_core() {
  RUSTFLAGS="${RUSTFLAGS:-} $1" CARGO_TARGET_DIR=$2 \
    cargo build -q --release -p sctplab-bench --example core_run >&2
}

train() {
  local gen=$PGO_DIR/gen/release/examples/core_run line key
  # Counters differ a little from one training to the next (hash-map seeds), and a new
  # profile rebuilds everything: train again only for a new binary or training list.
  key=$(cat "$gen" "$TRAINING" | sha256sum | cut -d' ' -f1)
  if [ -f "$PGO_DIR/core_run.profdata" ] && [ "$(cat "$PGO_DIR/core_run.key" 2>/dev/null)" = "$key" ]; then
    return 0
  fi
  rm -rf "$PGO_DIR/raw"
  mkdir -p "$PGO_DIR/raw"
  while IFS= read -r line; do
    line=${line%%#*}
    [ -z "${line// }" ] && continue
    read -ra run <<< "$line"
    LLVM_PROFILE_FILE=$PGO_DIR/raw/train-%p.profraw "$gen" "${run[@]}" 2>/dev/null || return 1
  done < "$TRAINING"
  "$PROFDATA" merge -o "$PGO_DIR/core_run.profdata" "$PGO_DIR"/raw/*.profraw
  echo "$key" > "$PGO_DIR/core_run.key"
}

echo "pgo_core_run: instrumented build, training, profile-guided build" >&2
if build_core "-Cprofile-generate=$PGO_DIR/raw" "$PGO_DIR/gen" && train \
  && build_core "-Cprofile-use=$PGO_DIR/core_run.profdata" "$PGO_DIR/use"; then
  echo "$PGO_DIR/use/release/examples/core_run"
else
  plain "PGO failed"
fi
