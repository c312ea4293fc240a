"""One saturated 802.11 cell: ns-2.35, sctplab and Bianchi's model side by side.

The cell of the Bianchi test (crates/sctplab-core/src/wireless/mac/bianchi.rs): N stations
each with a CBR source far above capacity (2 Mb/s) to one common sink, all within range,
static positions, no routing traffic, 802.11 at 2 Mb/s for data and basic rate, 1000-byte
packets handed to the MAC, RTS/CTS on every DATA frame or basic access; every other value
is ns-2.35's default.

- ns-2.35: ns2/saturated_cell.tcl (DumbAgent, ARP resolved before the sources start);
- sctplab: the same cell as a scenario (static routing, CBR payload of 972 bytes so the IP
  packet is 1000 bytes), run through `sctplab.runner.run`;
- model: Bianchi (2000) with ns-2's windows, retry limit and EIFS after a collision (the
  test's "extended model"), and the paper's own (W = 32, m = 5, no retry limit).

Throughput, everywhere: bytes of the IP packets (1000 each) delivered to the sink per
second of the measured window; MAC/PHY headers, control frames and collided copies are not
counted. Layouts (the script's LAYOUT): "circle", the sink in the middle of a 20 m circle
of stations with capture off on both sides (the test has one power everywhere, so never a
capture), and "point", the stations at one point and the sink 10 m away.

Run: `python -m sctplab.validation.cell` (docs/models/wireless.md shows its table); the
ns-2 and sctplab columns are also rows of `sctplab validate ns2` (`checks`).
"""

from __future__ import annotations

import argparse
import math
import platform
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sctplab.ns2 import oracle as ns2_oracle
from sctplab.runner import run
from sctplab.stats import mean_ci
from sctplab.validation.check import Check
from sctplab.validation.pool import pool_map

IP_BYTES = 1000
UDP_IP_HEADERS = 28  # sctplab's CBR packet_size is UDP payload (docs/scenario.md)
RATE_BPS = 2_000_000
SOURCE_RATE = "2Mb"
CIRCLE_RADIUS_M = 20.0
NS = (5, 10, 20, 50)
LAYOUTS = ("circle", "point")
# No capture: a ratio nothing reaches (both simulators compare power ratios with it).
NO_CAPTURE = 1e30


# ---------------------------------------------------------------- the model


@dataclass(frozen=True)
class Phy:
    """ns-2.35's 802.11 constants (MacCfg::ns2 in the core, tcl/lib/ns-default.tcl), in
    seconds and bytes, at `RATE_BPS` for data and basic rate."""

    slot: float = 20e-6
    sifs: float = 10e-6
    plcp_s: float = (144 + 48) / 1e6  # preamble and PLCP header at 1 Mb/s
    data_header: int = 30
    fcs: int = 4
    rts: int = 20
    cts: int = 14
    ack: int = 14
    cw_min: int = 31
    cw_max: int = 1023
    short_retry_limit: int = 7

    @property
    def difs(self) -> float:
        return self.sifs + 2 * self.slot

    @property
    def eifs(self) -> float:
        """SIFS + DIFS + an ACK with its PLCP part, all at 1 Mb/s: 364 us."""
        return self.sifs + self.difs + (24 + self.ack) * 8 / 1e6

    def airtime(self, mac_bytes: int) -> float:
        return self.plcp_s + mac_bytes * 8 / RATE_BPS


def exchange_times(rts: bool, phy: Phy = Phy()) -> tuple[float, float, float]:
    """(Ts, Tc as Bianchi, Tc as ns-2) in seconds for `IP_BYTES` packets: a success, a
    collision followed by DIFS, a collision followed by EIFS and DIFS."""
    data = phy.airtime(IP_BYTES + phy.data_header + phy.fcs)
    ack = phy.airtime(phy.ack)
    if rts:
        r, c = phy.airtime(phy.rts), phy.airtime(phy.cts)
        ts = r + phy.sifs + c + phy.sifs + data + phy.sifs + ack + phy.difs
        return ts, r + phy.difs, r + phy.eifs + phy.difs
    return data + phy.sifs + ack + phy.difs, data + phy.difs, data + phy.eifs + phy.difs


