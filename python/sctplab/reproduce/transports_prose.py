"""The transports study's findings, every number taken from the runs (prose.py style:
no claim is written in advance; each sentence states what the numbers show)."""

from __future__ import annotations

import math

from sctplab.reproduce.prose import join, sig3
from sctplab.reproduce.transports_plan import (
    CUBIC_PROTOCOLS,
    KIB,
    Results,
    Stat,
    cubic_series,
)
from sctplab.reproduce.transports_runs import PROTOCOLS, TCP_SEGMENT, CubicKey, SatKey

# The satellite path's shortest round trip: 2 x (130 + 130) ms of propagation plus a
# 1500-byte packet's transmission on L1 (5 Mb/s) and L2 (10 Mb/s).
L1_BPS = 5e6
RTT_MIN_S = 0.52 + 1500 * 8 / L1_BPS + 1500 * 8 / 10e6
# One-way delay of a 1000-byte message alone on the path (one packet of about 1050 B).
ONE_WAY_S = 0.26 + 1050 * 8 / 5e6 + 1050 * 8 / 10e6


def _kbps(s: Stat) -> str:
    return f"{sig3(s[0] / 1e3)} kb/s"


def _overlap(a: Stat, b: Stat) -> bool:
    """Whether the two 95 % intervals overlap (an interval of one run is its mean)."""
    ca = 0.0 if math.isnan(a[1]) else a[1]
    cb = 0.0 if math.isnan(b[1]) else b[1]
    return abs(a[0] - b[0]) <= ca + cb


def _within(a: Stat, b: Stat) -> bool:
    """Whether each mean lies in the other's 95 % interval."""
    ca = 0.0 if math.isnan(a[1]) else a[1]
    cb = 0.0 if math.isnan(b[1]) else b[1]
    return abs(a[0] - b[0]) <= min(ca, cb)


def _window_bound_bps(protocol: str, buffer_bytes: int) -> float:
    """The most a window of the receive buffer delivers per shortest round trip (TCP's
    window is whole segments)."""
    credit = buffer_bytes // TCP_SEGMENT * TCP_SEGMENT if protocol == "tcp" else buffer_bytes
    return credit * 8 / RTT_MIN_S


def _satellite_goodput(res: Results) -> str:
    plan = res.plan
    small, large = plan.buffers[0], plan.buffers[-1]
    clean, lossy = plan.losses[0], plan.losses[-1]
    fractions = {
        p: res.sat[(SatKey(p, clean, small), "goodput_bps")][0] / _window_bound_bps(p, small)
        for p in PROTOCOLS
    }
    at_large = {p: res.sat[(SatKey(p, lossy, large), "goodput_bps")] for p in PROTOCOLS}
    ranked = sorted(PROTOCOLS, key=lambda p: -at_large[p][0])
    best, worst = ranked[0], ranked[-1]
    gap = at_large[best][0] / at_large[worst][0] if at_large[worst][0] else math.inf
    sep = "" if _overlap(at_large[best], at_large[worst]) else "; the intervals do not overlap"
    return (
        f"Receive buffer: with B = {small // KIB} KiB and no loss every protocol is "
        f"window-limited, at "
        + join(f"{p} {100 * fractions[p]:.0f} %" for p in PROTOCOLS)
        + f" of one buffer per shortest round trip ({RTT_MIN_S * 1e3:.1f} ms; "
        f"{sig3(_window_bound_bps('sctp', small) / 1e3)} kb/s): QUIC's flow-control credit "
        "limits it as SCTP's a_rwnd and TCP's window do. With loss the buffer matters less: "
        f"at {100 * lossy:g} % loss and B = {large // KIB} KiB "
        + join(f"{p} {_kbps(at_large[p])}" for p in ranked)
        + f" ({best} {gap:.2f}x {worst}{sep})."
    )


