"""Seed 004's TCP scenario replayed under one routing protocol by ns-2.35 and by us, the
movement sctplab draws for seed K exported as an ns-2 setdest file, ns-2 given the CBR
pairs and start times of our run, per-movement differences paired: the machinery the
DSDV and DSR rows of `sctplab validate ns2` share (sctplab.validation.dsdv, .dsr).
Each protocol brings its name, ns-2's `-adhocRouting` value and how ns-2's trace shows
its routing packets."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sctplab.ns2 import oracle as ns2_oracle
from sctplab.runner import run
from sctplab.scenario_paths import scenarios_dir
from sctplab.stats import mean_ci
from sctplab.validation import wireless as w
from sctplab.validation.check import Check
from sctplab.validation.pool import pool_map

METRICS = ("delivery_ratio", "routing_packets", "tcp_connect_time_s", "tcp_goodput_bps")


@dataclass(frozen=True)
class Plan:
    speeds: tuple[int, ...]
    seeds: int
    stop_s: float


QUICK = Plan(speeds=(10,), seeds=3, stop_s=120.0)
FULL = Plan(speeds=w.SPEEDS, seeds=12, stop_s=w.FULL_STOP_S)


@dataclass(frozen=True)
class Protocol:
    """One routing protocol's rows: `name` as in `[wireless] routing` (and the rows'
    prefix and the ns-2 cache's namespace), `ns2` as ns-2.35's `-adhocRouting`; its
    routing packets in ns-2's trace are the RTR lines of an event in `trace_events`
    (`s` sent, `f` forwarded) and packet type `trace_type`."""

    name: str
    ns2: str
    trace_events: tuple[str, ...]
    trace_type: str


def read_trace(path: Path, start: float, end: float, proto: Protocol) -> tuple[int, int, int]:
    """(CBR packets sent in [start, end), those of them received, `proto`'s routing
    packets) from an ns-2 trace of AGT and RTR lines; a packet is known by its unique id
    (field 6)."""
    sent: set[str] = set()
    got = 0
    routing = 0
    with path.open() as f:
        for line in f:
            x = line.split()
            if len(x) < 8:
                continue
            if x[3] == "AGT" and x[6] == "cbr":
                if x[0] == "s" and start <= float(x[1]) < end:
                    sent.add(x[5])
                elif x[0] == "r" and x[5] in sent:
                    got += 1
            elif x[3] == "RTR" and x[0] in proto.trace_events and x[6] == proto.trace_type:
                routing += 1
    return len(sent), got, routing


@dataclass
class Point:
    """What one simulator measured of one movement."""

    delivery_ratio: float
    routing_packets: float
    tcp_connect_time_s: float
    tcp_goodput_bps: float


def ratio(got: float, sent: float) -> float:
    return got / sent if sent else math.nan


def ns2_point(
    proto: Protocol,
    speed: int,
    seed: int,
    movement_file: Path,
    stop_s: float,
    tmp: Path,
    cache: Path | None,
) -> Point:
    """ns-2.35's run of `proto` on one movement (from `cache` when it holds it)."""
    store = ns2_oracle.Ns2Cache(cache)
    pairs = w.manet_pairs("tcp", seed, movement_file, speed)
    key = store.key(
        proto.name,
        {
            "script": ns2_oracle.script_text("manet.tcl")
            + ns2_oracle.script_text("wireless_node.tcl"),
            "reader": inspect.getsource(read_trace)
            + repr((proto.trace_events, proto.trace_type))
            + inspect.getsource(w.read_tcp_agt)
            + inspect.getsource(w._agt),
            "movement": ns2_oracle.text_digest(movement_file.read_text()),
            "pairs": w._pairs_text(pairs),
            "args": [seed, f"{stop_s:g}", w.MANET_START_S],
        },
    )
    hit = store.get(proto.name, key)
    if hit is not None:
        return Point(*map(float, hit["point"]))
    pairs_file = tmp / f"pairs-{seed}.txt"
    pairs_file.write_text(w._pairs_text(pairs))
    tr = tmp / f"{proto.name}-{seed}.tr"
    script = str(ns2_oracle.script("manet.tcl"))
    args = [script, "tcp", str(movement_file), str(pairs_file), str(seed), f"{stop_s:g}"]
    w._ns([*args, str(tr), proto.ns2], tmp)
    sent, got, routing = read_trace(tr, w.MANET_START_S, stop_s, proto)
    tcp = w.read_tcp_agt(tr, 0, 1, w.MANET_START_S, stop_s)
    tr.unlink()
    window = stop_s - w.MANET_START_S
    p = Point(ratio(got, sent), routing, tcp.connect_time_s, tcp.delivered_bytes * 8 / window)
    store.put(proto.name, key, {"point": list(dataclasses.astuple(p))})
    return p


