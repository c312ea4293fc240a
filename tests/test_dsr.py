"""DSR (`[wireless] routing = "dsr"`, issue 40): bad input at the CLI, and the DSR rows
of `sctplab validate ns2` (sctplab.validation.dsr)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SCENARIOS, sctplab

from sctplab.validation import dsr as validate_dsr

MANET = SCENARIOS / "manet-tcp.toml"


@pytest.mark.parametrize(
    ("sets", "words"),
    [
        (
            ["wireless.routing=dsr", "wireless.dsr.primary_cache_size=0"],
            ["wireless.dsr.primary_cache_size", "at least 1"],
        ),
        (
            ["wireless.routing=dsr", "wireless.dsr.send_buffer_size=0"],
            ["wireless.dsr.send_buffer_size", "at least 1"],
        ),
        (
            ["wireless.routing=dsr", "wireless.dsr.header_sizes=rfc9999"],
            ["wireless.dsr.header_sizes", "rfc4728"],
        ),
    ],
)
def test_bad_dsr_input_is_one_line_and_exit_2(
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


def test_trace_reader_counts_cbr_in_the_window_and_every_dsr_transmission(
    tmp_path: Path,
) -> None:
    # By hand: CBR packets 1 (sent at 10 s, before the window), 2 and 3 (in it); 1 and 2
    # arrive, 3 is lost: 1 of the 2 sent in [20, 120) arrived. DSR packets: a request
    # sent (s) and forwarded twice (f), a reply sent: 4 transmissions; its receptions
    # (r) and a forwarded data packet are not counted.
    agt = "{e} {t:.9f} _{n}_ AGT  --- {u} cbr 532 [0 0 0 0] ------- [5:0 11:0 32 0] [0] 0 0"
    dsr = "{e} {t:.9f} _{n}_ RTR  --- {u} DSR 32 [0 0 0 0] ------- [5:255 11:255 32 0] 1"
    fwd = "f {t:.9f} _7_ RTR  --- 2 cbr 556 [0 0 0 0] ------- [5:0 11:0 31 11] [0] 1 0"
    lines = [
        agt.format(e="s", t=10.0, n=5, u=1),
        dsr.format(e="s", t=10.0, n=5, u=4),
        dsr.format(e="r", t=10.001, n=6, u=4),
        dsr.format(e="f", t=10.002, n=6, u=4),
        dsr.format(e="f", t=10.003, n=7, u=4),
        dsr.format(e="s", t=10.01, n=11, u=5),
        agt.format(e="r", t=10.05, n=11, u=1),
        agt.format(e="s", t=20.0, n=5, u=2),
        fwd.format(t=20.01),
        agt.format(e="r", t=20.02, n=11, u=2),
        agt.format(e="s", t=119.0, n=5, u=3),
    ]
    tr = tmp_path / "t.tr"
    tr.write_text("\n".join(lines) + "\n")
    assert validate_dsr.read_dsr_trace(tr, 20.0, 120.0) == (2, 1, 4)
