"""QUIC flows from the command line: a run folder whose pcap tshark decrypts with the
run's keylog.txt, and one-line errors with exit status 2 for bad QUIC input."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import SCENARIOS, require_tshark, sctplab

SMALL = """
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "2Mb"
delay = "5ms"
[[flows]]
name = "q"
type = "quic"
from = "a"
to = "b"
bytes = "30KB"
streams = 2
"""


def _tshark_fields(tshark: str, run: Path, field: str) -> list[str]:
    r = subprocess.run(
        [
            tshark,
            "-r",
            str(run / "pcap" / "a-eth0.pcap"),
            "-o",
            f"tls.keylog_file:{run / 'keylog.txt'}",
            "-o",
            "udp.check_checksum:TRUE",
            "-T",
            "fields",
            "-e",
            field,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return [v for line in r.stdout.splitlines() for v in line.split(",") if v]


def test_pcap_decrypts_with_the_keylog_and_shows_stream_and_ack_frames(tmp_path: Path) -> None:
    tshark = require_tshark()
    scenario = tmp_path / "q.toml"
    scenario.write_text(SMALL)
    out = tmp_path / "run"
    r = sctplab("run", scenario, "--out", out, "--pcap", "--quiet")
    assert r.returncode == 0, r.stderr
    assert (out / "keylog.txt").is_file()
    frames = set(_tshark_fields(tshark, out, "quic.frame_type"))
    # RFC 9000 sec. 19: ACK 0x02, CRYPTO 0x06, STREAM 0x08-0x0f.
    assert "2" in frames, frames
    assert "6" in frames, frames
    assert frames & {str(t) for t in range(8, 16)}, frames
    # Without the key log the 1-RTT packets stay opaque: no STREAM frame is seen.
    r = subprocess.run(
        [tshark, "-r", str(out / "pcap" / "a-eth0.pcap"), "-T", "fields", "-e", "quic.frame_type"],
        capture_output=True,
        text=True,
        check=True,
    )
    opaque = {v for line in r.stdout.splitlines() for v in line.split(",") if v}
    assert not opaque & {str(t) for t in range(8, 16)}, opaque
    summary = json.loads((out / "summary.json").read_text())
    assert summary["flows"]["q"]["delivered_bytes"] == 30_000


def test_the_shipped_quic_scenario_runs(tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = sctplab("run", SCENARIOS / "quic-dumbbell.toml", "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    flows = json.loads((out / "summary.json").read_text())["flows"]
    assert flows["cubic-10MB"]["delivered_bytes"] == 10_000_000
    assert flows["cubic-10MB"]["completion_time_s"] is not None


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        ('stop = "2s"', "flows.q.stop"),
        ('stream_traffic = [{ stream = 0, message_size = "1KB" }]', "flows.q.stream_traffic"),
        ('congestion_control = "vegas"', "flows.q.congestion_control"),
    ],
)
def test_bad_quic_input_is_one_line_and_exit_2(tmp_path: Path, extra: str, key: str) -> None:
    scenario = tmp_path / "bad.toml"
    scenario.write_text(SMALL + extra + "\n")
    r = sctplab("run", scenario, "--out", tmp_path / "run", "--quiet")
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert key in lines[0], lines[0]


def test_a_quic_flow_to_an_unreachable_node_is_one_line_and_exit_2(tmp_path: Path) -> None:
    scenario = tmp_path / "bad.toml"
    scenario.write_text(SMALL.replace('to = "b"', 'to = "c"') + '[[nodes]]\nname = "c"\n')
    r = sctplab("run", scenario, "--out", tmp_path / "run", "--quiet")
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "no path" in r.stderr
