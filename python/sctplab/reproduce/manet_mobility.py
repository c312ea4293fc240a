"""Seed 004's movement: the pairing check across transports and cases, and how often the
endpoints are within one hop of each other (read from the setdest text)."""

from __future__ import annotations

import bisect
import math
from pathlib import Path

from sctplab.reproduce.common import Figure, pyplot, save_figure
from sctplab.reproduce.manet_format import p_text
from sctplab.reproduce.manet_study import (
    BASE_RATE,
    SPEEDS,
    TRANSPORTS,
    Key,
    Study,
    scenario,
    sets_for,
)
from sctplab.reproduce.setdest import read_setdest
from sctplab.stats import finite


def check_pairing(st: Study) -> tuple[str, dict[Key, str]]:
    """Same seed, same movement and CBR pairs, for TCP and SCTP and across cases."""
    from sctplab.runner import movement

    base = {t: scenario(t) for t in TRANSPORTS}
    mv: dict[Key, str] = {}
    bad_transport = bad_cbr = 0
    points = [k for k in st.runs if k.transport == "tcp"]
    for k in points:
        sctp = Key("sctp", k.case, k.speed, k.rate, k.seed)
        sets = sets_for(k, st.end_s)
        mv[k] = movement(base["tcp"], seed=k.seed, set=sets)
        if movement(base["sctp"], seed=k.seed, set=sets) != mv[k]:
            bad_transport += 1
        if st.runs[k]["background"] != st.runs[sctp]["background"]:
            bad_cbr += 1
    bad_mh = bad_static = bad_cases_cbr = 0
    for k in points:
        if k.case != "sh-mobile" or k.rate != BASE_RATE:
            continue
        mh = Key("tcp", "mh-mobile", k.speed, k.rate, k.seed)
        ms = Key("tcp", "mh-static", k.speed, k.rate, k.seed)
        if mv[mh] != mv[k]:
            bad_mh += 1
        if _without_endpoint_legs(mv[ms]) != _without_endpoint_legs(mv[k]):
            bad_static += 1
        if not (st.runs[k]["background"] == st.runs[mh]["background"] == st.runs[ms]["background"]):
            bad_cases_cbr += 1
    n = len(points)
    ok = bad_transport == bad_cbr == 0
    text = (
        f"**Paired comparisons.** For each of the {n} (case, speed or load, seed) points the "
        f"TCP and the SCTP run have {'the same' if ok else 'NOT always the same'} movement "
        f"(setdest text from `sctplab movement`: {n - bad_transport}/{n} identical) and the "
        f"same CBR pairs and start times ({n - bad_cbr}/{n} identical), so TCP and SCTP are "
        "compared seed by seed (paired t). Across cases, with the same seed and speed: "
        f"`mh-mobile` moves exactly as `sh-mobile` ({len(_mob(points)) - bad_mh}/"
        f"{len(_mob(points))}); `mh-static` is that movement with n0's and n1's legs "
        f"removed ({len(_mob(points)) - bad_static}/{len(_mob(points))}); CBR pairs are the "
        f"same in all three cases ({len(_mob(points)) - bad_cases_cbr}/{len(_mob(points))}). "
        "Different speeds draw different legs, so comparisons across speeds or loads are "
        "unpaired."
    )
    return text, mv


def _mob(points: list[Key]) -> list[Key]:
    return [k for k in points if k.case == "sh-mobile" and k.rate == BASE_RATE]


def _without_endpoint_legs(text: str) -> list[str]:
    return [
        line
        for line in text.splitlines()
        if not (("node_(0)" in line or "node_(1)" in line) and "setdest" in line)
        and not line.startswith("#")
    ]


# ---- movement, to explain what mobility does


ONE_HOP_M = 250.0  # ns-2's default receive range with two-ray ground at 2 Mb/s


def _legs(text: str) -> tuple[dict[int, tuple[float, float]], dict[int, list[tuple[float, ...]]]]:
    """Start positions and (time, x, y, speed) legs per node of a setdest file."""
    start, cmds = read_setdest(text)
    legs: dict[int, list[tuple[float, ...]]] = {}
    for t, n, x, y, v in cmds:
        legs.setdefault(n, []).append((t, x, y, v))
    return start, legs


def _track(
    pos: tuple[float, float], legs: list[tuple[float, ...]], times: list[float]
) -> tuple[list[tuple[float, float]], float]:
    """Positions at `times` (ascending) and the time-integral of speed over
    [times[0], times[-1]] for one node: each leg goes in a straight line at its speed
    from where the node is when it starts (ns-2 `setdest`)."""
    legs = sorted(legs)
    out: list[tuple[float, float]] = []
    t0, t1 = times[0], times[-1]
    moved = 0.0
    x, y = pos
    # Segments (start time, start point, end time, end point) of the piecewise path.
    segs: list[tuple[float, float, float, float, float, float]] = []
    for i, (t, dx, dy, v) in enumerate(legs):
        nxt = legs[i + 1][0] if i + 1 < len(legs) else math.inf
        dist = math.hypot(dx - x, dy - y)
        dur = dist / v if v > 0 else math.inf
        stop = min(t + dur, nxt)
        frac = (stop - t) / dur if dur not in (0.0, math.inf) else (0.0 if dur == math.inf else 1)
        ex, ey = x + (dx - x) * frac, y + (dy - y) * frac
        segs.append((t, x, y, stop, ex, ey))
        moved += v * max(0.0, min(stop, t1) - max(t, t0))
        x, y = ex, ey
    seg_starts = [sg[0] for sg in segs]
    for tm in times:
        k = bisect.bisect_right(seg_starts, tm) - 1
        if k < 0:
            out.append(pos)
            continue
        st, sx, sy, en, ex, ey = segs[k]
        f = 1.0 if tm >= en or en <= st else (tm - st) / (en - st)
        out.append((sx + (ex - sx) * f, sy + (ey - sy) * f))
    return out, moved


