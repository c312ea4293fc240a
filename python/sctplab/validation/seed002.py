"""Seed 002's rows of `sctplab validate ns2`: the deterministic drop lists (send and
forward order) and random loss on R1's link over seeds, for the TCP variants and SCTP."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

from sctplab.ns2 import oracle as ns2_oracle
from sctplab.runner import run
from sctplab.scenario_paths import load_scenario, scenarios_dir
from sctplab.stats import mean_ci
from sctplab.validation.check import Check

TCP_AGENTS = ns2_oracle.TCP_AGENTS
SCTP_NS2_SETS = {"flows.sctp1.variant": "ns2", "flows.sctp1.initial_cwnd": "4064B"}


def _window(pkts: list[tuple[float, int]]) -> list[int]:
    data = [(t, n) for t, n in pkts if n > 0]
    return [n for t, n in data if 1.0 <= t < 6.0]


def _order_checks(
    name: str, mine: ns2_oracle.Ns2Packets, theirs: ns2_oracle.Ns2Packets
) -> list[Check]:
    out = []
    for what, a, b in (
        ("send_order", _window(mine.sends), _window(theirs.sends)),
        ("forward_order", _window(mine.forwarded), _window(theirs.forwarded)),
    ):
        common = min(len(a), len(b))
        first_diff = next((i for i in range(common) if a[i] != b[i]), common)
        # Packets in the same order before the first difference, as a share of ns-2's.
        out.append(
            Check(f"{what}_agreement", name, 1.0, None, first_diff / max(len(b), 1), None, 0.01)
        )
        out.append(Check(f"{what}_count_5s", name, len(b), None, len(a), None, 1.0))
    return out


def deterministic(tmp: Path) -> list[Check]:
    checks: list[Check] = []
    golden = scenarios_dir() / "golden"
    for variant in TCP_AGENTS:
        for d, drops in ns2_oracle.SEED002_DROPS.items():
            theirs = ns2_oracle.run_seed002_tcp(variant, drops)
            folder = tmp / f"tcp-{variant}-d{d}"
            run(golden / f"seed002-tcp-{variant}-d{d}.toml", out=folder, trace=["ns2"])
            mine = ns2_oracle.read_trace(folder / "trace.tr", (0, 1), (1, 2), "tcp", True)
            checks += _order_checks(f"seed002-tcp-{variant}-d{d}", mine, theirs)
    for d, drops in ns2_oracle.SEED002_DROPS.items():
        theirs = ns2_oracle.run_seed002_sctp(drops)
        folder = tmp / f"sctp-ns2-d{d}"
        run(
            golden / f"seed002-sctp-newreno-d{d}.toml", set=SCTP_NS2_SETS, out=folder, trace=["ns2"]
        )
        mine = ns2_oracle.read_trace(folder / "trace.tr", (0, 1), (1, 2), "sctp", True)
        checks += _order_checks(f"seed002-sctp-ns2-d{d}", mine, theirs)
    return checks


def _ns2_random(agent: str, rate: float, seed: int, duration: float, tmp: Path) -> int:
    exe = ns2_oracle.ns2_binary()
    assert exe is not None
    out = tmp / f"ns-{agent}-{seed}.tr"
    subprocess.run(
        [
            exe,
            str(ns2_oracle.script("random_loss.tcl")),
            agent,
            str(rate),
            str(seed),
            str(duration),
            "8",
            str(out),
        ],
        check=True,
        capture_output=True,
        cwd=tmp,
    )
    kind = "sctp" if agent == "SCTP" else "tcp"
    if kind == "sctp":
        pk = ns2_oracle.read_sctp_trace(out, (0, 1), (1, 2))
    else:
        pk = ns2_oracle.read_trace(out, (0, 1), (1, 2), "tcp", one_based=False)
    out.unlink()
    return len(pk.forwarded)


def statistical(tmp: Path, seeds: int, duration: float, rate: float = 0.01) -> list[Check]:
    checks: list[Check] = []
    cases: list[tuple[str, str, str, dict[str, str]]] = [
        (v, "tcp", f"seed002-tcp-{v}-d0.toml", {}) for v in TCP_AGENTS
    ]
    cases.append(("ns2", "sctp", "seed002-sctp-newreno-d0.toml", SCTP_NS2_SETS))
    for variant, proto, file, extra in cases:
        agent = "SCTP" if proto == "sctp" else TCP_AGENTS[variant]
        theirs = [float(_ns2_random(agent, rate, s, duration, tmp)) for s in range(1, seeds + 1)]
        base = load_scenario(f"golden/{file}")
        mine = []
        for s in range(1, seeds + 1):
            sets = {**extra, "duration": f"{duration}s", "links.r1.loss.rate": rate}
            summ = run(base, seed=s, set=sets).summary
            ctrl = summ["flows"][base["flows"][0]["name"]].get("control_packets", 0)
            # R1 -> K1 carries the flow's data and, for SCTP, the client's INIT,
            # COOKIE-ECHO and HEARTBEAT (ns-2 counts DATA lines only).
            mine.append(float(summ["links"]["r1->k1"]["tx_packets"] - (3 if ctrl else 0)))
        tm, tci, _ = mean_ci(theirs)
        mm, mci, _ = mean_ci(mine)
        tol = max((0 if math.isnan(tci) else tci) + (0 if math.isnan(mci) else mci), 0.02 * tm)
        checks.append(
            Check(
                f"packets_forwarded_loss{rate:g}",
                f"{proto}-{variant}, {duration:g} s, {seeds} seeds",
                tm,
                tci,
                mm,
                mci,
                tol,
            )
        )
    return checks
