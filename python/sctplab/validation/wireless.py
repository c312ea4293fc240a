"""The wireless rows of `sctplab validate ns2`: 802.11 + AODV against ns-2.35's mobile node.

Two kinds of rows (docs/validation.md, "Wireless"):
- static chains (ns2/wireless_chain.tcl): HOPS + 1 nodes on a line 200 m apart, one
  TCP-SACK flow from the first to the last, 1 to 7 hops; throughput (payload bytes
  delivered in order per second), mean and 95 % Student-t half-width over seeds for ns-2
  and for us. ns-2 and sctplab draw from different generators, so the rows compare
  distributions;
- MANET replay (ns2/manet.tcl): seed 004's scenario (scenarios/manet-tcp.toml and
  manet-sctp.toml) at each maximum speed (1, 5, 10, 20 m/s, pause 0) with the
  random-waypoint movement sctplab draws for seed K exported as an ns-2 setdest file and
  replayed by both, and ns-2 given the CBR pairs and start times of our run of seed K;
  goodput, retransmissions and ack bytes of the transport flow, and TCP's connect time
  (SYN to the ack of the SYN at the sender), the per-scenario differences paired;
- the saturated cell (sctplab.validation.cell, ns2/saturated_cell.tcl).

A chain or cell row passes when the two 95 % intervals overlap (the difference is within
the sum of both half-widths), a MANET row when the interval of the paired differences
contains 0, at the confidence that keeps the chance of any MANET row failing by chance at
5 % (FAMILY_ALPHA); either also passes within 2 % of ns-2's mean, the floor of the other
statistical rows. ns-2's results are cached (ns2_oracle.Ns2Cache), so a second run with
the same cache re-runs only sctplab; runs go to a process pool.
ns-2 is measured from an agent-level trace (AGT lines only) so that both simulators count
the same events: payload delivered in order at the receiving agent, data the sending
agent sends again, and the size of every ack the receiving agent sends.
Our side runs with `[wireless] ns2_packet_sizes` (the MAC charges ns-2.35's packet sizes,
so that a 1-2 % difference of airtime does not hide in the rows), and the background CBR
gaps are jittered in both (`jitter = true` in the scenarios, `random_ 1` in manet.tcl), as
seed 004's cbrgen.tcl sets them.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sctplab.ns2 import oracle as ns2_oracle
from sctplab.runner import movement, run
from sctplab.scenario_paths import load_scenario, scenarios_dir
from sctplab.stats import mean_ci
from sctplab.validation import cell
from sctplab.validation.check import Check
from sctplab.validation.pool import pool_map

CHAIN_HOPS = range(1, 8)
CHAIN_SPACING_M = 200.0
CHAIN_START_S = 1.0
MANET_START_S = 20.0
# The movement files always cover the full run (920 s); a shorter run replays their start.
FULL_STOP_S = MANET_START_S + 900.0
MANET_NODES = 46
TCP_SEGMENT = 1400
SCTP_CHUNK_DATA = 684  # dataChunkSize_ 700 less the 16-byte chunk header
# Relative floor of every tolerance, as the other statistical rows.
REL_TOLERANCE = 0.02
# The MANET rows' intervals of the paired differences: the chance that any row of the
# family fails when the two simulators agree is at most FAMILY_ALPHA (Bonferroni: each
# row's interval at 1 - FAMILY_ALPHA / rows). 28 rows in the full run (4 speeds x (3
# metrics of each transport + TCP's connect time)): 99.82 % each; 7 with --quick: 99.29 %.
FAMILY_ALPHA = 0.05
# Seed 004's maximum speeds (pause 0).
SPEEDS = (1, 5, 10, 20)


@dataclass(frozen=True)
class Plan:
    """How much to run: seeds and simulated seconds of each kind of row."""

    chain_seeds: int
    chain_duration_s: float
    manet_speeds: tuple[int, ...]
    manet_seeds: int
    manet_stop_s: float
    cell_ns: tuple[int, ...]
    cell_seeds: int
    cell_duration_s: float


QUICK = Plan(
    chain_seeds=3,
    chain_duration_s=30.0,
    manet_speeds=(10,),
    manet_seeds=3,
    manet_stop_s=120.0,
    cell_ns=(5, 20),
    cell_seeds=3,
    cell_duration_s=10.0,
)
# Seed 004's point count: 12 movement scenarios per speed, 900 s of transport time.
FULL = Plan(
    chain_seeds=10,
    chain_duration_s=100.0,
    manet_speeds=SPEEDS,
    manet_seeds=12,
    manet_stop_s=920.0,
    cell_ns=(5, 10, 20, 50),
    cell_seeds=5,
    cell_duration_s=60.0,
)


@dataclass
class FlowCounts:
    """What one simulator measured of the transport flow."""

    delivered_bytes: float
    retransmissions: float
    ack_packets: float
    ack_bytes: float
    # TCP: from the SYN to the arrival of its ack at the sender; NaN if it never came
    # (or not measured: SCTP).
    connect_time_s: float = math.nan


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
    acks of the SYN before the first data segment (ours counts no SYN-ACK either).
    Connect time: from the first SYN `src` sends to the first ack `src` receives (ns-2's
    one-way TCP with `syn_ true` opens when the ack of segment 0 arrives), as our
    summary's `connect_time_s` (SYN to SYN-ACK)."""
    s_node, d_node = f"_{src}_", f"_{dst}_"
    syn_at = math.nan
    connected_at = math.nan
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
                if seq == 0 and math.isnan(syn_at):
                    syn_at = t
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
            elif x[0] == "r" and x[2] == s_node and kind == "ack" and math.isnan(connected_at):
                connected_at = t
    return FlowCounts(delivered, rtx, acks, ack_bytes, connected_at - syn_at)


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
            "ns2_packet_sizes": True,
            "mac": dict(base["wireless"]["mac"]),
        },
        "mobility": {"model": "static"},
        "nodes": [
            {"name": f"n{i}", "wlan": 1, "x": f"{50.0 + CHAIN_SPACING_M * i}m", "y": "50m"}
            for i in range(hops + 1)
        ],
        "flows": [flow],
    }