def _satellite_delay(res: Results) -> str:
    plan = res.plan
    small, large = plan.buffers[0], plan.buffers[-1]
    clean, lossy = plan.losses[0], plan.losses[-1]

    def d(p: str, loss: float, b: int, m: str = "message_delay_mean_s") -> float:
        return res.sat[(SatKey(p, loss, b), m)][0]

    # What a full window beyond the bandwidth-delay product leaves standing in L1's
    # queue, and the time a packet waits behind it at 5 Mb/s.
    bdp = L1_BPS * RTT_MIN_S / 8
    standing = max(0.0, large - bdp)
    return (
        "Message delay of the paced streams (served first by both schedulers): without "
        f"loss and with B = {small // KIB} KiB, below the bandwidth-delay product "
        f"({bdp / 1e3:.0f} kB), SCTP's mean is {d('sctp', clean, small) * 1e3:.0f} ms and "
        f"QUIC's {d('quic', clean, small) * 1e3:.0f} ms, against {ONE_WAY_S * 1e3:.0f} ms "
        f"for a lone 1000-byte packet's one-way trip; with B = {large // KIB} KiB "
        f"{d('sctp', clean, large) * 1e3:.0f} and {d('quic', clean, large) * 1e3:.0f} ms: "
        f"a window that fills the buffer keeps up to {standing / 1e3:.0f} kB beyond the "
        f"product in L1's queue, {standing * 8 / L1_BPS * 1e3:.0f} ms of waiting at 5 Mb/s, "
        "and the paced messages queue there behind the backlog's packets (a larger "
        f"buffer buys goodput with delay). At {100 * lossy:g} % loss and B = "
        f"{large // KIB} KiB the means are {d('sctp', lossy, large) * 1e3:.0f} (SCTP) and "
        f"{d('quic', lossy, large) * 1e3:.0f} ms (QUIC), the worst stream's 99th "
        f"percentile {d('sctp', lossy, large, 'message_delay_p99_s'):.2f} and "
        f"{d('quic', lossy, large, 'message_delay_p99_s'):.2f} s: a message behind a lost "
        f"packet on its own stream waits at least one more round trip ({RTT_MIN_S:.2f} s) "
        "for the repair."
    )


def _cubic(res: Results) -> str:
    plan = res.plan
    out: list[str] = []
    apart: list[float] = []
    for loss in plan.cubic_losses:
        t = res.cubic[(CubicKey("tcp", loss), "goodput_bps")]
        q = res.cubic[(CubicKey("quic", loss), "goodput_bps")]
        verdict = (
            "each within the other's interval"
            if _within(t, q)
            else ("the intervals overlap" if _overlap(t, q) else "the intervals apart")
        )
        out.append(
            f"{100 * loss:g} %: TCP {_kbps(t)} ± {sig3(t[1] / 1e3)}, QUIC {_kbps(q)} ± "
            f"{sig3(q[1] / 1e3)} ({verdict})"
        )
        if not _overlap(t, q):
            apart.append(loss)
    goodputs = [
        (
            res.cubic[(CubicKey("tcp", x), "goodput_bps")],
            res.cubic[(CubicKey("quic", x), "goodput_bps")],
        )
        for x in plan.cubic_losses
    ]
    if all(_within(t, q) for t, q in goodputs):
        held = "QUIC's and TCP's goodputs lie within each other's intervals at every loss rate"
    elif not apart:
        held = "QUIC's and TCP's goodput intervals overlap at every loss rate"
    else:
        held = "the goodputs' intervals are apart at " + join(f"{100 * x:g} %" for x in apart)

    def m(p: str, loss: float, metric: str) -> float:
        return res.cubic[(CubicKey(p, loss), metric)][0]

    lo, hi = plan.cubic_losses[0], plan.cubic_losses[-1]
    pay = {p: m(p, hi, "payload_bytes_per_data_packet") for p in CUBIC_PROTOCOLS}
    ack = {p: m(p, hi, "ack_packets_per_data_packet") for p in CUBIC_PROTOCOLS}
    rep = {p: 100 * m(p, lo, "repairs_per_data_packet") for p in CUBIC_PROTOCOLS}
    rto = 100 * m("tcp", lo, "timeout_repairs_per_data_packet")
    qd = {
        x: {p: 1e3 * m(p, x, "queue_delay_mean_s") for p in CUBIC_PROTOCOLS}
        for x in plan.cubic_losses
    }
    shorter = [x for x in plan.cubic_losses if qd[x]["quic"] < qd[x]["tcp"]]
    longer = [x for x in plan.cubic_losses if x not in shorter]
    where = join(
        f"{qd[x]['quic']:.0f} against {qd[x]['tcp']:.0f} ms at {100 * x:g} %"
        for x in plan.cubic_losses
    )
    paced = (
        "quinn paces its window over the round trip while TCP (pacing off) sends what "
        f"each ack allows at once; L1's queue holds QUIC's packets {where} on average"
        + (f", QUIC's the shorter at {join(f'{100 * x:g} %' for x in shorter)}" if shorter else "")
        + (
            f" and the longer at {join(f'{100 * x:g} %' for x in longer)}"
            if shorter and longer
            else ""
        )
    )
    return (
        "CUBIC check (a bulk transfer, "
        + join(cubic_series(p) for p in CUBIC_PROTOCOLS)
        + "): "
        + "; ".join(out)
        + f": {held}. The mechanisms differ all the same: at {100 * hi:g} % loss QUIC "
        f"carries {pay['quic']:.0f} B of payload per data packet against TCP's "
        f"{pay['tcp']:.0f} B ({100 * (pay['quic'] / pay['tcp'] - 1):+.1f} %; a QUIC "
        "datagram of at most 1452 B also holds the short header, the STREAM frame header "
        f"and the AEAD tag) and its receiver sends {ack['quic']:.3f} acks per data packet "
        f"against TCP's {ack['tcp']:.3f}; at {100 * lo:g} % random loss TCP repairs "
        f"{rep['tcp']:.2f} packets per 100 sent, {rto:.2f} of them after a timeout "
        f"(go-back-N), QUIC {rep['quic']:.2f}; {paced}."
    )


