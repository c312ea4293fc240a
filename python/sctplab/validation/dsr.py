"""The DSR rows of `sctplab validate ns2`: our DSR (`[wireless] routing = "dsr"`) against
ns-2.35's `Agent/DSRAgent` (with CMUPriQueue) on seed 004's scenario
(scenarios/manet-tcp.toml), as the DSDV rows (sctplab.validation.dsdv) compare DSDV:
the movement sctplab draws for seed K replayed by both, ns-2 given the CBR pairs and
start times of our run, per-movement differences paired. ns-2 runs
python/sctplab/ns2/manet.tcl with ROUTING = DSR. Four rows per speed:
- `dsr_delivery_ratio`: CBR packets delivered over CBR packets sent from the
  transport's start (20 s) to the end;
- `dsr_routing_packets`: DSR packets transmitted over the whole run, each hop counted
  (ns-2: `s` and `f` lines of type `DSR` at RTR; ours: `routing_packets` summed over
  nodes);
- `dsr_tcp_connect_time_s`: SYN to its ack at the sender (censored at the window);
- `dsr_tcp_goodput_bps`: TCP-SACK payload delivered in order from 20 s to the end.
Known difference: ns-2.35 runs DSR's flow-state extension (`dsragent_enable_flowstate`),
which we do not build: its established flows send data without the source route
(docs/models/wireless.md, DSR).
"""

from __future__ import annotations

import dataclasses
import inspect
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sctplab.ns2 import oracle as ns2_oracle
from sctplab.runner import run
from sctplab.scenario_paths import scenarios_dir
from sctplab.stats import mean_ci
from sctplab.validation import wireless as w
from sctplab.validation.check import Check
from sctplab.validation.dsdv import FULL, METRICS, QUICK, Plan, Point, _ratio, _value
from sctplab.validation.pool import pool_map


def read_dsr_trace(path: Path, start: float, end: float) -> tuple[int, int, int]:
    """(CBR packets sent in [start, end), those of them received, DSR packets sent or
    forwarded) from an ns-2 trace of AGT and RTR lines; a packet is known by its unique
    id (field 6)."""
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
            elif x[3] == "RTR" and x[0] in ("s", "f") and x[6] == "DSR":
                routing += 1
    return len(sent), got, routing


def ns2_point(
    speed: int, seed: int, movement_file: Path, stop_s: float, tmp: Path, cache: Path | None
) -> Point:
    """ns-2.35's DSR on one movement (from `cache` when it holds it)."""
    store = ns2_oracle.Ns2Cache(cache)
    pairs = w.manet_pairs("tcp", seed, movement_file, speed)
    key = store.key(
        "dsr",
        {
            "script": ns2_oracle.script_text("manet.tcl")
            + ns2_oracle.script_text("wireless_node.tcl"),
            "reader": inspect.getsource(read_dsr_trace)
            + inspect.getsource(w.read_tcp_agt)
            + inspect.getsource(w._agt),
            "movement": ns2_oracle.text_digest(movement_file.read_text()),
            "pairs": w._pairs_text(pairs),
            "args": [seed, f"{stop_s:g}", w.MANET_START_S],
        },
    )
    hit = store.get("dsr", key)
    if hit is not None:
        return Point(*map(float, hit["point"]))
    pairs_file = tmp / f"pairs-{seed}.txt"
    pairs_file.write_text(w._pairs_text(pairs))
    tr = tmp / f"dsr-{seed}.tr"
    script = str(ns2_oracle.script("manet.tcl"))
    args = [script, "tcp", str(movement_file), str(pairs_file), str(seed), f"{stop_s:g}"]
    w._ns([*args, str(tr), "DSR"], tmp)
    sent, got, routing = read_dsr_trace(tr, w.MANET_START_S, stop_s)
    tcp = w.read_tcp_agt(tr, 0, 1, w.MANET_START_S, stop_s)
    tr.unlink()
    window = stop_s - w.MANET_START_S
    p = Point(_ratio(got, sent), routing, tcp.connect_time_s, tcp.delivered_bytes * 8 / window)
    store.put("dsr", key, {"point": list(dataclasses.astuple(p))})
    return p