def ns2_chain_throughput(
    hops: int, seed: int, duration_s: float, tmp: Path, cache: Path | None = None
) -> float:
    """ns-2's throughput of the chain (payload bits delivered in order per second),
    from `cache` when it holds this run."""
    store = ns2_oracle.Ns2Cache(cache)
    key = store.key(
        "chain",
        {
            "script": ns2_oracle.script_text("wireless_chain.tcl"),
            "reader": inspect.getsource(read_tcp_agt),
            "args": [hops, seed, f"{duration_s:g}"],
        },
    )
    hit = store.get("chain", key)
    if hit is not None:
        return float(hit["bps"])
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
    bps = c.delivered_bytes * 8 / duration_s
    store.put("chain", key, {"bps": bps})
    return bps


def _chain_ns2_job(job: tuple[int, int, float, str | None]) -> float:
    hops, seed, duration_s, cache = job
    with tempfile.TemporaryDirectory(prefix="sctplab-chain-") as d:
        return ns2_chain_throughput(hops, seed, duration_s, Path(d), _path(cache))


def _chain_ours_job(job: tuple[int, int, float]) -> float:
    hops, seed, duration_s = job
    summary = run(chain_scenario(hops, duration_s), seed=seed).summary
    return float(summary["flows"]["tcp"]["goodput_bps"])


def _path(p: str | None) -> Path | None:
    return None if p is None else Path(p)


def _str(p: Path | None) -> str | None:
    return None if p is None else str(p)


def chain(
    tmp: Path,
    seeds: int,
    duration_s: float,
    cache: Path | None = None,
    jobs: int | None = None,
) -> list[Check]:
    cases = [(h, s) for h in CHAIN_HOPS for s in range(1, seeds + 1)]
    theirs_all = pool_map(
        _chain_ns2_job, [(h, s, duration_s, _str(cache)) for h, s in cases], jobs, "chains ns-2"
    )
    mine_all = pool_map(
        _chain_ours_job, [(h, s, duration_s) for h, s in cases], jobs, "chains sctplab"
    )
    checks = []
    for hops in CHAIN_HOPS:
        theirs = [v for (h, _), v in zip(cases, theirs_all, strict=True) if h == hops]
        mine = [v for (h, _), v in zip(cases, mine_all, strict=True) if h == hops]
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