def _tau(windows: Sequence[float], n: int) -> float:
    """Fixed point of tau = sum p^i / sum p^i (W_i + 1)/2, p = 1 - (1 - tau)^(n - 1)."""

    def f(p: float) -> float:
        attempts = slots = 0.0
        pi = 1.0
        for w in windows:
            attempts += pi
            slots += pi * (w + 1) / 2
            pi *= p
        return attempts / slots

    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(1 - (1 - mid) ** (n - 1)) > mid:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _throughput(windows: Sequence[float], n: int, ts: float, tc: float, sigma: float) -> float:
    """Bianchi's eq. (13), bit/s."""
    tau = _tau(windows, n)
    ptr = 1 - (1 - tau) ** n
    ps = n * tau * (1 - tau) ** (n - 1) / ptr
    slot = (1 - ptr) * sigma + ptr * ps * ts + ptr * (1 - ps) * tc
    return ps * ptr * IP_BYTES * 8 / slot


def paper_windows() -> list[float]:
    """Bianchi's W = 32, m = 5 and no retry limit (60 stages stand in for infinity)."""
    return [32.0 * 2 ** min(i, 5) for i in range(60)]


def ns2_windows(phy: Phy = Phy()) -> list[float]:
    """ns-2's backoff draws random % cw: cw equally likely values, cw = 31, 63, ...,
    1023, one stage per attempt up to ShortRetryLimit."""
    out, cw = [], phy.cw_min
    for _ in range(phy.short_retry_limit):
        out.append(float(cw))
        cw = min(2 * cw + 1, phy.cw_max)
    return out


def bianchi_bps(n: int, rts: bool) -> float:
    ts, tc, _ = exchange_times(rts)
    return _throughput(paper_windows(), n, ts, tc, Phy().slot)


def extended_bps(n: int, rts: bool) -> float:
    ts, _, tc = exchange_times(rts)
    return _throughput(ns2_windows(), n, ts, tc, Phy().slot)


# ---------------------------------------------------------------- the two simulators


def positions(n: int, layout: str) -> list[tuple[float, float]]:
    """(x, y) in metres of the sink, then of stations 1..n, as saturated_cell.tcl."""
    if layout == "circle":
        pts = [(50.0, 50.0)]
        for i in range(n):
            a = 2 * math.pi * i / n
            pts.append((50.0 + CIRCLE_RADIUS_M * math.cos(a), 50.0 + CIRCLE_RADIUS_M * math.sin(a)))
        return pts
    if layout == "point":
        return [(60.0, 50.0)] + [(50.0, 50.0)] * n
    raise ValueError(f"layout is one of {LAYOUTS}, not {layout!r}")


def cell_scenario(
    n: int, rts: bool, warmup_s: float, duration_s: float, layout: str
) -> dict[str, Any]:
    """sctplab's side of saturated_cell.tcl: node s0 is the sink, s1..sN the stations."""
    end = warmup_s + duration_s
    phy: dict[str, Any] = {}
    if layout == "circle":
        phy["capture_ratio"] = NO_CAPTURE
    return {
        "duration": f"{end:g}s",
        "measure": {"start": f"{warmup_s:g}s", "end": f"{end:g}s"},
        "wireless": {
            "width": "100m",
            "height": "100m",
            "routing": "static",
            "queue": 50,
            # saturated_cell.tcl resolves ARP before the sources start and ns-2's ARP
            # entries never expire, so no ARP exchange happens in its window: off here.
            "arp": False,
            "phy": phy,
            "mac": {
                "data_rate": SOURCE_RATE,
                "basic_rate": SOURCE_RATE,
                # RTS/CTS on every DATA frame (ns-2's default 0) or never (3000 bytes is
                # above the 1058-byte frame ns-2 compares with it).
                "rts_threshold": "0B" if rts else "3000B",
            },
        },
        "mobility": {"model": "static"},
        "nodes": [
            {"name": f"s{i}", "wlan": 1, "x": f"{x!r}m", "y": f"{y!r}m"}
            for i, (x, y) in enumerate(positions(n, layout))
        ],
        "flows": [
            {
                "name": f"cbr{i}",
                "type": "cbr",
                "from": f"s{i}",
                "to": "s0",
                "rate": SOURCE_RATE,
                "packet_size": f"{IP_BYTES - UDP_IP_HEADERS}B",
                "start": "0.1s",
            }
            for i in range(1, n + 1)
        ],
    }


