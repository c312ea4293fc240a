"""Writes the Starlink-like benchmark scenario of issue 39 to stdout: a 72 x 22 Walker
delta shell at 550 km and 53 deg with its ISL grid, 100 ground stations on a lattice
from 50 S to 50 N (slotted 15-s handovers, 25-deg mask), and 10 TCP SACK flows between
stations far apart, 200 s. bench/sat_speed.sh runs it.

    python bench/sat_shell.py > /tmp/sat-shell.toml
"""

from __future__ import annotations


def scenario() -> str:
    out = [
        'name = "sat-shell-bench"',
        'duration = "200s"',
        "[[constellations]]",
        'name = "shell"',
        'kind = "walker_delta"',
        "planes = 72",
        "per_plane = 22",
        'altitude = "550km"',
        "inclination = 53.0",
        "phasing = 1",
        'isl_bandwidth = "100Mb"',
        'gsl_bandwidth = "20Mb"',
        "isl_queue = 100",
        "gsl_queue = 100",
    ]
    for k in range(100):
        lat = -50.0 + 100.0 * (k // 10) / 9.0
        lon = -180.0 + 36.0 * (k % 10) + 18.0
        out += [
            "[[ground_stations]]",
            f'name = "gs{k}"',
            f"lat = {lat:.3f}",
            f"lon = {lon:.3f}",
            'constellation = "shell"',
            "min_elevation = 25.0",
            'handover = "slotted"',
            'handover_interval = "15s"',
        ]
    for f in range(10):
        a, b = 10 * f + f % 10, 10 * (9 - f) + (f + 5) % 10
        out += [
            "[[flows]]",
            f'name = "tcp{f}"',
            'type = "tcp"',
            'variant = "sack"',
            f'from = "gs{a}"',
            f'to = "gs{b}"',
        ]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(scenario(), end="")
