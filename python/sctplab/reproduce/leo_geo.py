"""Seed 000's GEO path as a real geostationary satellite (`sctplab reproduce leo`):
the seed's L2 (3 Mb/s, 250 ms, queue 10) replaced by two ground stations and one GEO
satellite, placed where the slant ranges give the seed's 250 ms, beside the seed's
fixed-delay link."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

from sctplab.reproduce.pool import Point, run_points

# ns-2.35's satgeometry.h, as the model (docs/models/satellite.md).
EARTH_RADIUS_KM = 6378.0
GEO_ALTITUDE_KM = 35_786.0
LIGHT_KM_S = 299_793.0
L2_DELAY_S = 0.250  # scenarios/satellite.toml
WIRES_S = 0.004  # L0 + L3 (or L1 + L4): 2 ms each
SERIES = ["fixed-delay", "geo-satellite"]
FLOWS = {"tcp": "n4:eth0", "sctp": "n5:eth0"}


@dataclass(frozen=True)
class Geometry:
    """Two stations on the equator `gamma_deg` of longitude either side of the satellite."""

    gamma_deg: float

    @property
    def slant_km(self) -> float:
        r = EARTH_RADIUS_KM + GEO_ALTITUDE_KM
        g = math.radians(self.gamma_deg)
        return math.sqrt(EARTH_RADIUS_KM**2 + r * r - 2 * EARTH_RADIUS_KM * r * math.cos(g))

    @property
    def elevation_deg(self) -> float:
        r = EARTH_RADIUS_KM + GEO_ALTITUDE_KM
        g = math.radians(self.gamma_deg)
        return math.degrees(math.atan2(math.cos(g) - EARTH_RADIUS_KM / r, math.sin(g)))

    @property
    def one_way_s(self) -> float:
        """Station - satellite - station at the speed of light."""
        return 2 * self.slant_km / LIGHT_KM_S


def geometry_for(delay_s: float) -> Geometry:
    """The stations' placement whose GEO path has propagation delay `delay_s` (law of
    cosines in the triangle Earth's centre / station / satellite, solved for gamma)."""
    r = EARTH_RADIUS_KM + GEO_ALTITUDE_KM
    s = delay_s * LIGHT_KM_S / 2
    cos_g = (EARTH_RADIUS_KM**2 + r * r - s * s) / (2 * EARTH_RADIUS_KM * r)
    return Geometry(math.degrees(math.acos(cos_g)))


def geo_scenario(seed000: dict[str, Any], geo: Geometry) -> dict[str, Any]:
    """Seed 000 without L2 and without loss: N2 and N3 are ground stations of one GEO
    satellite (an `explicit` entry at 35,786 km over 0 deg E), whose ground links have
    L2's bandwidth and queue."""
    s = copy.deepcopy(seed000)
    l2 = next(ln for ln in s["links"] if ln["name"] == "l2")
    s["links"] = [ln for ln in s["links"] if ln["name"] != "l2"]
    s["nodes"] = [n for n in s["nodes"] if n["name"] not in ("n2", "n3")]
    s["constellations"] = [
        {
            "name": "geo",
            "kind": "explicit",
            "gsl_bandwidth": l2["bandwidth"],
            "gsl_queue": l2["queue"],
            "satellites": [
                {
                    "altitude": f"{GEO_ALTITUDE_KM:.0f}km",
                    "inclination": 0.0,
                    "longitude": 0.0,
                    "alpha": 0.0,
                    "plane": 1,
                }
            ],
        }
    ]
    s["ground_stations"] = [
        {
            "name": name,
            "lat": 0.0,
            "lon": sign * round(geo.gamma_deg, 4),
            "constellation": "geo",
            "min_elevation": 10.0,
        }
        for name, sign in (("n2", -1.0), ("n3", 1.0))
    ]
    return s


def fixed_scenario(seed000: dict[str, Any]) -> dict[str, Any]:
    """Seed 000 as shipped, without L2's loss (the satellite links have no loss model)."""
    s = copy.deepcopy(seed000)
    for ln in s["links"]:
        ln.pop("loss", None)
    return s


def _work(point: Point) -> dict[str, Any]:
    from sctplab.runner import run

    scen, sets, seed = point
    series = ["path_delay"] if "constellations" in scen else []
    r = run(scen, seed=seed, set=sets, series=series)
    delays: list[float] = []
    if series:
        df = r.series
        tcp = df[(df["entity"] == "tcp") & (df["variable"] == "path_delay")]
        delays = [float(v) for v in tcp["value"]]
    return {"summary": r.summary, "path_delay": delays}


def run_geo(seed000: dict[str, Any], duration: float) -> dict[str, dict[str, Any]]:
    """One run of each (nothing in them is random without loss): series -> result."""
    geo = geometry_for(L2_DELAY_S)
    sets = {"duration": f"{duration}s", "series.interval": "1s"}
    points: list[Point] = [
        (fixed_scenario(seed000), sets, 1),
        (geo_scenario(seed000, geo), sets, 1),
    ]
    res = run_points(points, work=_work)
    return dict(zip(SERIES, res, strict=True))


def one_way_s(series: str, res: dict[str, Any]) -> float:
    """The TCP flow's one-way propagation delay: the scenario's link delays for the fixed
    link, the mean of the path_delay samples over the GEO satellite."""
    if series == "fixed-delay":
        return WIRES_S + L2_DELAY_S
    xs: list[float] = res["path_delay"]
    return sum(xs) / len(xs) if xs else math.nan
