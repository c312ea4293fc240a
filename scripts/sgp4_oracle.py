"""The oracle for the SGP4 test of crates/sctplab-core/src/sat/tle.rs: TEME positions of a
few published element sets (the ISS example of Vallado's and the crate's documentation,
and three of Vallado's SGP4 verification sets, SGP4-VER.TLE) from the `sgp4` Python
package (PyPI; Vallado's reference code, WGS72, improved mode), and the Greenwich mean
sidereal time of each epoch from that package's `gstime`.

    python scripts/sgp4_oracle.py > crates/sctplab-core/src/sat/testdata/sgp4_oracle.json

tests/test_sat_sgp4_oracle.py checks that the checked-in file is what the package answers.
"""

from __future__ import annotations

import json
from typing import Any

from sgp4.api import WGS72, Satrec
from sgp4.propagation import gstime

SETS: list[tuple[str, str, str]] = [
    (
        "ISS (ZARYA)",
        "1 25544U 98067A   08264.51782528 -.00002182  00000-0 -11606-4 0  2927",
        "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.72125391563537",
    ),
    (
        "00005 (TEME example, e = 0.186)",
        "1 00005U 58002B   00179.78495062  .00000023  00000-0  28098-4 0  4753",
        "2 00005  34.2682 348.7242 1859667 331.7664  19.3264 10.82419157413667",
    ),
    (
        "28057 (sun-synchronous LEO)",
        "1 28057U 03049A   06177.78615833  .00000060  00000-0  35940-4 0  1836",
        "2 28057  98.4283 247.6961 0000884  88.1964 271.9322 14.35478080140550",
    ),
    (
        "28626 (geostationary, deep space)",
        "1 28626U 05008A   06176.46683397 -.00000205  00000-0  10000-3 0  2190",
        "2 28626   0.0019 286.9433 0000335  13.7918  55.6504  1.00270176  4891",
    ),
]

MINUTES: list[float] = [0.0, 1.5, 15.0, 97.25, 360.0, 1440.0]


def oracle() -> dict[str, Any]:
    sets: list[dict[str, Any]] = []
    for name, line1, line2 in SETS:
        sat = Satrec.twoline2rv(line1, line2, WGS72)
        states: list[dict[str, Any]] = []
        for minutes in MINUTES:
            err, r, _v = sat.sgp4_tsince(minutes)
            if err != 0:
                raise RuntimeError(f"{name}: sgp4 error {err} at {minutes} min")
            states.append({"minutes": minutes, "teme_km": list(r)})
        sets.append(
            {
                "name": name,
                "line1": line1,
                "line2": line2,
                "gmst_epoch": gstime(sat.jdsatepoch + sat.jdsatepochF),
                "states": states,
            }
        )
    return {"source": "sgp4 (PyPI) Satrec.twoline2rv(..., WGS72).sgp4_tsince", "sets": sets}


def main() -> None:
    print(json.dumps(oracle(), indent=1))


if __name__ == "__main__":
    main()
