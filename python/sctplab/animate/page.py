"""The page: one HTML file with the trace's columns as inline JSON and the player's
code inline (player.js), so it opens offline and can be mailed."""

from __future__ import annotations

import html
import itertools
import json
import re
from importlib import resources
from typing import Any

from sctplab.animate.layout import layout
from sctplab.animate.trace import AnimData

# The map canvas, in CSS pixels: the world box (the wireless area, or the unit square of
# the automatic layout) is fitted inside it less the margin, centred (docs/animate.md).
VIEW = {"width": 760, "height": 560, "margin": 40, "node_radius": 7, "packet_offset": 3}
MIN_HEIGHT = 260

# A packet is drawn `packet_offset` pixels to the right of its direction of travel.

# Simulated seconds per wall second the page starts with: slow enough to see packets
# move on a wired path, faster for long wireless runs.
SPEEDS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100)


def _start_speed(end_s: float) -> float:
    # The run in about two minutes, not faster than real time for short runs.
    want = end_s / 120
    return max([s for s in SPEEDS if s <= max(want, 1)])


# A satellite run's world: an equirectangular map, x = longitude + 180, y = 90 -
# latitude (degrees), north up.
SAT_WORLD = {"w": 360.0, "h": 180.0}


def _map_xy(lat: float, lon: float) -> tuple[float, float]:
    return lon + 180.0, 90.0 - lat


