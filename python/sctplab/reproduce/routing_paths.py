"""Path optimality as Broch et al. (MobiCom 1998) define it: for each CBR packet delivered,
the hops it took minus the length of the shortest path that physically existed between
its source and destination when it was sent.

Hops taken: the destination's agent-level receive line (`r ... AGT ... cbr`) of the run's
ns-2 trace ends in `[seq] num_forwards 0`, where num_forwards counts the MAC receptions
on the packet's way (1 for a neighbour). The send time, source and destination come from
the source's `s ... AGT` line with the same packet uid.

Shortest path: the node positions at the send time, from the run's movement (the setdest
text `sctplab movement` writes, which the run replays: straight legs at constant speed),
joined by a link wherever two nodes are within RANGE_M, and a breadth-first search from
the source. ns-2's God object, which Broch et al. used, does the same from the same
positions with the same range.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from pathlib import Path

import numpy as np
import numpy.typing as npt

from sctplab.reproduce.setdest import read_setdest

# The receive range of ns-2.35's defaults (two-ray ground, Pt_ 0.28183815 W, RXThresh_
# 3.652e-10 W, antennas 1.5 m high: docs/models/wireless.md), which our channel uses.
RANGE_M = 250.0
NO_PATH = -1

Track = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]


def tracks(setdest: str) -> dict[int, Track]:
    """Per node, breakpoints (times, xs, ys) of its piecewise-linear path: a node is at
    its `set X_/Y_` position from time 0; `setdest X Y v` at time t moves it from where it
    is at t straight to (X, Y) at v m/s (v = 0: it stays); a later command cuts the leg."""
    start, cmds = read_setdest(setdest)
    pts: dict[int, list[tuple[float, float, float]]] = {
        n: [(0.0, p[0], p[1])] for n, p in start.items()
    }
    # Same-time commands keep their file order (a stable sort), as the run applies them.
    for t, n, x, y, v in sorted(cmds, key=lambda c: c[0]):
        path = pts[n]
        px, py = _at(path, t)
        while path and path[-1][0] > t:
            path.pop()
        path.append((t, px, py))
        if v > 0:
            path.append((t + math.hypot(x - px, y - py) / v, x, y))
    return {
        n: (
            np.array([p[0] for p in path]),
            np.array([p[1] for p in path]),
            np.array([p[2] for p in path]),
        )
        for n, path in pts.items()
    }


def _at(path: list[tuple[float, float, float]], t: float) -> tuple[float, float]:
    """Position at t on breakpoints in time order (linear between them, held after)."""
    if t >= path[-1][0]:
        return path[-1][1], path[-1][2]
    for (t0, x0, y0), (t1, x1, y1) in itertools.pairwise(path):
        if t0 <= t <= t1:
            f = 0.0 if t1 == t0 else (t - t0) / (t1 - t0)
            return x0 + (x1 - x0) * f, y0 + (y1 - y0) * f
    return path[0][1], path[0][2]


def positions(
    trk: dict[int, Track], times: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(xs, ys), each [len(times), nodes]: every node's position at every time."""
    nodes = sorted(trk)
    xs = np.stack([np.interp(times, trk[n][0], trk[n][1]) for n in nodes], axis=1)
    ys = np.stack([np.interp(times, trk[n][0], trk[n][2]) for n in nodes], axis=1)
    return xs, ys


def shortest_hops(
    trk: dict[int, Track],
    times: npt.NDArray[np.float64],
    src: npt.NDArray[np.int64],
    dst: npt.NDArray[np.int64],
    range_m: float = RANGE_M,
    chunk: int = 2048,
) -> npt.NDArray[np.int64]:
    """Hops of the shortest path from src[i] to dst[i] at times[i] over links of at most
    `range_m` (NO_PATH where none exists): a breadth-first search, many packets at once."""
    out = np.full(len(times), NO_PATH, dtype=np.int64)
    r2 = range_m * range_m
    for lo in range(0, len(times), chunk):
        hi = min(lo + chunk, len(times))
        xs, ys = positions(trk, times[lo:hi])
        dx = xs[:, :, None] - xs[:, None, :]
        dy = ys[:, :, None] - ys[:, None, :]
        adj = ((dx * dx + dy * dy) <= r2).astype(np.float32)
        b, n = xs.shape
        rows = np.arange(b)
        frontier = np.zeros((b, n), dtype=bool)
        frontier[rows, src[lo:hi]] = True
        seen = frontier.copy()
        hops = np.where(src[lo:hi] == dst[lo:hi], 0, NO_PATH)
        for k in range(1, n):
            nxt = (frontier.astype(np.float32)[:, None, :] @ adj)[:, 0, :]
            frontier = (nxt > 0) & ~seen
            seen |= frontier
            hit = frontier[rows, dst[lo:hi]] & (hops == NO_PATH)
            hops[hit] = k
            if not frontier.any() or (hops != NO_PATH).all():
                break
        out[lo:hi] = hops
    return out


def agent_records(
    trace: Path,
) -> tuple[dict[int, tuple[float, int, int]], dict[int, int]]:
    """From an ns-2 wireless trace: CBR packets sent ({uid: (time, source, destination)})
    and received at their destination's agent ({uid: hops taken}); a second reception of
    the same uid is ignored."""
    sent: dict[int, tuple[float, int, int]] = {}
    got: dict[int, int] = {}
    with trace.open() as f:
        for line in f:
            if " AGT " not in line or " cbr " not in line:
                continue
            p = line.split()
            # op time _node_ AGT --- uid cbr size [mac x4] ------- [src:port dst:port ttl
            # next] [seq] num_forwards opt_num_forwards
            uid = int(p[5])
            if p[0] == "s":
                src = int(p[13][1:].split(":")[0])
                dst = int(p[14].split(":")[0])
                sent[uid] = (float(p[1]), src, dst)
            elif p[0] == "r" and uid not in got:
                got[uid] = int(p[18])
    return sent, got


def optimality(trace: Path, setdest: str) -> dict[str, object]:
    """Per run: a histogram {hops taken - shortest: packets} over delivered CBR packets
    with a path at their send time, and how many had none (`no_path`) or no send line
    (`unmatched`, which would mean the trace is cut)."""
    sent, got = agent_records(trace)
    uids = [u for u in got if u in sent]
    times = np.array([sent[u][0] for u in uids], dtype=np.float64)
    src = np.array([sent[u][1] for u in uids], dtype=np.int64)
    dst = np.array([sent[u][2] for u in uids], dtype=np.int64)
    taken = np.array([got[u] for u in uids], dtype=np.int64)
    best = shortest_hops(tracks(setdest), times, src, dst)
    ok = best != NO_PATH
    hist = Counter(int(d) for d in (taken[ok] - best[ok]))
    return {
        "hist": {str(k): v for k, v in sorted(hist.items())},
        "no_path": int((~ok).sum()),
        "unmatched": len(got) - len(uids),
        "sent": len(sent),
        "delivered": len(got),
    }