def ours_point(speed: int, seed: int, movement_file: Path, stop_s: float) -> Point:
    """Our DSR on one movement: seed 004's TCP scenario with `routing = "dsr"`."""
    sets = w.manet_sets(speed, movement_file, stop_s)
    sets["wireless.routing"] = "dsr"
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
        _ratio(got, sent),
        routing,
        float("nan") if connect is None else float(connect),
        float(t["delivered_bytes"]) * 8 / window,
    )


@dataclass(frozen=True)
class Job:
    speed: int
    seed: int
    movement: str  # setdest text
    stop_s: float
    cache: str | None = None


def _ns2_job(job: Job) -> Point:
    with tempfile.TemporaryDirectory(prefix="sctplab-dsr-ns2-") as d:
        tmp = Path(d)
        mv = tmp / "movement.tcl"
        mv.write_text(job.movement)
        cache = None if job.cache is None else Path(job.cache)
        return ns2_point(job.speed, job.seed, mv, job.stop_s, tmp, cache)


def _ours_job(job: Job) -> Point:
    with tempfile.TemporaryDirectory(prefix="sctplab-dsr-ours-") as d:
        mv = Path(d) / "movement.tcl"
        mv.write_text(job.movement)
        return ours_point(job.speed, job.seed, mv, job.stop_s)


def checks(
    tmp: Path,
    quick: bool = False,
    cache: Path | None = None,
    jobs: int | None = None,
    plan: Plan | None = None,
) -> list[Check]:
    """The DSR rows, per speed the four metrics, paired over movements (`plan`, if
    given, instead of QUICK or FULL, the DSDV rows' plans)."""
    del tmp  # each job has a directory of its own
    if plan is None:
        plan = QUICK if quick else FULL
    window_s = plan.stop_s - w.MANET_START_S
    points = [(sp, k) for sp in plan.speeds for k in range(1, plan.seeds + 1)]
    cache_s = None if cache is None else str(cache)
    job_list = [Job(sp, k, w.manet_movement(sp, k), plan.stop_s, cache_s) for sp, k in points]
    theirs_all = pool_map(_ns2_job, job_list, jobs, "DSR ns-2")
    mine_all = pool_map(_ours_job, job_list, jobs, "DSR sctplab")
    confidence = w.paired_confidence(len(plan.speeds) * len(METRICS))
    rows = []
    for sp in plan.speeds:
        pick = [i for i, (p_sp, _) in enumerate(points) if p_sp == sp]
        for metric in METRICS:
            theirs = [_value(theirs_all[i], metric, window_s) for i in pick]
            mine = [_value(mine_all[i], metric, window_s) for i in pick]
            tm, tci, _ = mean_ci(theirs)
            mm, mci, _ = mean_ci(mine)
            diffs = [m - t for t, m in zip(theirs, mine, strict=True)]
            _, dci, _ = mean_ci(diffs, confidence=confidence)
            rows.append(
                Check(
                    f"dsr_{metric}",
                    f"seed-004 TCP replay under DSR, {sp} m/s, {window_s:g} s, "
                    f"{len(pick)} movements, paired",
                    tm,
                    tci,
                    mm,
                    mci,
                    w._tolerance(tm, dci),
                )
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    """`python -m sctplab.validation.dsr [--speed S] [--seeds N] [--stop T] [--cache DIR]`:
    the DSR rows for one plan, one line a row."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m sctplab.validation.dsr")
    p.add_argument("--speed", type=int, action="append", help="m/s (repeatable; default 10)")
    p.add_argument("--seeds", type=int, default=QUICK.seeds)
    p.add_argument("--stop", type=float, default=QUICK.stop_s, help="end of the run, s")
    p.add_argument("--cache", type=Path, default=None)
    p.add_argument("--jobs", type=int, default=None)
    a = p.parse_args(argv)
    plan = Plan(speeds=tuple(a.speed or [10]), seeds=a.seeds, stop_s=a.stop)
    rows = checks(Path(tempfile.gettempdir()), cache=a.cache, jobs=a.jobs, plan=plan)
    for r in rows:
        print(" | ".join(r.cells()))
    return 0 if all(r.passed for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
