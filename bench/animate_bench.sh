#!/usr/bin/env bash
# Usage: bench/animate_bench.sh [OUTDIR]
# The animator's benchmark (issue 41; not a timed test): runs shipped examples with
# --trace anim, writes their pages with `sctplab animate`, and plays each page in
# headless Chromium for 10 s (scripts/animate_browser.py fps: frames per second by
# requestAnimationFrame timing, the page's drawing time per frame). Prints one line per
# example: anim.jsonl and page sizes in bytes, then the fps JSON. Needs chromium,
# chromium-driver and selenium (scripts/test.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/sctplab-animate-bench}
mkdir -p "$OUT"
for spec in "example-tcp 5" "example-multihoming 10" "manet-sctp 10" "manet-tcp 10"; do
  set -- $spec
  name=$1 speed=$2
  dir=$OUT/$name
  sctplab run "scenarios/$name.toml" --trace anim --out "$dir" --quiet --force
  sctplab animate "$dir" --out "$dir/animation.html" >/dev/null
  trace=$(stat -c %s "$dir/anim.jsonl")
  page=$(stat -c %s "$dir/animation.html")
  fps=$(python3 scripts/animate_browser.py fps "$dir/animation.html" --speed "$speed" --seconds 10)
  echo "$name anim.jsonl $trace page $page $fps"
done