def movement_stats(text: str, start_s: float, end_s: float) -> tuple[float, float]:
    """(mean speed of all nodes over [start_s, end_s] in m/s, share of that time, sampled
    every second, in which n0 and n1 are within one hop of each other)."""
    starts, legs = _legs(text)
    times = [start_s + i for i in range(int(end_s - start_s) + 1)]
    total = 0.0
    tracks: dict[int, list[tuple[float, float]]] = {}
    for n, p in starts.items():
        tr, moved = _track(p, legs.get(n, []), times)
        tracks[n] = tr
        total += moved
    mean_speed = total / len(starts) / (end_s - start_s)
    near = sum(1 for a, b in zip(tracks[0], tracks[1], strict=True) if math.dist(a, b) <= ONE_HOP_M)
    return mean_speed, near / len(times)


def _hop_points(
    st: Study, moves: dict[Key, tuple[float, float]], transport: str
) -> list[tuple[int, float, float]]:
    """(max speed, one-hop share, goodput) of every `sh-mobile` mobility run."""
    return [
        (
            k.speed,
            moves[k][1],
            st.value(Key(transport, k.case, k.speed, k.rate, k.seed), "goodput_bps"),
        )
        for k in moves
        if k.case == "sh-mobile" and k.rate == BASE_RATE
    ]


def _one_hop_figure(out: Path, st: Study, moves: dict[Key, tuple[float, float]]) -> Figure:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, t in zip(axes, TRANSPORTS, strict=True):
        for sp in SPEEDS:
            pts = [(h, g) for s_, h, g in _hop_points(st, moves, t) if s_ == sp]
            ax.scatter([100 * h for h, _ in pts], [g / 1e3 for _, g in pts], label=f"{sp} m/s")
        ax.set_title(f"{t.upper()}, no multihoming")
        ax.set_xlabel("time n0 and n1 are within 250 m (%)")
    axes[0].set_ylabel("goodput (kb/s)")
    axes[0].legend(title="max speed")
    fig.suptitle("Goodput of each movement scenario vs how long the endpoints are one hop apart")
    fig.tight_layout()
    png = out / "goodput_vs_one_hop.png"
    return save_figure(
        fig,
        png,
        "Goodput per scenario vs the share of time the endpoints are one hop apart",
        dpi=110,
    )


def mobility_explained(st: Study, moves: dict[Key, tuple[float, float]]) -> str:
    """What the movement scenarios do: the average node speed each maximum speed gives,
    and how much of the goodput the endpoints' distance explains."""
    from scipy.stats import pearsonr

    speeds = []
    for sp in SPEEDS:
        v = [
            m[0]
            for k, m in moves.items()
            if k.case == "sh-mobile" and k.rate == BASE_RATE and k.speed == sp
        ]
        speeds.append(f"{sp} m/s: {math.fsum(v) / len(v):.2f} m/s")
    rs = []
    for t in TRANSPORTS:
        pts = _hop_points(st, moves, t)
        hops = [h for _, h, _ in pts]
        goods = [g for _, _, g in pts]
        if len(set(hops)) > 1 and len(set(goods)) > 1:
            r = pearsonr(hops, goods)
            rs.append(f"{t.upper()} r = {float(r.statistic):.2f} ({p_text(float(r.pvalue))})")
    spread = []
    for t in TRANSPORTS:
        for sp in (SPEEDS[0], SPEEDS[-1]):
            g = finite(st.mobility(t, "sh-mobile", sp, "goodput_bps"))
            spread.append(f"{t.upper()} {sp} m/s {min(g) / 1e3:.0f}-{max(g) / 1e3:.0f}")
    return (
        "**What the movement scenarios do.** Time-averaged speed of the 46 nodes over the "
        "transport's window, mean over scenarios (maximum speed: average): "
        + ", ".join(speeds)
        + ". setdest -v 1 draws each leg's speed from U(0, max) and slow legs last longest, "
        "so nodes move at well under half the maximum on average. Goodput per scenario "
        "follows how long n0 and n1 are within one hop (250 m) of each other "
        f"(`sh-mobile` runs, all speeds: {', '.join(rs)}; see the scatter plot), and ranges "
        f"across scenarios (kb/s): {', '.join(spread)}. The scenario drawn matters more than "
        "the speed, which is why the mobility trends need many scenarios to show."
    )
