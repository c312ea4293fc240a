"""The runs of `sctplab reproduce leo` (issue 39): one transport flow from London to New
York over the Starlink-like shell of `scenarios/leo.toml`, per protocol, handover policy
and seed, and what each run gives the study (summary numbers and the RTT series)."""

from __future__ import annotations

import copy
import itertools
import math
import random
from dataclasses import dataclass
from typing import Any

from sctplab.reproduce.pool import Point

# The receiver's window, well above the path's bandwidth-delay product (20 Mb/s x some
# 100 ms, 250 KB) so that the congestion control, not the window, sets the rate.
TCP_WINDOW = 1000  # segments of 1000 bytes
SCTP_BUFFER = "1MiB"
_TCP = {"type": "tcp", "variant": "sack", "window": TCP_WINDOW}
_SCTP = {"type": "sctp", "variant": "rfc9260", "receive_buffer": SCTP_BUFFER}
# The flow's settings per series (CONTRACTS.md "Congestion control"; SCTP `rfc9260`).
PROTOCOLS: dict[str, dict[str, Any]] = {
    "tcp-reno": {**_TCP, "congestion_control": "reno"},
    "tcp-cubic": {**_TCP, "congestion_control": "cubic"},
    "tcp-bbr": {**_TCP, "congestion_control": "bbr"},
    "sctp": dict(_SCTP),
    "sctp-mh": dict(_SCTP),
}
MULTIHOMED = "sctp-mh"
# `slotted`: a new satellite every 15 s (Starlink's reassignment); `on_loss`: the station
# keeps its satellite until it drops below the mask (`longest_visible`, checked every s).
POLICIES: dict[str, dict[str, str]] = {
    "slotted": {"handover": "slotted", "handover_interval": "15s"},
    "on_loss": {"handover": "longest_visible", "handover_interval": "1s"},
}
SLOT_S = 15.0
# The flow starts at a time drawn from the seed, uniform in [0, START_SPAN_S): the phase of
# the constellation over the two cities, and of the 15-s slots, when the flow begins.
START_SPAN_S = 300.0
SAMPLE_S = 0.1
# A change of the one-way path delay between two samples larger than this is a change of
# route: moving satellites change a route's delay by at most some 25 km/s (two ground
# links and the inter-plane chords), 8 us in 0.1 s.
STEP_S = 1e-4
FIRST_STATIONS = ("london-a", "newyork-a")


def start_of(seed: int) -> float:
    """The flow's start for `seed` (s, whole milliseconds)."""
    return round(random.Random(seed).uniform(0.0, START_SPAN_S), 3)


@dataclass(frozen=True)
class Config:
    protocol: str
    policy: str


def scenario(base: dict[str, Any], c: Config) -> dict[str, Any]:
    """The study's scenario for one configuration: the flow's protocol, every station's
    handover policy, and for single-homed series only the first terminal of each city."""
    s = copy.deepcopy(base)
    flow = {k: v for k, v in s["flows"][0].items() if k in ("name", "from", "to")}
    flow.update(PROTOCOLS[c.protocol])
    s["flows"] = [flow]
    for st in s["ground_stations"]:
        st.update(POLICIES[c.policy])
    if c.protocol != MULTIHOMED:
        s["ground_stations"] = [g for g in s["ground_stations"] if g["name"] in FIRST_STATIONS]
        keep = set(FIRST_STATIONS)
        s["links"] = [ln for ln in s["links"] if ln["a"] in keep or ln["b"] in keep]
    return s


def overrides(seed: int, duration: float) -> dict[str, Any]:
    t0 = start_of(seed)
    return {
        "duration": f"{t0 + duration:.3f}s",
        "measure.start": f"{t0:.3f}s",
        "measure.end": f"{t0 + duration:.3f}s",
        "flows.flow.start": f"{t0:.3f}s",
        "series.interval": f"{SAMPLE_S}s",
    }


def work(point: Point) -> dict[str, Any]:
    """One run: its summary and its path_delay and SCTP srtt samples inside the window."""
    from sctplab.runner import run

    scen, sets, seed = point
    r = run(scen, seed=seed, set=sets, series=["path_delay", "srtt"])
    t0 = float(str(sets["measure.start"]).removesuffix("s"))
    df = r.series
    df = df[df["time_s"] >= t0]
    out: dict[str, Any] = {"summary": r.summary, "start_s": t0, "series": {}}
    for (entity, var), g in df.groupby(["entity", "variable"]):
        out["series"][f"{var}:{entity}"] = [
            [float(t), float(v)] for t, v in zip(g["time_s"], g["value"], strict=True)
        ]
    return out


def steps(samples: list[list[float]]) -> list[tuple[float, float, float]]:
    """(time before, time after, size) of each change of route in a path_delay series:
    consecutive samples that differ by more than STEP_S."""
    return [
        (a[0], b[0], b[1] - a[1])
        for a, b in itertools.pairwise(samples)
        if abs(b[1] - a[1]) > STEP_S
    ]


def at_slot(before: float, after: float) -> bool:
    """Whether a slot instant (a multiple of SLOT_S) lies in [before, after]."""
    return math.floor(after / SLOT_S) * SLOT_S >= before - 1e-9


def measures(res: dict[str, Any]) -> dict[str, float]:
    """What one run gives the study's rows (NaN where a series has no such value)."""
    s = res["summary"]
    f = s["flows"]["flow"]
    sl = s["satellite_links"]
    path = res["series"].get("path_delay:flow", [])
    st = steps(path)
    srtt = [v for k, xs in res["series"].items() if k.startswith("srtt:") for _, v in xs]
    primary = res["series"].get("srtt:flow@newyork:eth0", [])
    nan = float("nan")
    return {
        "goodput_bps": float(f["goodput_bps"]),
        "retransmissions": float(f["retransmissions"]),
        "handover_drops": float(sl["gsl"]["handover_drops"] + sl["isl"]["handover_drops"]),
        "handovers": float(sum(s["ground_stations"][g]["handovers"] for g in FIRST_STATIONS)),
        "path_delay_mean_s": sum(v for _, v in path) / len(path) if path else nan,
        "route_changes": float(len(st)),
        "path_delay_step_s": sum(abs(d) for _, _, d in st) / len(st) if st else nan,
        "route_changes_at_slots": float(sum(at_slot(a, b) for a, b, _ in st)),
        "srtt_mean_s": sum(v for _, v in primary) / len(primary) if primary else nan,
        "srtt_samples": float(len(srtt)),
    }
