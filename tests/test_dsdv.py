"""DSDV (`[wireless] routing = "dsdv"`, issue 40): bad input at the CLI, and the DSDV
rows of `sctplab validate ns2` (sctplab.validation.dsdv)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import SCENARIOS, sctplab

from sctplab.ns2 import oracle as ns2_oracle
from sctplab.validation import dsdv as validate_dsdv

MANET = SCENARIOS / "manet-tcp.toml"


@pytest.mark.parametrize(
    ("sets", "words"),
    [
        (["wireless.routing=olsr"], ["wireless.routing", "olsr", "dsdv"]),
        (
            ["wireless.routing=dsdv", "wireless.dsdv.update_interval=-15s"],
            ["wireless.dsdv.update_interval", "negative"],
        ),
        (
            ["wireless.routing=dsdv", "wireless.dsdv.update_interval=0s"],
            ["wireless.dsdv.update_interval", "greater than zero"],
        ),
    ],
)
def test_bad_dsdv_input_is_one_line_and_exit_2(
    tmp_path: Path, sets: list[str], words: list[str]
) -> None:
    args: list[str] = []
    for s in sets:
        args += ["--set", s]
    r = sctplab("run", MANET, *args, "--out", tmp_path / "out")
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert all(w in lines[0] for w in words), lines[0]
    assert "Traceback" not in r.stderr


def test_trace_reader_counts_cbr_in_the_window_and_dsdv_updates(tmp_path: Path) -> None:
    # By hand: CBR packets 1 (sent at 10 s, before the window), 2 and 3 (in it); 1 and 2
    # arrive, 3 is lost: 1 of the 2 sent in [20, 120) arrived. Three updates (`message`
    # at RTR, `s`) and one forwarded data packet at RTR, not counted.
    agt = "{e} {t:.9f} _{n}_ AGT  --- {u} cbr 532 [0 0 0 0] ------- [5:0 11:0 32 0] [0] 0 0"
    rtr = "s {t:.9f} _{n}_ RTR  --- {u} message 44 [0 0 0 0] ------- [{n}:255 -1:255 32 0]"
    fwd = "f {t:.9f} _7_ RTR  --- 2 cbr 532 [0 0 0 0] ------- [5:0 11:0 31 11] [0] 1 0"
    lines = [
        agt.format(e="s", t=10.0, n=5, u=1),
        rtr.format(t=11.0, n=3, u=4),
        agt.format(e="r", t=10.05, n=11, u=1),
        agt.format(e="s", t=20.0, n=5, u=2),
        fwd.format(t=20.01),
        agt.format(e="r", t=20.02, n=11, u=2),
        rtr.format(t=30.0, n=7, u=5),
        agt.format(e="s", t=119.0, n=5, u=3),
        rtr.format(t=125.0, n=9, u=6),
    ]
    tr = tmp_path / "t.tr"
    tr.write_text("\n".join(lines) + "\n")
    assert validate_dsdv.read_dsdv_trace(tr, 20.0, 120.0) == (2, 1, 3)


def require_ns2() -> None:
    if ns2_oracle.ns2_binary() is None:
        if os.environ.get("CI"):
            pytest.fail("ns-2 is required in CI (scripts/test.sh installs Debian's ns2)")
        pytest.skip("ns-2 not installed")


@pytest.mark.slow
def test_dsdv_rows_full_plan_pass(tmp_path: Path) -> None:
    """The full plan: 12 movements of 920 s at each of seed 004's speeds (long)."""
    require_ns2()
    rows = validate_dsdv.checks(tmp_path, quick=False, cache=tmp_path / "cache")
    assert len(rows) == 4 * len(validate_dsdv.FULL.speeds)
    failed = [r.cells() for r in rows if not r.passed]
    assert not failed, failed
