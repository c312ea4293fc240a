"""The wireless rows of `sctplab validate ns2`: 802.11 + AODV against ns-2.35's mobile node.

Two kinds of rows (docs/validation.md, "Wireless"):
- static chains (ns2/wireless_chain.tcl): HOPS + 1 nodes on a line 200 m apart, one
  TCP-SACK flow from the first to the last, 1 to 7 hops; throughput (payload bytes
  delivered in order per second), mean and 95 % Student-t half-width over seeds for ns-2
  and for us. ns-2 and sctplab draw from different generators, so the rows compare
  distributions;
- MANET replay (ns2/manet.tcl): seed 004's scenario (scenarios/manet-tcp.toml and
  manet-sctp.toml) with the random-waypoint movement sctplab draws for seed K exported as
  an ns-2 setdest file and replayed by both, and ns-2 given the CBR pairs and start times
  of our run of seed K; goodput, retransmissions and ack bytes of the transport flow, the
  per-scenario differences paired.

A chain row passes when the two 95 % intervals overlap (the difference is within the sum
of both half-widths), a MANET row when the 99 % interval of the paired differences contains
0 (PAIRED_CONFIDENCE says why 99 %); either also passes within 2 % of ns-2's mean, the
floor of the other statistical rows.
ns-2 is measured from an agent-level trace (AGT lines only) so that both simulators count
the same events: payload delivered in order at the receiving agent, data the sending
agent sends again, and the size of every ack the receiving agent sends.
"""

from __future__ import annotations

import math
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sctplab import ns2_oracle
from sctplab.reproduce.common import load_scenario, scenarios_dir
from sctplab.runner import movement, run
from sctplab.stats import mean_ci
from sctplab.validate import Check

CHAIN_HOPS = range(1, 8)
CHAIN_SPACING_M = 200.0
CHAIN_START_S = 1.0
MANET_START_S = 20.0
MANET_NODES = 46
TCP_SEGMENT = 1400
SCTP_CHUNK_DATA = 684  # dataChunkSize_ 700 less the 16-byte chunk header
# Relative floor of every tolerance, as the other statistical rows.
REL_TOLERANCE = 0.02
# The MANET rows' interval of the paired differences. Two independent 95 % intervals of
# equal width (the other statistical rows' rule) fail to overlap for equal means with
# probability 0.6 % (a difference beyond 2 * 1.96 / sqrt(2) = 2.77 standard errors); a
# 99 % interval of paired differences fails for equal means with probability 1 %, about
# as strict. A 95 % one would fail one of the six MANET rows in a quarter of runs.
PAIRED_CONFIDENCE = 0.99


@dataclass(frozen=True)
class Plan:
    """How much to run: seeds and simulated seconds of each kind of row."""

    chain_seeds: int
    chain_duration_s: float
    manet_seeds: int
    manet_stop_s: float


QUICK = Plan(chain_seeds=3, chain_duration_s=30.0, manet_seeds=3, manet_stop_s=120.0)
FULL = Plan(chain_seeds=10, chain_duration_s=100.0, manet_seeds=6, manet_stop_s=920.0)


@dataclass
class FlowCounts:
    """What one simulator measured of the transport flow."""

    delivered_bytes: float
    retransmissions: float
    ack_packets: float
    ack_bytes: float


def _tolerance(ns2_mean: float, half_width: float) -> float:
    h = 0.0 if math.isnan(half_width) else half_width
    return max(h, REL_TOLERANCE * abs(ns2_mean))


def _half(ci: float) -> float:
    return 0.0 if math.isnan(ci) else ci


# ---------------------------------------------------------------- ns-2 agent traces


def _agt(line: str) -> list[str] | None:
    """The fields of an old-format CMU trace line at the agent level, else None."""
    x = line.split()
    if len(x) < 19 or x[3] != "AGT":
        return None
    return x


