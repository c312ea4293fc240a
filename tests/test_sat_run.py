"""A satellite scenario through the CLI (issue 39): scenarios/leo-starlink.toml runs with
`--series path_delay`, pcap and the ns-2 trace, and summary.json has the satellite keys
of CONTRACTS.md ("Satellite constellations")."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from conftest import sctplab

ROOT = Path(__file__).resolve().parent.parent
LEO = ROOT / "scenarios" / "leo-starlink.toml"
LIGHT_KM_S = 299_793.0


def test_leo_shell_runs_with_series_pcap_and_trace(tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = sctplab(
        "run",
        LEO,
        "--set",
        "duration=20s",
        "--series",
        "path_delay",
        "--pcap",
        "--trace",
        "ns2",
        "--out",
        out,
    )
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text())
    # Slotted 15-s handovers: the check at 15 s is the only one after time 0 in 20 s.
    assert s["ground_stations"] == {"london": {"handovers": 1}, "newyork": {"handovers": 1}}
    assert s["links"] == {}
    for kind in ("isl", "gsl"):
        assert set(s["satellite_links"][kind]) == {
            "tx_packets",
            "tx_bytes",
            "queue_drops",
            "loss_drops",
            "handover_drops",
        }
    assert s["satellite_links"]["gsl"]["tx_packets"] > 0
    assert s["flows"]["tcp"]["goodput_bps"] > 0
    # pcap at the stations' satellite interfaces only (not one per satellite).
    assert sorted(p.name for p in (out / "pcap").iterdir()) == [
        "london-sat0.pcap",
        "newyork-sat0.pcap",
    ]
    assert (out / "trace.tr").stat().st_size > 0
    series = pd.read_parquet(out / "series.parquet")
    delay = series[(series.variable == "path_delay") & (series.entity == "tcp")]
    assert len(delay) > 100
    # London to New York: 5,570 km on a 6,378-km sphere, a straight chord of
    # 2 R sin(5570 / 2R) = 5,395 km, which no path is shorter than.
    assert (delay.value > 5395 / LIGHT_KM_S).all()
    # Between check instants the route stays and its delay follows the satellites
    # smoothly (they move 7.6 km/s: under 3 us of delay per hop in 10 ms); a jump comes
    # only with a new route, at an ISL check (every 10 s) or a handover (every 15 s).
    t = delay.time_s.to_numpy()
    v = delay.value.to_numpy()
    for k in range(1, len(v)):
        if abs(v[k] - v[k - 1]) > 1e-4:
            at = round(t[k], 6)
            assert at % 10 == 0 or at % 15 == 0, (t[k], v[k - 1], v[k])
