"""`sctplab reproduce leo --quick` (issue 39 item 6) against what the geometry and the
handover rules imply, by hand:

- seed 000's GEO path: from the stations' elevation e alone, the slant range is
  s = sqrt(r^2 - R^2 cos^2 e) - R sin e (the station's line of sight to a sphere of
  radius r = R + 35,786 km), and station - satellite - station takes 2 s / c, which must
  be the seed's 250 ms; the central angle is acos(R cos e / r) - e;
- slotted handovers: each of the two stations hands over at every multiple of 15 s
  inside the measurement window [t0, t0 + 30 s) (dozens of satellites are above 25 deg
  at once, so every slot brings another one), t0 the flow's start the seed draws;
- in this shell (53 deg, below the 70-deg ISL limit, planes 5 deg apart) the ISLs never
  change, so the route, and the path delay with it, steps only at handover instants:
  with slotted handovers every step lies in the sample interval of a slot instant, and
  there are at most as many as slot instants;
- no flow gets more than the 20 Mb/s of the ground links."""

from __future__ import annotations

import csv
import math
import random
from pathlib import Path

from conftest import sctplab

R, GEO, C = 6378.0, 35_786.0, 299_793.0
SEEDS, WINDOW_S, SLOT_S = 2, 30.0, 15.0


def slot_instants(seed: int) -> int:
    t0 = round(random.Random(seed).uniform(0.0, 300.0), 3)
    return math.ceil((t0 + WINDOW_S) / SLOT_S) - math.ceil(t0 / SLOT_S)


def test_leo_quick(tmp_path: Path) -> None:
    out = tmp_path / "repro"
    r = sctplab("reproduce", "leo", "--quick", "--out", out)
    assert r.returncode == 0, r.stderr
    with (out / "leo" / "data.csv").open() as f:
        rows = list(csv.DictReader(f))
    mean = {(r["item"], r["series"], r["x"], r["metric"]): float(r["mean"]) for r in rows}
    n = {(r["item"], r["series"], r["x"], r["metric"]): int(r["n"]) for r in rows}

    # The GEO geometry from the elevation.
    e = math.radians(mean[("geo_geometry", "geo-satellite", "n2", "elevation_deg")])
    rr = R + GEO
    slant = math.sqrt(rr * rr - (R * math.cos(e)) ** 2) - R * math.sin(e)
    assert abs(2 * slant / C - 0.250) < 1e-6
    # data.csv holds six significant digits.
    assert abs(mean[("geo_geometry", "geo-satellite", "n2", "slant_range_km")] - slant) < 0.06
    gamma = math.degrees(math.acos(R * math.cos(e) / rr)) - math.degrees(e)
    assert abs(mean[("geo_geometry", "geo-satellite", "n3", "gamma_deg")] - gamma) < 1e-4
    # Over the satellite the TCP flow's one-way delay is the 250 ms plus the two 2-ms
    # wires (the stations and the satellite co-rotate: it stays put).
    one_way = mean[("geo", "geo-satellite", "tcp", "one_way_delay_s")]
    assert abs(one_way - 0.254) < 1e-4

    slots = sum(slot_instants(s) for s in range(1, SEEDS + 1)) / SEEDS
    for proto in ("tcp-reno", "tcp-cubic", "tcp-bbr", "sctp", "sctp-mh"):
        key = ("leo", proto, "slotted", "handovers")
        assert n[key] == SEEDS
        assert mean[key] == 2 * slots, proto
        changes = mean[("leo", proto, "slotted", "route_changes")]
        assert changes == mean[("leo", proto, "slotted", "route_changes_at_slots")], proto
        assert changes <= slots
        for policy in ("slotted", "on_loss"):
            assert 0 < mean[("leo", proto, policy, "goodput_bps")] < 20e6
    report = (out / "report.md").read_text()
    assert "(leo/rtt_timeline.png)" in report
    assert (out / "leo" / "leo.md").is_file()
    assert (out / "leo" / "geo.md").is_file()