def read_tcp_agt(path: Path, src: int, dst: int, start: float, end: float) -> FlowCounts:
    """Counts of a one-way TCP flow (syn_ true) from node `src` to node `dst`.

    Segment 0 is ns-2's SYN and carries no data; segment k >= 1 carries `TCP_SEGMENT`
    bytes. Delivered: segments passed up in order at `dst` in [start, end).
    Retransmissions: data segments `src` sends again. Acks: what `dst` sends, except the
    acks of the SYN before the first data segment (ours counts no SYN-ACK either)."""
    s_node, d_node = f"_{src}_", f"_{dst}_"
    sent_max = 0
    rtx = 0
    received: set[int] = set()
    cum = 0  # next segment expected in order
    delivered = 0
    got_data = False
    acks = 0
    ack_bytes = 0
    with path.open() as f:
        for line in f:
            x = _agt(line)
            if x is None:
                continue
            t = float(x[1])
            kind = x[6]
            if x[0] == "s" and x[2] == s_node and kind == "tcp":
                seq = int(x[17].lstrip("["))
                if seq > 0:
                    if seq <= sent_max:
                        rtx += 1
                    sent_max = max(sent_max, seq)
            elif x[0] == "r" and x[2] == d_node and kind == "tcp":
                seq = int(x[17].lstrip("["))
                got_data = got_data or seq > 0
                received.add(seq)
                while cum in received:
                    received.discard(cum)
                    if cum > 0 and start <= t < end:
                        delivered += TCP_SEGMENT
                    cum += 1
            elif x[0] == "s" and x[2] == d_node and kind == "ack":
                if got_data and start <= t < end:
                    acks += 1
                    ack_bytes += int(x[7])
    return FlowCounts(delivered, rtx, acks, ack_bytes)


def read_sctp_agt(path: Path, src: int, dst: int, start: float, end: float) -> FlowCounts:
    """Counts of an SCTP association from node `src` to node `dst`.

    ns-2's CMU trace shows one chunk per packet, the last (`[n type tsn sid ssn]`), with
    the packet's chunk count n. Delivered: the cumulative TSN of the last SACK `dst`
    sends before `end`, times the chunk's user data. Retransmissions: chunks in DATA
    packets whose last TSN was sent before (ns-2 sends retransmitted chunks in packets of
    their own, SctpAgent::RtxMarkedChunks). Acks: the SACK packets `dst` sends."""
    s_node, d_node = f"_{src}_", f"_{dst}_"
    sent_max = 0
    rtx = 0
    cum_tsn = 0
    acks = 0
    ack_bytes = 0
    with path.open() as f:
        for line in f:
            x = _agt(line)
            if x is None or x[6] != "sctp":
                continue
            t = float(x[1])
            n = int(x[17].lstrip("["))
            ctype = x[18]
            if x[0] == "s" and x[2] == s_node and ctype == "D":
                tsn = int(x[19])
                if tsn <= sent_max:
                    rtx += n
                sent_max = max(sent_max, tsn)
            elif x[0] == "s" and x[2] == d_node and ctype == "S" and t < end:
                cum_tsn = max(cum_tsn, int(x[19]))
                if t >= start:
                    acks += 1
                    ack_bytes += int(x[7])
    return FlowCounts(cum_tsn * SCTP_CHUNK_DATA, rtx, acks, ack_bytes)


def _ns(args: list[str], tmp: Path) -> None:
    exe = ns2_oracle.ns2_binary()
    if exe is None:
        raise FileNotFoundError("ns (Debian package ns2) is not installed")
    subprocess.run([exe, *args], check=True, capture_output=True, cwd=tmp)


# ---------------------------------------------------------------- static chains