def ours_bps(
    n: int, rts: bool, seed: int, warmup_s: float, duration_s: float, layout: str
) -> float:
    """sctplab's throughput (IP bytes delivered to the sink per second of the window)."""
    flows = run(cell_scenario(n, rts, warmup_s, duration_s, layout), seed=seed).summary["flows"]
    payload_bps = sum(float(f["goodput_bps"]) for f in flows.values())
    return payload_bps * IP_BYTES / (IP_BYTES - UDP_IP_HEADERS)


def ns2_bps(
    n: int,
    rts: bool,
    seed: int,
    warmup_s: float,
    duration_s: float,
    layout: str,
    tmp: Path,
    cache: Path | None = None,
) -> float:
    """ns-2.35's throughput on saturated_cell.tcl (seed > 0), from `cache` when it holds
    this run."""
    args = [str(n), "1" if rts else "0", str(IP_BYTES), str(seed)]
    args += [f"{warmup_s:g}", f"{duration_s:g}", layout]
    store = ns2_oracle.Ns2Cache(cache)
    key = store.key("cell", {"script": ns2_oracle.script_text("saturated_cell.tcl"), "args": args})
    hit = store.get("cell", key)
    if hit is not None:
        return float(hit["bps"])
    exe = ns2_oracle.ns2_binary()
    if exe is None:
        raise FileNotFoundError("ns (Debian package ns2) is not installed")
    out = subprocess.run(
        [exe, str(ns2_oracle.script("saturated_cell.tcl")), *args],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp,
    ).stdout
    # "bytes B seconds D" and "active K": name-value pairs.
    values: dict[str, str] = {}
    for line in out.splitlines():
        x = line.split()
        if x and x[0] in ("bytes", "active"):
            values.update(zip(x[::2], x[1::2], strict=True))
    if int(values["active"]) != n:
        raise RuntimeError(f"ns-2: only {values['active']} of {n} stations were served")
    bps = float(values["bytes"]) * 8 / float(values["seconds"])
    store.put("cell", key, {"bps": bps})
    return bps


def ns2_warmup_s(n: int) -> float:
    """The script's sources start at 0.1 + 0.02 n + 0.5 s; one more second to settle."""
    return math.ceil(0.1 + 0.02 * n + 0.5 + 1.0)


# ---------------------------------------------------------------- the table


@dataclass
class Row:
    n: int
    rts: bool
    ns2_mean: float
    ns2_ci: float
    ours_mean: float
    ours_ci: float
    extended: float
    bianchi: float


def table(ns: Sequence[int], seeds: int, duration_s: float, layout: str, tmp: Path) -> list[Row]:
    rows = []
    for rts in (True, False):
        for n in ns:
            w = ns2_warmup_s(n)
            theirs = [ns2_bps(n, rts, s, w, duration_s, layout, tmp) for s in range(1, seeds + 1)]
            mine = [ours_bps(n, rts, s, w, duration_s, layout) for s in range(1, seeds + 1)]
            tm, tci, _ = mean_ci(theirs)
            mm, mci, _ = mean_ci(mine)
            rows.append(Row(n, rts, tm, tci, mm, mci, extended_bps(n, rts), bianchi_bps(n, rts)))
    return rows


def _mb(x: float) -> str:
    return "-" if math.isnan(x) else f"{x / 1e6:.4f}"


