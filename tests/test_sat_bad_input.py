"""Satellite tables through the CLI (issue 39): bad values give one line naming the file,
the key and what was expected, exit status 2; valid ones run."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import sctplab

LEO = """
duration = "60s"
[[constellations]]
name = "shell"
kind = "walker_delta"
planes = 4
per_plane = 6
altitude = "550km"
inclination = 53.0
phasing = 1
[[ground_stations]]
name = "paris"
lat = 48.85
lon = 2.35
constellation = "shell"
min_elevation = 25.0
handover = "slotted"
handover_interval = "15s"
[[ground_stations]]
name = "nyc"
lat = 40.71
lon = -74.0
constellation = "shell"
[[flows]]
name = "f"
type = "tcp"
variant = "sack"
from = "paris"
to = "nyc"
"""

ISS = (
    "ISS (ZARYA)\n"
    "1 25544U 98067A   08264.51782528 -.00002182  00000-0 -11606-4 0  2927\n"
    "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.72125391563537\n"
)

CASES = {
    "orbit_below_surface": (
        LEO.replace('altitude = "550km"', 'altitude = "-550km"'),
        ["leo.toml: constellations.shell.altitude:", "negative"],
    ),
    "latitude": (
        LEO.replace("lat = 48.85", "lat = 91.0"),
        ["leo.toml: ground_stations.paris.lat: 91 is outside [-90, 90] degrees"],
    ),
    "longitude": (
        LEO.replace("lon = 2.35", "lon = 181.0"),
        ["leo.toml: ground_stations.paris.lon: 181 is outside [-180, 180] degrees"],
    ),
    "unknown_kind": (
        LEO.replace('kind = "walker_delta"', 'kind = "rosette"'),
        ["leo.toml: constellations.shell.kind: unknown kind", "walker_delta"],
    ),
    "flow_to_a_satellite": (
        LEO.replace('to = "nyc"', 'to = "shell-0-1"'),
        ['leo.toml: flows.f.to: unknown node "shell-0-1"'],
    ),
}


def run(tmp_path: Path, text: str, *args: str) -> str:
    path = tmp_path / "leo.toml"
    path.write_text(text)
    r = sctplab("run", path.name, "--out", tmp_path / "out", *args, cwd=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr
    assert not (tmp_path / "out" / "summary.json").exists()
    prefix = "sctplab: error: "
    assert lines[0].startswith(prefix), lines[0]
    return lines[0][len(prefix) :]


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_line_and_status_2(case: str, tmp_path: Path) -> None:
    text, expected = CASES[case]
    line = run(tmp_path, text)
    for s in expected:
        assert s in line, (s, line)


def test_unknown_tle_line_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "bad.tle").write_text(ISS.replace("2 25544  51.6416", "3 25544  51.6416"))
    text = '[[constellations]]\nname = "t"\nkind = "tle"\ntle_file = "bad.tle"\n'
    line = run(tmp_path, text)
    assert line.startswith("leo.toml: constellations.t.tle_file: "), line
    # The message keeps to one line with single spaces.
    assert line.endswith(
        'bad.tle: line 3: expected TLE line 2, found "3 25544 51.6416 247.4627 0006703 '
        '130.5360 325.0288 15.72125391563537"'
    ), line
    (tmp_path / "good.tle").write_text(ISS)
    good = 'duration = "1s"\n' + text.replace("bad.tle", "good.tle") + '[[nodes]]\nname = "h"\n'
    (tmp_path / "leo.toml").write_text(good)
    r = sctplab("run", "leo.toml", "--out", tmp_path / "ok", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def test_a_bad_override_is_blamed_on_it(tmp_path: Path) -> None:
    line = run(tmp_path, LEO, "--set", "ground_stations.paris.lat=95")
    assert line.startswith("--set ground_stations.paris.lat=95: ground_stations.paris.lat:"), line