def _manet(res: Results) -> str:
    def s(p: str, metric: str) -> Stat:
        return res.manet[(p, metric)]

    working = [p for p in PROTOCOLS if s(p, "goodput_bps")[2] and s(p, "goodput_bps")[0] > 0]
    ranked = sorted(PROTOCOLS, key=lambda p: -s(p, "ack_bytes_per_s")[0])
    n = s("quic", "goodput_bps")[2]
    quic_state = (
        f"QUIC works over the MANET ({n} runs, none failed, data delivered)"
        if "quic" in working
        else "QUIC delivered nothing over the MANET"
    )
    g = {p: s(p, "goodput_bps") for p in PROTOCOLS}
    top = max(PROTOCOLS, key=lambda p: g[p][0])
    low = min(PROTOCOLS, key=lambda p: g[p][0])
    spread = (
        "all within each other's intervals"
        if all(_overlap(g[top], g[p]) for p in PROTOCOLS)
        else f"{top}'s interval apart from {low}'s"
    )
    return (
        f"MANET (seed 004's base point): {quic_state}. Goodput "
        + join(f"{p} {_kbps(g[p])} ± {sig3(g[p][1] / 1e3)}" for p in PROTOCOLS)
        + f" ({spread}); loss repairs "
        + join(f"{p} {s(p, 'repairs')[0]:.0f}" for p in PROTOCOLS)
        + ". The receiver's ack bandwidth: "
        + join(f"{p} {s(p, 'ack_bytes_per_s')[0]:.0f} B/s" for p in ranked)
        + ", from "
        + join(
            f"{p} {s(p, 'ack_packets_per_data_packet')[0]:.2f} acks per data packet of "
            f"{s(p, 'bytes_per_ack')[0]:.0f} B"
            for p in PROTOCOLS
        )
        + " (IP headers included; TCP's sink acks every segment, SCTP delays its SACKs, "
        "QUIC acks every second ack-eliciting packet and its ACK-only datagrams carry the "
        "UDP header, the short header with the 8-byte connection ID and the 16-byte AEAD "
        "tag)."
    )


def discussion(res: Results) -> list[str]:
    return [_satellite_goodput(res), _satellite_delay(res), _cubic(res), _manet(res)]
