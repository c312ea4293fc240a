"""The findings of `sctplab reproduce leo`, every sentence computed from the runs."""

from __future__ import annotations

import math
from typing import Any

from sctplab.reproduce import leo_geo
from sctplab.reproduce.leo_runs import POLICIES, PROTOCOLS, Config
from sctplab.reproduce.prose import join

Stats = dict[tuple[str, str, str], tuple[float, float, int]]


def _overlap(a: tuple[float, float, int], b: tuple[float, float, int]) -> bool:
    """Whether two 95 % intervals overlap (an interval of one run is its point)."""
    (ma, ca, _), (mb, cb, _) = a, b
    ca = 0.0 if math.isnan(ca) else ca
    cb = 0.0 if math.isnan(cb) else cb
    return abs(ma - mb) <= ca + cb


def discussion(
    stats: Stats,
    per: dict[Config, list[dict[str, float]]],
    first: dict[Config, dict[str, Any]],
    geo: dict[str, dict[str, Any]],
) -> list[str]:
    return [_rtt(stats, per), _transport(stats), _geo(geo)]


def _rtt(stats: Stats, per: dict[Config, list[dict[str, float]]]) -> str:
    slotted = [r for p in PROTOCOLS for r in per[Config(p, "slotted")]]
    on_loss = [r for p in PROTOCOLS for r in per[Config(p, "on_loss")]]
    changes = sum(r["route_changes"] for r in slotted)
    at_slots = sum(r["route_changes_at_slots"] for r in slotted)
    handovers_s = sum(r["handovers"] for r in slotted) / len(slotted)
    handovers_l = sum(r["handovers"] for r in on_loss) / len(on_loss)
    changes_l = sum(r["route_changes"] for r in on_loss) / len(on_loss)
    step_s = [r["path_delay_step_s"] for r in slotted if not math.isnan(r["path_delay_step_s"])]
    delay = {pol: stats[("tcp-reno", pol, "path_delay_mean_s")][0] for pol in POLICIES}
    srtt = {pol: stats[("sctp", pol, "srtt_mean_s")][0] for pol in POLICIES}
    text = (
        f"**RTT over time.** With slotted handovers the one-way delay of the route changed "
        f"{changes:.0f} times in all {len(slotted)} runs, {at_slots:.0f} of them in the "
        f"sample interval holding a 15-s slot instant; the two stations made "
        f"{handovers_s:.1f} handovers per run together. "
    )
    if changes and at_slots == changes:
        text += "Every change fell at a slot instant: the path delay steps there and only there. "
    elif changes:
        text += f"{changes - at_slots:.0f} changes fell between slot instants. "
    if step_s:
        text += (
            f"A change moved the one-way delay by {1e3 * sum(step_s) / len(step_s):.2f} ms "
            f"on average (largest {1e3 * max(step_s):.2f} ms). "
        )
    text += (
        f"Handing over only on loss, the stations made {handovers_l:.1f} handovers per run "
        f"and the route changed {changes_l:.1f} times. Mean one-way path delay (TCP Reno "
        f"runs): slotted {1e3 * delay['slotted']:.2f} ms, on loss "
        f"{1e3 * delay['on_loss']:.2f} ms; SCTP's mean smoothed RTT: slotted "
        f"{1e3 * srtt['slotted']:.1f} ms, on loss {1e3 * srtt['on_loss']:.1f} ms."
    )
    return text


