#!/usr/bin/env bash
# Regenerates the numbers in bench/RESULTS.md: machine facts, the criterion benchmarks
# (kernel, wired hop, TCP ack processing, SCTP SACK processing), and the wall time of
# one whole `sctplab run`.
#
# Usage: bench/run.sh            (from anywhere; honours CARGO_TARGET_DIR)
#        SCTPLAB=/path/to/sctplab bench/run.sh   to time a specific CLI
#
# Short warm-up and measurement times keep the whole script at about a minute on a
# 2-core machine; pass criterion options after `--` to override, e.g.
#        bench/run.sh -- --measurement-time 20
set -euo pipefail
cd "$(dirname "$0")/.."

criterion_args=(--warm-up-time 1 --measurement-time 5)
if [[ "${1:-}" == "--" ]]; then
    shift
    criterion_args=("$@")
fi

echo "== machine"
echo "date:   $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (dirty)')"
echo "nproc:  $(nproc)"
echo "cpu:    $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "memory: $(free -h | awk '/^Mem:/ {print $2}')"
echo "load:   $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min; other work skews results)"
echo "rustc:  $(rustc -V)"

echo
echo "== kernel: EventQueue hold model"
cargo bench -p sctplab-bench --bench kernel -- "${criterion_args[@]}"

echo
echo "== wired: UDP CBR over three hops, end to end"
cargo bench -p sctplab-bench --bench wired -- "${criterion_args[@]}"

echo
echo "== tcp_ack: TCP-SACK ack processing, one hop, 1 % loss"
cargo bench -p sctplab-bench --bench tcp_ack -- "${criterion_args[@]}"

echo
echo "== sctp_sack: SCTP SACK processing, one hop, without loss and with 1 % loss"
cargo bench -p sctplab-bench --bench sctp_sack -- "${criterion_args[@]}"

echo
echo "== whole process: sctplab run scenarios/example-cbr.toml --quiet"
sctplab="${SCTPLAB:-sctplab}"
if ! command -v "$sctplab" >/dev/null; then
    echo "skipped: no '$sctplab' on PATH (maturin develop --release, or set SCTPLAB)"
    exit 0
fi
# The run folder goes to a scratch directory so timing never litters the tree.
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cmd=("$sctplab" run scenarios/example-cbr.toml --quiet --out "$out/run")
if command -v hyperfine >/dev/null; then
    # Bare interpreter start and `import sctplab` show where the process time goes.
    hyperfine --warmup 2 --runs 15 "${cmd[*]}" "python3 -c 'import sctplab'" "python3 -c pass"
else
    for _ in 1 2 3; do
        /usr/bin/time -f "%e s wall, %U s user, %M KiB max RSS" "${cmd[@]}"
    done
fi
