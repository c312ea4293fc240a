"""`sctplab animate` on a satellite run (issue 41): the page's world map places ground
stations at their latitude and longitude, moves satellites between the positions the
trace sampled at the check instants, and draws ground links that follow the handovers.
crates/sctplab-core/tests/anim_trace.rs checks the positions themselves against the
closed-form orbits."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sctplab.animate.page import page_data
from sctplab.animate.trace import read

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "leo-starlink.toml"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sctplab.cli", *args], capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def leo_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    # 16 s: the check instants 10 s (ISLs) and 15 s (both stations hand over).
    base = tmp_path_factory.mktemp("leo")
    runs = (base / "anim", base / "plain")
    for out, extra in zip(runs, (["--trace", "anim"], []), strict=True):
        args = ["run", str(SCENARIO), "--set", 'duration="16s"', "--out", str(out), "--quiet"]
        r = _cli(*args, *extra)
        assert r.returncode == 0, r.stderr
    return runs


def test_anim_trace_leaves_a_satellite_summary_alone(leo_runs: tuple[Path, Path]) -> None:
    anim, plain = leo_runs
    assert (anim / "summary.json").read_bytes() == (plain / "summary.json").read_bytes()


def test_page_places_stations_and_moves_satellites(leo_runs: tuple[Path, Path]) -> None:
    d = page_data(read(leo_runs[0]))
    assert d["world"] == {"w": 360.0, "h": 180.0}
    names = [n["name"] for n in d["nodes"]]
    london, newyork = names.index("london"), names.index("newyork")
    # x = longitude + 180, y = 90 - latitude (the scenario's coordinates).
    assert d["layout"][london] == pytest.approx([180.0 - 0.13, 90.0 - 51.51])
    assert d["layout"][newyork] == pytest.approx([180.0 - 74.01, 90.0 - 40.71])
    sat = d["sat"]
    assert sum(sat["is_sat"]) == 72 * 22
    # Satellite 0 (plane 0, index 0, ascending node 0) starts at latitude 0, longitude
    # 0: the map's centre; it has a leg per sampled interval (0-10 s, 10-15 s) and then
    # stays at its last sample.
    first = sat["is_sat"].index(True)
    legs = d["legs"][first]
    assert [leg[0] for leg in legs] == [0.0, 10e6, 15e6]
    assert legs[0][1:3] == pytest.approx([180.0, 90.0])
    # Each leg ends where the next starts, reached on time: speed x interval = length.
    for a, b in itertools.pairwise(legs):
        assert a[3:5] == pytest.approx(b[1:3])
        length = ((a[3] - a[1]) ** 2 + (a[4] - a[2]) ** 2) ** 0.5
        assert a[5] * (b[0] - a[0]) / 1e6 == pytest.approx(length)
    # Both ground links are known, and both stations hand over at 15 s to a satellite.
    assert sorted(sat["gsl"].values()) == [london, newyork]
    for st in (london, newyork):
        times = [a[0] for a in sat["attach"] if a[1] == st]
        assert times[0] == 0 and 15_000_000 in times
        assert all(sat["is_sat"][a[2]] for a in sat["attach"] if a[1] == st and a[2] >= 0)


def test_cli_writes_a_self_contained_satellite_page(
    leo_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "leo.html"
    r = _cli("animate", str(leo_runs[0]), "--out", str(out))
    assert r.returncode == 0, r.stderr
    page = out.read_text()
    assert not re.search(r"(https?|ftp|wss?)://", page)
    data = json.loads(
        re.search(r'<script type="application/json" id="anim-data">(.*?)</script>', page, re.S)[1]  # type: ignore[index]
    )
    assert data["sat"] is not None and len(data["sat"]["attach"]) >= 4