def format_table(rows: Sequence[Row]) -> str:
    lines = [
        "| n | access | ns-2.35 Mb/s (95 % CI) | sctplab Mb/s (95 % CI) | extended model Mb/s "
        "| Bianchi 2000 Mb/s | sctplab vs ns-2 | ns-2 vs model | sctplab vs model |",
        "|---:|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.n} | {'RTS/CTS' if r.rts else 'basic'} "
            f"| {_mb(r.ns2_mean)} +- {_mb(r.ns2_ci)} | {_mb(r.ours_mean)} +- {_mb(r.ours_ci)} "
            f"| {_mb(r.extended)} | {_mb(r.bianchi)} "
            f"| {100 * (r.ours_mean / r.ns2_mean - 1):+.2f} % "
            f"| {100 * (r.ns2_mean / r.extended - 1):+.2f} % "
            f"| {100 * (r.ours_mean / r.extended - 1):+.2f} % |"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- rows of `validate ns2`

# Relative floor of the tolerance, as the other statistical rows.
REL_TOLERANCE = 0.02


def _ns2_job(job: tuple[int, bool, int, float, str | None]) -> float:
    n, rts, seed, duration_s, cache = job
    with tempfile.TemporaryDirectory(prefix="sctplab-cell-") as d:
        return ns2_bps(
            n,
            rts,
            seed,
            ns2_warmup_s(n),
            duration_s,
            "circle",
            Path(d),
            None if cache is None else Path(cache),
        )


def _ours_job(job: tuple[int, bool, int, float]) -> float:
    n, rts, seed, duration_s = job
    return ours_bps(n, rts, seed, ns2_warmup_s(n), duration_s, "circle")


def checks(
    ns: Sequence[int],
    seeds: int,
    duration_s: float,
    cache: Path | None = None,
    jobs: int | None = None,
) -> list[Check]:
    """The saturated cell's rows of `sctplab validate ns2`: throughput (IP bytes delivered
    to the sink per second) at each n, RTS/CTS then basic access, layout "circle"; mean
    and 95 % half-width over seeds 1..`seeds` in both, tolerance the sum of the
    half-widths, at least 2 % of ns-2's mean (the rule of the other statistical rows)."""
    cases = [(n, rts, s) for rts in (True, False) for n in ns for s in range(1, seeds + 1)]
    c = None if cache is None else str(cache)
    theirs_all = pool_map(
        _ns2_job, [(n, r, s, duration_s, c) for n, r, s in cases], jobs, "cell ns-2"
    )
    mine_all = pool_map(_ours_job, [(n, r, s, duration_s) for n, r, s in cases], jobs, "cell")
    rows = []
    for rts in (True, False):
        for n in ns:
            sel = [i for i, (cn, cr, _) in enumerate(cases) if (cn, cr) == (n, rts)]
            tm, tci, _ = mean_ci([theirs_all[i] for i in sel])
            mm, mci, _ = mean_ci([mine_all[i] for i in sel])
            half = sum(0.0 if math.isnan(h) else h for h in (tci, mci))
            rows.append(
                Check(
                    "cell_throughput_bps",
                    f"saturated 802.11 cell, n = {n}, {'RTS/CTS' if rts else 'basic'}, "
                    f"{duration_s:g} s, {seeds} seeds",
                    tm,
                    tci,
                    mm,
                    mci,
                    max(half, REL_TOLERANCE * abs(tm)),
                )
            )
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m sctplab.validation.cell",
        description="ns-2.35, sctplab and Bianchi's model on one saturated 802.11 cell.",
    )
    ap.add_argument("--n", type=int, nargs="+", default=list(NS), help="stations per cell")
    ap.add_argument("--seeds", type=int, default=5, help="seeds 1..K on both sides")
    ap.add_argument("--duration", type=float, default=60.0, help="measured seconds")
    ap.add_argument("--layout", choices=LAYOUTS, default="circle")
    a = ap.parse_args(argv)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as d:
        rows = table(a.n, a.seeds, a.duration, a.layout, Path(d))
    print(format_table(rows))
    print(
        f"\n{a.seeds} seeds x {a.duration:g} s per cell, layout {a.layout}; "
        f"{time.monotonic() - t0:.0f} s on {platform.node()} ({platform.machine()}), "
        f"{time.strftime('%Y-%m-%d')}"
    )


if __name__ == "__main__":
    main()