Pair = tuple[int, int, float]


def manet_sets(speed: int, movement_file: Path | None, stop_s: float) -> dict[str, Any]:
    """Overrides of scenarios/manet-*.toml for one point: the maximum speed, the movement
    file to replay (None: draw it) and the end of the run."""
    sets: dict[str, Any] = {"mobility.max_speed": f"{speed}m/s", "wireless.ns2_packet_sizes": True}
    if movement_file is not None:
        sets["mobility.file"] = str(movement_file)
    if stop_s != FULL_STOP_S:
        end = f"{stop_s:g}s"
        sets.update({"duration": end, "measure.end": end, "flows.transport.stop": end})
    return sets


def manet_movement(speed: int, seed: int) -> str:
    """The random-waypoint movement sctplab draws for seed 004's scenario at `speed` m/s
    (pause 0) and `seed`, in ns-2's setdest format."""
    return movement(
        scenarios_dir() / "manet-tcp.toml", seed=seed, set=manet_sets(speed, None, FULL_STOP_S)
    )


def _pairs(summary_flows: dict[str, Any], transport: str) -> list[Pair]:
    # ns-2's $node_(i) is our node declared i-th (docs/scenario.md, [mobility] file).
    index = {n["name"]: i for i, n in enumerate(load_scenario(f"manet-{transport}.toml")["nodes"])}
    return sorted(
        (index[f["from"]], index[f["to"]], float(f["start_s"]))
        for name, f in summary_flows.items()
        if name.startswith("background.")
    )


def manet_ours(
    transport: str, seed: int, movement_file: Path, stop_s: float, speed: int = 10
) -> tuple[FlowCounts, list[Pair]]:
    """Our run of seed 004's scenario replaying `movement_file`: the transport flow's counts
    and the CBR pairs drawn (0-based node indices, start time)."""
    path = scenarios_dir() / f"manet-{transport}.toml"
    flows = run(path, seed=seed, set=manet_sets(speed, movement_file, stop_s)).summary["flows"]
    t = flows["transport"]
    connect = t.get("connect_time_s")
    counts = FlowCounts(
        float(t["delivered_bytes"]),
        float(t["retransmissions"]),
        float(t["ack_packets"]),
        float(t["ack_bytes"]),
        math.nan if connect is None else float(connect),
    )
    return counts, _pairs(flows, transport)


# The CBR pairs and start times are drawn when the scenario is built, before anything
# runs, so a run that stops just after the transport flow starts draws the same ones as
# the full run (manet() checks that they are equal). ns-2's side needs only them.
PAIRS_STOP_S = MANET_START_S + 1.0


def manet_pairs(transport: str, seed: int, movement_file: Path, speed: int) -> list[Pair]:
    """The CBR pairs of our run of `seed`, from a short run."""
    path = scenarios_dir() / f"manet-{transport}.toml"
    sets = manet_sets(speed, movement_file, PAIRS_STOP_S)
    return _pairs(run(path, seed=seed, set=sets).summary["flows"], transport)


# ns-2.35's AODV sometimes dies of a segmentation fault in aodv_rt_entry::pc_insert (a
# precursor-list insert during RREQ/RREP handling) on long MANET runs; seen with SCTP, and
# whether a run dies changes with ns-2's seed and even with tracing on or off (a memory
# error). ns-2's seed only drives its own MAC backoff and AODV jitter (the movement and the
# CBR pairs are fixed by the files), so a crashed run is rerun with another ns-2 seed; a
# movement whose every attempt crashes is left out of the pairs. The rows say both.
NS2_SEED_STRIDE = 1000
NS2_ATTEMPTS = 3


def _pairs_text(pairs: list[Pair]) -> str:
    return "".join(f"{a} {b} {t!r}\n" for a, b, t in pairs)


