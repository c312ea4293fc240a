"""The ns-2.35 oracle files of crates/sctplab-core/src/sat/ns2_check.rs, made by running
ns-2.35's satellite module (`ns`) on the project's Tcl scripts beside them:

- ns2_polar.out: `ns ns2_polar.tcl`'s output (64 `dump_sats`: positions and links up);
- ns2_delay.txt: from ns2_delay.tcl's packet trace, one line per delivered packet:
  its uid, the times it entered the first link and reached the last node (as ns-2.35
  prints them, 4 decimals), and the nodes of its path.

    python scripts/sat_ns2_oracle.py          # rewrites both files

tests/test_sat_ns2_oracle.py checks that the stored files are what `ns` prints.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TESTDATA = Path(__file__).resolve().parent.parent / "crates/sctplab-core/src/sat/testdata"


def _run(ns: str, script: str, workdir: Path) -> str:
    shutil.copy(TESTDATA / script, workdir / script)
    done = subprocess.run(
        [ns, script], cwd=workdir, capture_output=True, text=True, timeout=600, check=True
    )
    return done.stdout


def polar_dumps(ns: str, workdir: Path) -> str:
    return _run(ns, "ns2_polar.tcl", workdir)


def delay_paths(ns: str, workdir: Path) -> str:
    """One line per delivered packet: `uid sent received node node ...`."""
    _run(ns, "ns2_delay.tcl", workdir)
    sent: dict[str, str] = {}
    path: dict[str, list[str]] = {}
    received: dict[str, str] = {}
    with open(workdir / "delay.tr") as trace:
        for line in trace:
            f = line.split()
            event, time, src, dst, uid = f[0], f[1], f[2], f[3], f[11]
            if event == "+":
                sent.setdefault(uid, time)
                path.setdefault(uid, [src]).append(dst)
            elif event == "r" and dst == "67":
                received[uid] = time
    rows = [
        f"{uid} {sent[uid]} {received[uid]} {' '.join(path[uid])}"
        for uid in sorted(received, key=int)
    ]
    return "\n".join(rows) + "\n"


def main() -> None:
    ns = shutil.which("ns")
    if ns is None:
        sys.exit("ns-2.35 (ns) is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        (TESTDATA / "ns2_polar.out").write_text(polar_dumps(ns, Path(tmp)))
        (TESTDATA / "ns2_delay.txt").write_text(delay_paths(ns, Path(tmp)))


if __name__ == "__main__":
    main()