def _sat_legs(d: AnimData, legs: list[list[list[float]]]) -> None:
    """Each satellite's legs between its sampled positions (the check instants): a
    straight line on the map at the speed that reaches the next sample on time. A
    leg across the map's edge (the antimeridian) holds the satellite still for that
    interval instead of drawing it across the map."""
    samples = sorted(d.sat_positions, key=lambda s: s[0])
    for (t0, first, v0), (t1, first1, v1) in itertools.pairwise(samples):
        if first1 != first or len(v1) != len(v0) or t1 <= t0:
            continue
        for k in range(len(v0) // 2):
            node = first + k
            if not 0 <= node < len(legs):
                continue
            x0, y0 = _map_xy(v0[2 * k], v0[2 * k + 1])
            x1, y1 = _map_xy(v1[2 * k], v1[2 * k + 1])
            if abs(x1 - x0) > 180.0:
                x1, y1 = x0, y0
            speed = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5 / ((t1 - t0) / 1e6)
            legs[node].append([float(t0), x0, y0, x1, y1, speed])
    # The last sample: where the satellite stays until the end.
    last: dict[int, tuple[int, list[float]]] = {}
    for t, first, v in samples:
        last[first] = (t, v)
    for first, (t, v) in last.items():
        for k in range(len(v) // 2):
            node = first + k
            if 0 <= node < len(legs):
                x, y = _map_xy(v[2 * k], v[2 * k + 1])
                legs[node].append([float(t), x, y, x, y, 0.0])


def _sat_view(
    d: AnimData, legs: list[list[list[float]]], fixed: list[list[float] | None]
) -> dict[str, Any]:
    """Positions on the world map (satellites from `satpos`, ground stations at their
    latitude and longitude, other nodes along the top edge) and what the player needs
    to draw ground links that follow the handovers."""
    sats = d.header["satellites"]
    n = len(fixed)
    _sat_legs(d, legs)
    is_sat = [False] * n
    gsl: dict[int, int] = {}
    for c in sats.get("constellations", []):
        first, count = int(c["first_node"]), int(c["count"])
        for node in range(first, min(first + count, n)):
            is_sat[node] = True
        for st in c.get("stations", []):
            node = int(st["node"])
            if 0 <= node < n:
                x, y = _map_xy(float(st["lat"]), float(st["lon"]))
                fixed[node] = [x, y]
                gsl[int(st["link"])] = node
    others = [i for i in range(n) if not is_sat[i] and fixed[i] is None]
    for k, i in enumerate(others):
        fixed[i] = [SAT_WORLD["w"] * (k + 1) / (len(others) + 1), 0.0]
    attach = sorted(d.attachments, key=lambda a: a[0])
    return {"is_sat": is_sat, "gsl": gsl, "attach": attach}


def page_data(d: AnimData) -> dict[str, Any]:
    """What the player reads (`D` in player.js)."""
    h = d.header
    nodes = h["nodes"]
    n = len(nodes)
    links = [[int(x["a"]), int(x["b"]), x.get("rate_bps"), x.get("delay_us")] for x in h["links"]]
    legs: list[list[list[float]]] = [[] for _ in range(n)]
    for leg in d.legs:
        node = int(leg[0])
        if 0 <= node < n:
            legs[node].append(leg[1:])
    for node_legs in legs:
        node_legs.sort(key=lambda leg: leg[0])
    wireless = h.get("wireless")
    fixed: list[list[float] | None] = [None] * n
    sat: dict[str, Any] | None = None
    if isinstance(h.get("satellites"), dict):
        world = dict(SAT_WORLD)
        sat = _sat_view(d, legs, fixed)
    elif isinstance(wireless, dict):
        world = {"w": float(wireless["width_m"]), "h": float(wireless["height_m"])}
        # Nodes without a radio (wired hosts of a mixed scenario): along the top edge.
        wired = [i for i in range(n) if not legs[i]]
        for k, i in enumerate(wired):
            fixed[i] = [world["w"] * (k + 1) / (len(wired) + 1), 0.0]
    else:
        world = {"w": 1.0, "h": 1.0}
        for i, (x, y) in enumerate(layout(n, [(ln[0], ln[1]) for ln in links])):
            fixed[i] = [x, y]
    view = dict(VIEW)
    if sat is not None:
        # The map's 2:1 shape.
        view["height"] = round((VIEW["width"] - 2 * VIEW["margin"]) / 2 + 2 * VIEW["margin"])
    elif isinstance(wireless, dict):
        # The canvas takes the area's shape (a 1000 m x 300 m strip needs no tall map).
        m = VIEW["margin"]
        fit = (VIEW["width"] - 2 * m) * world["h"] / world["w"] + 2 * m
        view["height"] = max(MIN_HEIGHT, min(VIEW["height"], round(fit)))
    hop = {
        "t": d.hop_t,
        "dur": d.hop_dur,
        "from": d.hop_from,
        "to": d.hop_to,
        "flow": d.hop_flow,
        "kind": d.hop_kind,
    }
    # A run that stopped early (--max-output, Ctrl-C) has no `end` record: its last hop.
    last_hop = max((t + dur for t, dur in zip(d.hop_t, d.hop_dur, strict=True)), default=0)
    end_us = d.end_us or last_hop or (h.get("duration_us") or 0)
    return {
        "v": h["version"],
        "scenario": str(h.get("scenario", "")),
        "seed": h.get("seed"),
        "end_us": end_us,
        "bin_us": h.get("bin_us", 100_000),
        "nodes": nodes,
        "links": links,
        "flows": h["flows"],
        "wireless": wireless if isinstance(wireless, dict) else None,
        "sat": sat,
        "world": world,
        "layout": fixed,
        "legs": legs,
        "hop": hop,
        "max_dur_us": max(d.hop_dur, default=0),
        "hops_counted": d.hops_counted,
        "drops": d.drops,
        "drops_counted": d.drops_counted,
        "reasons": d.reasons,
        "link_events": d.link_events,
        "routes": d.routes,
        "routes_counted": d.routes_counted,
        "tables": d.tables,
        "tables_counted": d.tables_counted,
        "samples": [
            {"t": t, "cwnd": c, "rate": r}
            for t, c, r in zip(d.sample_t, d.sample_cwnd, d.sample_rate, strict=True)
        ],
        "view": view,
        "speed": _start_speed(end_us / 1e6),
    }


def _asset(name: str) -> str:
    return resources.files("sctplab.animate").joinpath(name).read_text(encoding="utf-8")


def render(d: AnimData) -> str:
    """The whole page as text."""
    data = json.dumps(page_data(d), separators=(",", ":"), allow_nan=False)
    # Inside <script>, "</script" would close the element early and "<!--" could keep
    # the real end from closing it: no "<" at all ("<" only occurs inside JSON strings).
    data = data.replace("<", "\\u003c")
    title = f"sctplab animate: {d.header.get('scenario', '')} seed {d.header.get('seed', '')}"
    values = {"__TITLE__": html.escape(title), "__PLAYER__": _asset("player.js"), "__DATA__": data}
    # One pass over the template: a value holding a marker's text is not substituted again.
    parts = re.split("(" + "|".join(values) + ")", _asset("page.html"))
    return "".join(values.get(p, p) for p in parts)
