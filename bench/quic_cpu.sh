#!/usr/bin/env bash
# Usage: bench/quic_cpu.sh [CORE_RUN] [ROUNDS]
# CPU per delivered data packet of a QUIC flow (quinn-proto + rustls, TLS included)
# against a TCP flow on the same path: 50 MB over one 10 Mb/s, 20 ms link with a
# 100-packet queue; QUIC with quinn's NewReno, TCP SACK with 1448-byte segments and a
# 1000-segment window, with its handshake. Prints user+system CPU (minimum of ROUNDS
# runs), data packets and microseconds per data packet for each, and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/examples/core_run}
ROUNDS=${2:-5}
[ -x "$BIN" ] || cargo build --release -q -p sctplab-bench --example core_run
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
path='[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "10Mb"
delay = "20ms"
queue = 100
[[flows]]
name = "f"
from = "a"
to = "b"
bytes = "50MB"'
printf '%s\ntype = "quic"\ncongestion_control = "reno"\n' "$path" > "$D/quic.toml"
printf '%s\ntype = "tcp"\nvariant = "sack"\nsegment_size = "1448B"\nwindow = 1000\nhandshake = true\n' "$path" > "$D/tcp.toml"
python3 - "$BIN" "$D" "$ROUNDS" <<'PY'
import json, resource, subprocess, sys
binary, d, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
per = {}
for t in ("quic", "tcp"):
    cpu = []
    for _ in range(rounds):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([binary, f"{d}/{t}.toml", "--seed", "1", "--summary", f"{d}/{t}.json"],
                       check=True, capture_output=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    f = json.load(open(f"{d}/{t}.json"))["flows"]["f"]
    n = f["data_packets_sent"]
    per[t] = min(cpu) / n * 1e6
    print(f"{t}: cpu min {min(cpu):.4f} s of {rounds}, {n} data packets, "
          f"{per[t]:.2f} us/packet, goodput {f['goodput_bps'] / 1e6:.3f} Mb/s")
print(f"quic/tcp: {per['quic'] / per['tcp']:.1f}x")
PY