def chain_scenario(hops: int, duration_s: float) -> dict[str, Any]:
    """Our side of ns2/wireless_chain.tcl: the same line of nodes and the transport flow of
    scenarios/manet-tcp.toml from the first node to the last, started at 1 s."""
    base = load_scenario("manet-tcp.toml")
    flow = dict(next(f for f in base["flows"] if f["name"] == "transport"))
    flow.pop("stop", None)
    flow.update({"name": "tcp", "from": "n0", "to": f"n{hops}", "start": f"{CHAIN_START_S}s"})
    end = f"{CHAIN_START_S + duration_s}s"
    return {
        "duration": end,
        "measure": {"start": f"{CHAIN_START_S}s", "end": end},
        "wireless": {
            "width": f"{CHAIN_SPACING_M * hops + 100.0}m",
            "height": "100m",
            "routing": "aodv",
            "queue": 50,
            "mac": dict(base["wireless"]["mac"]),
        },
        "mobility": {"model": "static"},
        "nodes": [
            {"name": f"n{i}", "wlan": 1, "x": f"{50.0 + CHAIN_SPACING_M * i}m", "y": "50m"}
            for i in range(hops + 1)
        ],
        "flows": [flow],
    }


def ns2_chain_throughput(hops: int, seed: int, duration_s: float, tmp: Path) -> float:
    """ns-2's throughput of the chain (payload bits delivered in order per second)."""
    tr = tmp / f"chain-{hops}-{seed}.tr"
    _ns(
        [
            str(ns2_oracle.script("wireless_chain.tcl")),
            str(hops),
            str(seed),
            f"{duration_s:g}",
            str(tr),
        ],
        tmp,
    )
    c = read_tcp_agt(tr, 0, hops, CHAIN_START_S, CHAIN_START_S + duration_s)
    tr.unlink()
    return c.delivered_bytes * 8 / duration_s


def chain(tmp: Path, seeds: int, duration_s: float) -> list[Check]:
    checks = []
    for hops in CHAIN_HOPS:
        theirs = [ns2_chain_throughput(hops, s, duration_s, tmp) for s in range(1, seeds + 1)]
        sc = chain_scenario(hops, duration_s)
        mine = [
            float(run(sc, seed=s).summary["flows"]["tcp"]["goodput_bps"])
            for s in range(1, seeds + 1)
        ]
        tm, tci, _ = mean_ci(theirs)
        mm, mci, _ = mean_ci(mine)
        checks.append(
            Check(
                "chain_tcp_throughput_bps",
                f"{hops}-hop chain, {duration_s:g} s, {seeds} seeds",
                tm,
                tci,
                mm,
                mci,
                _tolerance(tm, _half(tci) + _half(mci)),
            )
        )
    return checks


# ---------------------------------------------------------------- MANET replay


def manet_ours(
    transport: str, seed: int, movement_file: Path, stop_s: float
) -> tuple[FlowCounts, list[tuple[int, int, float]]]:
    """Our run of seed 004's scenario replaying `movement_file`: the transport flow's counts
    and the CBR pairs drawn (0-based node indices, start time)."""
    sets = {"mobility.file": str(movement_file)}
    if stop_s != MANET_START_S + 900.0:
        end = f"{stop_s:g}s"
        sets.update({"duration": end, "measure.end": end, "flows.transport.stop": end})
    path = scenarios_dir() / f"manet-{transport}.toml"
    # ns-2's $node_(i) is our node declared i-th (docs/scenario.md, [mobility] file).
    index = {n["name"]: i for i, n in enumerate(load_scenario(path.name)["nodes"])}
    flows = run(path, seed=seed, set=sets).summary["flows"]
    t = flows["transport"]
    counts = FlowCounts(
        float(t["delivered_bytes"]),
        float(t["retransmissions"]),
        float(t["ack_packets"]),
        float(t["ack_bytes"]),
    )
    pairs = []
    for name, f in flows.items():
        if name.startswith("background."):
            pairs.append((index[f["from"]], index[f["to"]], float(f["start_s"])))
    return counts, pairs


# ns-2.35's AODV sometimes dies of a segmentation fault in aodv_rt_entry::pc_insert (a
# precursor-list insert during RREQ/RREP handling) on long MANET runs; seen with SCTP, and
# whether a run dies changes with ns-2's seed and even with tracing on or off (a memory
# error). ns-2's seed only drives its own MAC backoff and AODV jitter (the movement and the
# CBR pairs are fixed by the files), so a crashed run is rerun with another ns-2 seed; a
# movement whose every attempt crashes is left out of the pairs. The rows say both.
NS2_SEED_STRIDE = 1000
NS2_ATTEMPTS = 3


