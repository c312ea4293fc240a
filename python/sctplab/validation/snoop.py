"""Seed 003's rows of `sctplab validate ns2`: transfer times of TCP Reno with and without
a snoop agent at the base station (ns2/snoop_lan.tcl)."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

from sctplab.ns2 import oracle as ns2_oracle
from sctplab.runner import run
from sctplab.stats import mean_ci
from sctplab.validation.check import Check

SNOOP_MB = 1
SNOOP_LOSS = (0.02, 0.005)
# A 1 MB transfer takes well under a second of CPU in either simulator, so the snoop rows
# afford the full run's seed count even with --quick.
SNOOP_SEEDS = 20
# ns2/snoop_lan.tcl's trace: node 3 is the LAN; the application starts at 1 s.
_LAN, _MH, _NS2_START = "3", "2", 1.0


def _ns2_snoop_time(snoop: bool, rate: float, seed: int, tmp: Path) -> float:
    """ns-2's transfer time: from the application's start until the mobile host's LL has
    passed up every segment of the file in order."""
    exe = ns2_oracle.ns2_binary()
    assert exe is not None
    out = tmp / f"ns-snoop{int(snoop)}-{rate:g}-{seed}.tr"
    nbytes = SNOOP_MB * 1_000_000
    subprocess.run(
        [
            exe,
            str(ns2_oracle.script("snoop_lan.tcl")),
            str(int(snoop)),
            str(rate),
            str(seed),
            str(nbytes),
            str(out),
        ],
        check=True,
        capture_output=True,
        cwd=tmp,
    )
    segments = nbytes // 1000
    received: set[int] = set()
    in_order = 0
    done = math.nan
    with out.open() as f:
        for line in f:
            x = line.split()
            if x[0] != "r" or x[2] != _LAN or x[3] != _MH or x[4] != "tcp":
                continue
            received.add(int(x[10]))
            while in_order in received:
                in_order += 1
            if in_order >= segments:
                done = float(x[1]) - _NS2_START
                break
    out.unlink()
    return done


def snoop(tmp: Path, seeds: int) -> list[Check]:
    """TCP and TCP-snoop on seed 003's topology: transfer time of a file, ns-2 and ours."""
    from sctplab.reproduce import snoop as study

    checks: list[Check] = []
    for rate in SNOOP_LOSS:
        for protocol in ("tcp", "tcp-snoop"):
            on = protocol.endswith("snoop")
            theirs = [_ns2_snoop_time(on, rate, s, tmp) for s in range(1, seeds + 1)]
            scenario = study.case(protocol, SNOOP_MB, rate)
            mine = []
            for s in range(1, seeds + 1):
                t = run(scenario, seed=s).summary["flows"]["flow"]["completion_time_s"]
                mine.append(math.nan if t is None else float(t))
            tm, tci, _ = mean_ci(theirs)
            mm, mci, _ = mean_ci(mine)
            tol = max((0 if math.isnan(tci) else tci) + (0 if math.isnan(mci) else mci), 0.02 * tm)
            checks.append(
                Check(
                    f"{protocol.replace('-', '_')}_transfer_time_s",
                    f"snoop {SNOOP_MB} MB, wireless loss {rate:g}, {seeds} seeds",
                    tm,
                    tci,
                    mm,
                    mci,
                    tol,
                )
            )
    return checks