def _transport(stats: Stats) -> str:
    def s(p: str, pol: str, m: str) -> tuple[float, float, int]:
        return stats[(p, pol, m)]

    good = {p: s(p, "slotted", "goodput_bps")[0] for p in PROTOCOLS}
    ratio = {
        p: s(p, "slotted", "goodput_bps")[0] / s(p, "on_loss", "goodput_bps")[0]
        for p in PROTOCOLS
        if s(p, "on_loss", "goodput_bps")[0] > 0
    }
    same = [
        p
        for p in PROTOCOLS
        if _overlap(s(p, "slotted", "goodput_bps"), s(p, "on_loss", "goodput_bps"))
    ]
    lower = [p for p in PROTOCOLS if p not in same and ratio.get(p, 1.0) < 1]
    higher = [p for p in PROTOCOLS if p not in same and ratio.get(p, 1.0) > 1]
    drops = {pol: {p: s(p, pol, "handover_drops")[0] for p in PROTOCOLS} for pol in POLICIES}
    rtx = {pol: {p: s(p, pol, "retransmissions")[0] for p in PROTOCOLS} for pol in POLICIES}
    best = max(good, key=lambda p: good[p])
    worst = min(good, key=lambda p: good[p])
    text = (
        "**Goodput, retransmissions and handover drops.** Slotted goodput (Mb/s): "
        + join(f"{p} {v / 1e6:.2f}" for p, v in good.items())
        + f"; highest {best}, lowest {worst}. Slotted over on-loss goodput: "
        + join(f"{p} {v:.3f}" for p, v in ratio.items())
        + ". "
    )
    if same:
        text += f"The 95 % intervals of the two policies overlap for {join(same)}. "
    if lower:
        text += f"Slotted handovers cost goodput beyond the intervals for {join(lower)}. "
    if higher:
        text += f"Slotted handovers gave more goodput beyond the intervals for {join(higher)}. "
    for pol in POLICIES:
        text += (
            f"Packets lost to handovers per run ({pol}): "
            + join(f"{p} {v:.1f}" for p, v in drops[pol].items())
            + "; retransmissions: "
            + join(f"{p} {v:.1f}" for p, v in rtx[pol].items())
            + ". "
        )
    mh, sh = s("sctp-mh", "slotted", "goodput_bps"), s("sctp", "slotted", "goodput_bps")
    text += (
        f"Multihomed SCTP (the second address reached through a second terminal in New "
        f"York) gave {mh[0] / 1e6:.2f} Mb/s against {sh[0] / 1e6:.2f} Mb/s single-homed "
        + ("(intervals overlap)." if _overlap(mh, sh) else "(intervals apart).")
    )
    return text


def _geo(geo: dict[str, dict[str, Any]]) -> str:
    g = leo_geo.geometry_for(leo_geo.L2_DELAY_S)
    fixed, sat = geo["fixed-delay"]["summary"]["flows"], geo["geo-satellite"]["summary"]["flows"]
    d_fixed = leo_geo.one_way_s("fixed-delay", geo["fixed-delay"])
    d_sat = leo_geo.one_way_s("geo-satellite", geo["geo-satellite"])
    srtt = {
        k: float(v["sctp"]["paths"][leo_geo.FLOWS["sctp"]]["srtt_s"])
        for k, v in (("fixed", fixed), ("sat", sat))
    }
    ratio = {f: sat[f]["goodput_bps"] / fixed[f]["goodput_bps"] for f in leo_geo.FLOWS}
    return (
        f"**Seed 000's GEO path as a satellite.** The seed's 250 ms is what a geostationary "
        f"path gives between two stations {g.gamma_deg:.2f} deg of longitude either side of "
        f"the satellite on the equator: elevation {g.elevation_deg:.1f} deg, slant range "
        f"{g.slant_km:,.0f} km each, {1e3 * g.one_way_s:.2f} ms station to station (the "
        f"least a GEO hop can take, both stations under the satellite, is "
        f"{2e3 * leo_geo.GEO_ALTITUDE_KM / leo_geo.LIGHT_KM_S:.1f} ms). Over the satellite "
        f"the TCP flow's one-way propagation delay averaged {1e3 * d_sat:.3f} ms against "
        f"{1e3 * d_fixed:.3f} ms over the fixed link. SCTP's smoothed RTT: "
        f"{1e3 * srtt['sat']:.1f} ms over the satellite, {1e3 * srtt['fixed']:.1f} ms over "
        f"the link, {1e3 * (srtt['sat'] - srtt['fixed']):.2f} ms more; the satellite stores "
        f"and forwards, so each packet is transmitted twice at 3 Mb/s (up and down) where "
        f"the link sends it once, and one more transmission of an SCTP packet of 1,496 "
        f"bytes (1,448 of payload) takes {1e3 * 1496 * 8 / 3e6:.2f} ms. Goodput over the satellite "
        f"relative to the link: "
        + join(f"{f} {v:.4f}" for f, v in ratio.items())
        + f"; the SCTP RTT ratio (link over satellite) is {srtt['fixed'] / srtt['sat']:.4f}"
        + (
            ", within 2 points of SCTP's goodput ratio (the goodput of a flow its window "
            "limits follows 1/RTT). "
            if abs(ratio["sctp"] - srtt["fixed"] / srtt["sat"]) < 0.02
            else f", {100 * abs(ratio['sctp'] - srtt['fixed'] / srtt['sat']):.1f} points "
            "from SCTP's goodput ratio. "
        )
        + "Retransmissions (losses at the 10-packet queue) over the link and the satellite: "
        + join(
            f"{f} {fixed[f]['retransmissions']} and {sat[f]['retransmissions']}"
            for f in leo_geo.FLOWS
        )
        + ". Without loss nothing in these runs is random (one run each); the seed's loss "
        "rates cannot be compared yet: satellite links have no loss model."
    )