def manet_ns2(
    transport: str,
    seed: int,
    movement_file: Path,
    pairs: list[tuple[int, int, float]],
    stop_s: float,
    tmp: Path,
) -> tuple[FlowCounts | None, int]:
    """ns-2's counts for one movement (None if every attempt crashed), and how many ns-2
    runs crashed."""
    pairs_file = tmp / f"pairs-{transport}-{seed}.txt"
    pairs_file.write_text("".join(f"{a} {b} {t!r}\n" for a, b, t in pairs))
    tr = tmp / f"manet-{transport}-{seed}.tr"
    args = [str(ns2_oracle.script("manet.tcl")), transport, str(movement_file), str(pairs_file)]
    for attempt in range(NS2_ATTEMPTS):
        ns_seed = seed + attempt * NS2_SEED_STRIDE
        try:
            _ns([*args, str(ns_seed), f"{stop_s:g}", str(tr)], tmp)
        except subprocess.CalledProcessError as e:
            if e.returncode >= 0:
                raise
            continue
        read = read_tcp_agt if transport == "tcp" else read_sctp_agt
        counts = read(tr, 0, 1, MANET_START_S, stop_s)
        tr.unlink()
        return counts, attempt
    return None, NS2_ATTEMPTS


MANET_METRICS = ("goodput_bps", "retransmissions", "ack_bytes")


def _metric(c: FlowCounts, metric: str, window_s: float) -> float:
    if metric == "goodput_bps":
        return c.delivered_bytes * 8 / window_s
    return float(getattr(c, metric))


def manet(tmp: Path, seeds: int, stop_s: float) -> list[Check]:
    window_s = stop_s - MANET_START_S
    checks = []
    movements = {}
    for k in range(1, seeds + 1):
        mv = tmp / f"movement-{k}.tcl"
        mv.write_text(movement(scenarios_dir() / "manet-tcp.toml", seed=k))
        movements[k] = mv
    for transport in ("tcp", "sctp"):
        per_seed = []
        crashes = 0
        lost = 0
        for k in range(1, seeds + 1):
            mine, pairs = manet_ours(transport, k, movements[k], stop_s)
            theirs, crashed = manet_ns2(transport, k, movements[k], pairs, stop_s, tmp)
            crashes += crashed
            if theirs is None:
                lost += 1
            else:
                per_seed.append((theirs, mine))
        note = f", {crashes} ns-2 run(s) crashed" if crashes else ""
        note += f", {lost} movement(s) left out" if lost else ""
        for metric in MANET_METRICS:
            theirs_v = [_metric(t, metric, window_s) for t, _ in per_seed]
            mine_v = [_metric(m, metric, window_s) for _, m in per_seed]
            tm, tci, _ = mean_ci(theirs_v)
            mm, mci, _ = mean_ci(mine_v)
            diffs = [m - t for t, m in zip(theirs_v, mine_v, strict=True)]
            _, dci, _ = mean_ci(diffs, confidence=PAIRED_CONFIDENCE)
            checks.append(
                Check(
                    f"manet_{transport}_{metric}",
                    f"seed-004 replay, {window_s:g} s, {len(per_seed)} movements, paired{note}",
                    tm,
                    tci,
                    mm,
                    mci,
                    _tolerance(tm, dci),
                )
            )
    return checks


def wireless(tmp: Path, quick: bool = False) -> list[Check]:
    """The wireless rows, in order: chains of 1..7 hops, then MANET TCP and SCTP."""
    plan = QUICK if quick else FULL
    return chain(tmp, plan.chain_seeds, plan.chain_duration_s) + manet(
        tmp, plan.manet_seeds, plan.manet_stop_s
    )
