"""`sctplab run` writes the run folder of CONTRACTS.md, and its pcap decodes cleanly."""

from __future__ import annotations

import json
import platform
import socket
import subprocess
import sys
from pathlib import Path

import pandas as pd
from conftest import require_tshark, sctplab

SUMMARY_FLOW_KEYS = {
    "goodput_bps",
    "delivered_bytes",
    "data_packets_sent",
    "retransmissions",
    "fast_retransmissions",
    "timeout_retransmissions",
    "timeouts",
    "ack_packets",
    "ack_bytes",
    "connect_time_s",
    "completion_time_s",
}
SUMMARY_LINK_KEYS = {"tx_packets", "tx_bytes", "utilization", "queue_drops", "loss_drops"}


def test_run_folder_contents(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = sctplab("run", example, "--out", out, "--pcap", "--trace", "ns2,sends", "--series", "queue")
    assert r.returncode == 0, r.stderr
    for name in ["summary.json", "run.json", "scenario.toml", "trace.tr", "sends.csv"]:
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary) == {"scenario", "seed", "sim_time_s", "events", "flows", "links"}
    assert summary["scenario"] == "example-cbr"
    assert summary["seed"] == 1
    for flow in summary["flows"].values():
        assert SUMMARY_FLOW_KEYS <= set(flow)
    assert set(summary["links"]) >= {"h1->r1", "r1->r2", "r2->h2", "h2->r2"}
    for link in summary["links"].values():
        assert SUMMARY_LINK_KEYS <= set(link)
        assert link["fault_drops"] == 0  # no [[faults]] in this scenario
    # The bottleneck is overloaded (1.94 + 0.075 Mb/s on the wire into 2 Mb/s).
    assert summary["links"]["r1->r2"]["queue_drops"] > 0
    assert summary["links"]["r2->h2"]["loss_drops"] > 0

    run_json = json.loads((out / "run.json").read_text())
    assert run_json["wall_time_s"] > 0
    assert {"sctplab_version", "git_commit", "host", "events_per_s"} <= set(run_json)
    # The host name is read without importing socket; it must be socket's.
    assert run_json["host"]["hostname"] == socket.gethostname()
    assert run_json["host"]["platform"] == platform.platform()

    sends = pd.read_csv(out / "sends.csv")
    assert list(sends.columns) == ["time_s", "flow", "seq", "kind", "dest"]
    assert set(sends["kind"]) == {"new"}
    # Every flow of this scenario goes to h2, whose only interface is eth0.
    assert set(sends["dest"]) == {"h2:eth0"}
    voice = sends[sends["flow"] == "voice"]
    assert list(voice["seq"]) == list(range(1, len(voice) + 1))

    series = pd.read_parquet(out / "series.parquet")
    assert list(series.columns) == ["time_s", "entity", "variable", "value"]
    assert set(series["variable"]) == {"queue"}
    assert series["value"].max() > 0

    trace = (out / "trace.tr").read_text().splitlines()
    events = {line.split()[0] for line in trace}
    assert events == {"+", "-", "r", "d"}

    pcaps = sorted(p.name for p in (out / "pcap").iterdir())
    assert "r1-eth1.pcap" in pcaps and len(pcaps) == 6