def manet_ns2(
    transport: str,
    seed: int,
    movement_file: Path,
    pairs: list[Pair],
    stop_s: float,
    tmp: Path,
    cache: Path | None = None,
) -> tuple[FlowCounts | None, int]:
    """ns-2's counts for one movement (None if every attempt crashed), and how many ns-2
    runs crashed; from `cache` when it holds this run."""
    store = ns2_oracle.Ns2Cache(cache)
    read = read_tcp_agt if transport == "tcp" else read_sctp_agt
    key = store.key(
        "manet",
        {
            "script": ns2_oracle.script_text("manet.tcl"),
            "reader": inspect.getsource(read) + inspect.getsource(_agt),
            "movement": ns2_oracle.text_digest(movement_file.read_text()),
            "pairs": _pairs_text(pairs),
            "args": [transport, seed, f"{stop_s:g}", MANET_START_S],
            "attempts": [NS2_ATTEMPTS, NS2_SEED_STRIDE],
        },
    )
    hit = store.get("manet", key)
    if hit is not None:
        c = hit["counts"]
        return (None if c is None else FlowCounts(*map(float, c))), int(hit["crashed"])
    pairs_file = tmp / f"pairs-{transport}-{seed}.txt"
    pairs_file.write_text(_pairs_text(pairs))
    tr = tmp / f"manet-{transport}-{seed}.tr"
    args = [str(ns2_oracle.script("manet.tcl")), transport, str(movement_file), str(pairs_file)]
    counts: FlowCounts | None = None
    crashed = NS2_ATTEMPTS
    for attempt in range(NS2_ATTEMPTS):
        ns_seed = seed + attempt * NS2_SEED_STRIDE
        try:
            _ns([*args, str(ns_seed), f"{stop_s:g}", str(tr)], tmp)
        except subprocess.CalledProcessError as e:
            if e.returncode >= 0:
                raise
            continue
        counts = read(tr, 0, 1, MANET_START_S, stop_s)
        tr.unlink()
        crashed = attempt
        break
    tr.unlink(missing_ok=True)
    value = None if counts is None else list(dataclasses.astuple(counts))
    store.put("manet", key, {"counts": value, "crashed": crashed})
    return counts, crashed


@dataclass(frozen=True)
class ManetJob:
    """One point of the MANET replay, for a pool worker."""

    transport: str
    speed: int
    seed: int
    movement: str  # setdest text
    stop_s: float
    cache: str | None = None


def _manet_ns2_job(job: ManetJob) -> tuple[list[Pair], FlowCounts | None, int]:
    with tempfile.TemporaryDirectory(prefix="sctplab-manet-ns2-") as d:
        tmp = Path(d)
        mv = tmp / "movement.tcl"
        mv.write_text(job.movement)
        pairs = manet_pairs(job.transport, job.seed, mv, job.speed)
        counts, crashed = manet_ns2(
            job.transport, job.seed, mv, pairs, job.stop_s, tmp, _path(job.cache)
        )
        return pairs, counts, crashed


def _manet_ours_job(job: ManetJob) -> tuple[FlowCounts, list[Pair]]:
    with tempfile.TemporaryDirectory(prefix="sctplab-manet-ours-") as d:
        mv = Path(d) / "movement.tcl"
        mv.write_text(job.movement)
        return manet_ours(job.transport, job.seed, mv, job.stop_s, job.speed)


MANET_METRICS = ("goodput_bps", "retransmissions", "ack_bytes")
# Measured of TCP only (ns-2's trace shows SCTP's four set-up chunks alike, `I`).
TCP_ONLY_METRICS = ("connect_time_s",)


def _metrics(transport: str) -> tuple[str, ...]:
    return MANET_METRICS + (TCP_ONLY_METRICS if transport == "tcp" else ())


def manet_rows(speeds: int) -> int:
    """How many MANET rows a run of `speeds` speeds has (the Bonferroni family)."""
    return speeds * (len(_metrics("tcp")) + len(_metrics("sctp")))