def ours_point(proto: Protocol, speed: int, seed: int, movement_file: Path, stop_s: float) -> Point:
    """Our run on one movement: seed 004's TCP scenario with `routing = proto.name`."""
    sets = w.manet_sets(speed, movement_file, stop_s)
    sets["wireless.routing"] = proto.name
    s = run(scenarios_dir() / "manet-tcp.toml", seed=seed, set=sets).summary
    flows = s["flows"]
    cbr = [f for name, f in flows.items() if name.startswith("background.")]
    sent = sum(int(f["data_packets_sent"]) for f in cbr)
    got = sum(int(f["delivered_packets"]) for f in cbr)
    routing = sum(int(n["routing_packets"]) for n in s["nodes"].values())
    t = flows["transport"]
    connect = t.get("connect_time_s")
    window = stop_s - w.MANET_START_S
    return Point(
        ratio(got, sent),
        routing,
        math.nan if connect is None else float(connect),
        float(t["delivered_bytes"]) * 8 / window,
    )


@dataclass(frozen=True)
class Job:
    proto: Protocol
    speed: int
    seed: int
    movement: str  # setdest text
    stop_s: float
    cache: str | None = None


def _ns2_job(job: Job) -> Point:
    with tempfile.TemporaryDirectory(prefix=f"sctplab-{job.proto.name}-ns2-") as d:
        tmp = Path(d)
        mv = tmp / "movement.tcl"
        mv.write_text(job.movement)
        cache = None if job.cache is None else Path(job.cache)
        return ns2_point(job.proto, job.speed, job.seed, mv, job.stop_s, tmp, cache)


def _ours_job(job: Job) -> Point:
    with tempfile.TemporaryDirectory(prefix=f"sctplab-{job.proto.name}-ours-") as d:
        mv = Path(d) / "movement.tcl"
        mv.write_text(job.movement)
        return ours_point(job.proto, job.speed, job.seed, mv, job.stop_s)


def value(p: Point, metric: str, window_s: float) -> float:
    v = float(getattr(p, metric))
    if metric == "tcp_connect_time_s" and math.isnan(v):
        return window_s  # not open by the end: censored at the window's length
    return v


def checks(
    proto: Protocol,
    quick: bool = False,
    cache: Path | None = None,
    jobs: int | None = None,
    plan: Plan | None = None,
) -> list[Check]:
    """`proto`'s rows, per speed the four metrics, paired over movements (`plan`, if
    given, instead of QUICK or FULL)."""
    if plan is None:
        plan = QUICK if quick else FULL
    window_s = plan.stop_s - w.MANET_START_S
    points = [(sp, k) for sp in plan.speeds for k in range(1, plan.seeds + 1)]
    cache_s = None if cache is None else str(cache)
    job_list = [
        Job(proto, sp, k, w.manet_movement(sp, k), plan.stop_s, cache_s) for sp, k in points
    ]
    label = proto.name.upper()
    theirs_all = pool_map(_ns2_job, job_list, jobs, f"{label} ns-2")
    mine_all = pool_map(_ours_job, job_list, jobs, f"{label} sctplab")
    confidence = w.paired_confidence(len(plan.speeds) * len(METRICS))
    rows = []
    for sp in plan.speeds:
        pick = [i for i, (p_sp, _) in enumerate(points) if p_sp == sp]
        for metric in METRICS:
            theirs = [value(theirs_all[i], metric, window_s) for i in pick]
            mine = [value(mine_all[i], metric, window_s) for i in pick]
            tm, tci, _ = mean_ci(theirs)
            mm, mci, _ = mean_ci(mine)
            diffs = [m - t for t, m in zip(theirs, mine, strict=True)]
            _, dci, _ = mean_ci(diffs, confidence=confidence)
            rows.append(
                Check(
                    f"{proto.name}_{metric}",
                    f"seed-004 TCP replay under {label}, {sp} m/s, {window_s:g} s, "
                    f"{len(pick)} movements, paired",
                    tm,
                    tci,
                    mm,
                    mci,
                    w._tolerance(tm, dci),
                )
            )
    return rows


def main(proto: Protocol, argv: list[str] | None = None) -> int:
    """`python -m sctplab.validation.<name> [--speed S] [--seeds N] [--stop T] [--cache DIR]`:
    `proto`'s rows for one plan, one line a row (docs/validation.md's tables)."""
    p = argparse.ArgumentParser(prog=f"python -m sctplab.validation.{proto.name}")
    p.add_argument("--speed", type=int, action="append", help="m/s (repeatable; default 10)")
    p.add_argument("--seeds", type=int, default=QUICK.seeds)
    p.add_argument("--stop", type=float, default=QUICK.stop_s, help="end of the run, s")
    p.add_argument("--cache", type=Path, default=None)
    p.add_argument("--jobs", type=int, default=None)
    a = p.parse_args(argv)
    plan = Plan(speeds=tuple(a.speed or [10]), seeds=a.seeds, stop_s=a.stop)
    rows = checks(proto, cache=a.cache, jobs=a.jobs, plan=plan)
    for r in rows:
        print(" | ".join(r.cells()))
    return 0 if all(r.passed for r in rows) else 1