def test_resolved_scenario_repeats_the_run(example: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert sctplab("run", example, "--out", a, "--set", "links.bottleneck.queue=5").returncode == 0
    # Running the folder's scenario.toml again gives the same summary.
    assert sctplab("run", a / "scenario.toml", "--out", b).returncode == 0
    sa = json.loads((a / "summary.json").read_text())
    sb = json.loads((b / "summary.json").read_text())
    sb["scenario"] = sa["scenario"]  # the resolved file keeps the name, but check anyway
    assert sa == sb


def tshark_clean(tshark: str, pcap_dir: Path) -> None:
    """Every pcap decodes with no malformed packet and no bad checksum."""
    for pcap in pcap_dir.iterdir():
        r = subprocess.run(
            [
                tshark,
                "-r",
                str(pcap),
                "-V",
                "-o",
                "ip.check_checksum:TRUE",
                "-o",
                "udp.check_checksum:TRUE",
                "-o",
                "tcp.check_checksum:TRUE",
                "-o",
                "sctp.checksum:crc-32c",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "Malformed" not in r.stdout, pcap.name
        assert "[incorrect" not in r.stdout, pcap.name
        assert "Checksum Status: Bad" not in r.stdout, pcap.name


def test_pcap_decodes_cleanly_in_tshark(example: Path, tmp_path: Path) -> None:
    tshark = require_tshark()
    out = tmp_path / "run"
    assert sctplab("run", example, "--out", out, "--pcap", "--quiet").returncode == 0
    tshark_clean(tshark, out / "pcap")
    # Nanosecond timestamps survive: the first packet on h1's interface leaves at 0 and
    # reaches r1 after 188 B at 10 Mb/s (150.4 us) plus 2 ms.
    r = subprocess.run(
        [
            tshark,
            "-r",
            str(out / "pcap" / "r1-eth0.pcap"),
            "-T",
            "fields",
            "-e",
            "frame.time_epoch",
            "-c",
            "1",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert r.stdout.strip() == "0.002150400"


def test_tcp_pcap_shows_handshake_and_sack_blocks(tmp_path: Path) -> None:
    tshark = require_tshark()
    out = tmp_path / "tcp"
    scen = Path(__file__).resolve().parent.parent / "scenarios" / "example-tcp.toml"
    r = sctplab("run", scen, "--out", out, "--pcap", "--quiet", "--set", "duration=20s")
    assert r.returncode == 0, r.stderr
    tshark_clean(tshark, out / "pcap")

    def rows(display_filter: str) -> list[str]:
        res = subprocess.run(
            [tshark, "-r", str(out / "pcap" / "h1-eth0.pcap"), "-Y", display_filter],
            capture_output=True,
            text=True,
            check=True,
        )
        return res.stdout.splitlines()

    syn = rows("tcp.flags.syn == 1 && tcp.flags.ack == 0")
    assert len(syn) == 1 and "SACK_PERM" in syn[0]
    assert rows("tcp.flags.syn == 1 && tcp.flags.ack == 1")
    assert rows("tcp.options.sack_le"), "no SACK blocks on the wire"
    assert rows("tcp.analysis.retransmission || tcp.analysis.fast_retransmission")


def test_sctp_pcap_shows_a_whole_association_with_valid_crc32c(tmp_path: Path) -> None:
    tshark = require_tshark()
    out = tmp_path / "sctp"
    scen = Path(__file__).resolve().parent.parent / "scenarios" / "example-sctp.toml"
    r = sctplab("run", scen, "--out", out, "--pcap", "--quiet", "--set", "flows.sctp1.bytes=200KB")
    assert r.returncode == 0, r.stderr
    tshark_clean(tshark, out / "pcap")
    res = subprocess.run(
        [
            tshark,
            "-r",
            str(out / "pcap" / "source-eth0.pcap"),
            "-o",
            "sctp.checksum:crc-32c",
            "-T",
            "fields",
            "-e",
            "sctp.chunk_type",
            "-e",
            "sctp.checksum.status",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    types: set[str] = set()
    for line in res.stdout.splitlines():
        chunk_types, status = line.split("\t")
        types.update(chunk_types.split(","))
        assert status == "1", line  # 1 = checksum verified good
    # INIT, INIT-ACK, COOKIE-ECHO, COOKIE-ACK, DATA, SACK, SHUTDOWN, SHUTDOWN-ACK,
    # SHUTDOWN-COMPLETE (RFC 9260 chunk type numbers).
    assert {"1", "2", "10", "11", "0", "3", "7", "8", "14"} <= types


def test_start_up_imports_stay_lazy() -> None:
    # `sctplab run` and every sweep worker import these modules at start-up; the heavy
    # ones are imported where they are used (bench/RESULTS.md, "Whole process").
    heavy = [
        "pandas", "numpy", "pyarrow", "matplotlib", "scipy", "rich", "dask", "distributed",
        "socket", "tomllib", "sqlite3", "concurrent.futures", "sctplab.store", "sctplab.live",
    ]  # fmt: skip
    code = (
        "import sys, sctplab.cli, sctplab.executor; "
        f"print(','.join(m for m in {heavy!r} if m in sys.modules))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == ""


def test_the_folder_guard_keeps_a_run_of_other_overrides(example: Path, tmp_path: Path) -> None:
    # Issue 30: two `--set` values into the default folder runs/<scenario>-<seed>.
    folder = tmp_path / "runs" / "example-cbr-1"
    r = sctplab("run", example, "--set", "links.bottleneck.delay=20ms", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    first = (folder / "summary.json").read_bytes()
    r = sctplab("run", example, "--set", "links.bottleneck.delay=40ms", cwd=tmp_path)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "--force" in lines[0] and "another scenario" in lines[0], r.stderr
    assert (folder / "summary.json").read_bytes() == first
    # The same command again replaces its own folder.
    r = sctplab("run", example, "--set", "links.bottleneck.delay=20ms", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (folder / "summary.json").read_bytes() == first
    # Another seed into the same --out is another run too.
    r = sctplab("run", example, "--seed", "2", "--out", folder, "--set",
                "links.bottleneck.delay=20ms", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 2 and "seed 1" in r.stderr
    # --force replaces it.
    r = sctplab("run", example, "--set", "links.bottleneck.delay=40ms", "--force", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (folder / "summary.json").read_bytes() != first
    assert 'delay = "40ms"' in (folder / "scenario.toml").read_text()


def test_the_folder_guard_lets_a_run_with_a_movement_file_replace_itself(tmp_path: Path) -> None:
    # The folder's scenario.toml names its copy of the movement file, the run the
    # original: the same command is still the same run.
    manet = Path(__file__).resolve().parent.parent / "scenarios" / "manet-tcp.toml"
    short = ["--set", "duration=30s", "--set", "measure.end=30s", "--set",
             "flows.transport.stop=30s"]  # fmt: skip
    moves = tmp_path / "moves.tcl"
    assert sctplab("movement", manet, "--seed", "2", "--out", moves).returncode == 0
    cmd = ["run", manet, "--quiet", *short, "--set", "mobility.file=moves.tcl"]
    for _ in range(2):
        r = sctplab(*cmd, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    # The folder run from its own scenario.toml, in place: the same run again.
    folder = tmp_path / "runs" / "manet-tcp-1"
    r = sctplab("run", folder / "scenario.toml", "--out", folder, "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    # Another movement file is another scenario.
    other = tmp_path / "other.tcl"
    assert sctplab("movement", manet, "--seed", "5", "--out", other).returncode == 0
    r = sctplab("run", manet, "--quiet", *short, "--set", "mobility.file=other.tcl", cwd=tmp_path)
    assert r.returncode == 2 and "--force" in r.stderr
