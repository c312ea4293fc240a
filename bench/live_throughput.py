#!/usr/bin/env python3
"""Loopback throughput of live mode without impairment: sctplab's association (the
simulator's SCTP over UDP, `sctplab live`) and usrsctp, in the four client -> server
pairings, measured in the same run on the same machine.

    python3 bench/live_throughput.py [--messages 20000] [--size 1000] [--streams 4] [--reps 3]

Needs the installed `sctplab` (pip install .), a C compiler and libusrsctp-dev. Each
pairing sends MESSAGES test messages of SIZE bytes round-robin over STREAMS streams,
REPS times; the figure is receiver goodput, payload bits over the time from the first
message to the last one handed to the receiving application (both receivers measure it
the same way). Prints a Markdown table (median and range over the repetitions).
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEER_SRC = ROOT / "tests" / "live" / "usrsctp_peer.c"
CLI = [sys.executable, "-m", "sctplab.cli"]
PORT = 5001
TIMEOUT = 120


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_bound(port: int) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                return
        time.sleep(0.05)
    raise SystemExit(f"nothing bound UDP port {port}")


def last_json(out: str) -> dict:
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    return json.loads(lines[-1]) if lines else {}


def one_run(server: str, client: str, peer: Path, args: argparse.Namespace, tmp: Path) -> float:
    """Receiver goodput in bit/s of one transfer."""
    udp, cudp = free_udp_port(), free_udp_port()
    summary = tmp / "server.json"
    if server == "sctplab":
        srv_cmd = [*CLI, "live", "server", "--port", str(PORT), "--udp-port", str(udp),
                   "--timeout", str(TIMEOUT), "--summary", str(summary)]  # fmt: skip
    else:
        srv_cmd = [str(peer), "server", str(udp), str(PORT), str(TIMEOUT)]
    if client == "sctplab":
        cli_cmd = [*CLI, "live", "client", "127.0.0.1", "--port", str(PORT),
                   "--udp-port", str(cudp), "--remote-udp-port", str(udp),
                   "--streams", str(args.streams), "--messages", str(args.messages),
                   "--size", str(args.size), "--timeout", str(TIMEOUT)]  # fmt: skip
    else:
        cli_cmd = [str(peer), "client", str(cudp), str(udp), str(PORT), str(args.streams),
                   str(args.messages), str(args.size), str(TIMEOUT)]  # fmt: skip
    srv = subprocess.Popen(srv_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_bound(udp)
    c = subprocess.run(cli_cmd, capture_output=True, text=True, timeout=TIMEOUT + 10, check=False)
    out, err = srv.communicate(timeout=TIMEOUT + 10)
    line = last_json(out)
    if c.returncode != 0 or srv.returncode != 0 or line.get("errors") != 0:
        raise SystemExit(f"{client} -> {server} failed: {c.stdout}{c.stderr}{out}{err}")
    nbytes = args.messages * args.size
    if line.get("bytes") != nbytes:
        raise SystemExit(f"{client} -> {server}: {line.get('bytes')} bytes, want {nbytes}")
    if server == "sctplab":
        flow = json.loads(summary.read_text())["flows"]["live"]
        span = flow["completion_time_s"] - flow["first_delivery_s"]
    else:
        span = line["elapsed_s"]
    return nbytes * 8 / span


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=20000)
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--streams", type=int, default=4)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise SystemExit("no C compiler")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        peer = tmp / "usrsctp_peer"
        subprocess.run([cc, "-O2", "-o", str(peer), str(PEER_SRC), "-lusrsctp", "-lpthread"],
                       check=True)  # fmt: skip
        pairs = [("usrsctp", "usrsctp"), ("sctplab", "sctplab"), ("sctplab", "usrsctp"),
                 ("usrsctp", "sctplab")]  # fmt: skip
        results: dict[tuple[str, str], list[float]] = {p: [] for p in pairs}
        # Interleaved repetitions, so slow phases of a loaded machine hit every pairing.
        for _ in range(args.reps):
            for client, server in pairs:
                results[(client, server)].append(one_run(server, client, peer, args, tmp))
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, check=False).stdout.strip()  # fmt: skip
    print(f"{args.messages} messages x {args.size} B over {args.streams} streams, "
          f"{args.reps} runs each, commit {commit}, {platform.machine()}, "
          f"nproc {len(__import__('os').sched_getaffinity(0))}\n")  # fmt: skip
    print("| client -> server | median goodput | range |")
    print("|---|---|---|")
    for (client, server), v in results.items():
        med = statistics.median(v) / 1e6
        print(f"| {client} -> {server} | **{med:.0f} Mb/s** | "
              f"{min(v) / 1e6:.0f} to {max(v) / 1e6:.0f} Mb/s |")  # fmt: skip


if __name__ == "__main__":
    main()