def _metric(c: FlowCounts, metric: str, window_s: float) -> float:
    if metric == "goodput_bps":
        return c.delivered_bytes * 8 / window_s
    if metric == "connect_time_s" and math.isnan(c.connect_time_s):
        # Not open by the end: censored at the window's length.
        return window_s
    return float(getattr(c, metric))


def paired_confidence(rows: int) -> float:
    """The confidence of each MANET row's interval of paired differences: Bonferroni's
    for a family of `rows` rows at 5 % (docs/validation.md, "Tolerance")."""
    return 1.0 - FAMILY_ALPHA / rows


def manet(
    tmp: Path,
    seeds: int,
    stop_s: float,
    speeds: Sequence[int] = (10,),
    cache: Path | None = None,
    jobs: int | None = None,
) -> list[Check]:
    """The MANET rows: for each speed, transport and metric one row of `seeds` movements
    paired. ns-2's results come from `cache` when it holds them."""
    window_s = stop_s - MANET_START_S
    movements = {(sp, k): manet_movement(sp, k) for sp in speeds for k in range(1, seeds + 1)}
    points = [(sp, tr, k) for sp in speeds for tr in ("tcp", "sctp") for k in range(1, seeds + 1)]
    jobs_list = [
        ManetJob(tr, sp, k, movements[(sp, k)], stop_s, _str(cache)) for sp, tr, k in points
    ]
    # ns-2 first: its runs are the long ones (unless cached).
    theirs_all = pool_map(_manet_ns2_job, jobs_list, jobs, "MANET ns-2")
    mine_all = pool_map(_manet_ours_job, jobs_list, jobs, "MANET sctplab")
    confidence = paired_confidence(manet_rows(len(speeds)))
    checks = []
    for sp in speeds:
        for transport in ("tcp", "sctp"):
            per_seed = []
            crashes = 0
            lost = 0
            for i, (p_sp, p_tr, k) in enumerate(points):
                if (p_sp, p_tr) != (sp, transport):
                    continue
                pairs, theirs, crashed = theirs_all[i]
                mine, my_pairs = mine_all[i]
                if pairs != my_pairs:
                    raise RuntimeError(
                        f"MANET {transport} {sp} m/s seed {k}: the short run drew other CBR "
                        "pairs than the full run, so ns-2 did not replay our traffic"
                    )
                crashes += crashed
                if theirs is None:
                    lost += 1
                else:
                    per_seed.append((theirs, mine))
            note = f", {crashes} ns-2 run(s) crashed" if crashes else ""
            note += f", {lost} movement(s) left out" if lost else ""
            for metric in _metrics(transport):
                theirs_v = [_metric(t, metric, window_s) for t, _ in per_seed]
                mine_v = [_metric(m, metric, window_s) for _, m in per_seed]
                tm, tci, _ = mean_ci(theirs_v)
                mm, mci, _ = mean_ci(mine_v)
                diffs = [m - t for t, m in zip(theirs_v, mine_v, strict=True)]
                _, dci, _ = mean_ci(diffs, confidence=confidence)
                checks.append(
                    Check(
                        f"manet_{transport}_{metric}",
                        f"seed-004 replay, {sp} m/s, {window_s:g} s, {len(per_seed)} "
                        f"movements, paired{note}",
                        tm,
                        tci,
                        mm,
                        mci,
                        _tolerance(tm, dci),
                    )
                )
    return checks


def wireless(
    tmp: Path, quick: bool = False, cache: Path | None = None, jobs: int | None = None
) -> list[Check]:
    """The wireless rows, in order: chains of 1..7 hops, then MANET TCP and SCTP per
    speed, then the saturated cell. ns-2's results come from `cache` when it has them."""
    plan = QUICK if quick else FULL
    return (
        chain(tmp, plan.chain_seeds, plan.chain_duration_s, cache, jobs)
        + manet(tmp, plan.manet_seeds, plan.manet_stop_s, plan.manet_speeds, cache, jobs)
        + cell.checks(plan.cell_ns, plan.cell_seeds, plan.cell_duration_s, cache, jobs)
    )
