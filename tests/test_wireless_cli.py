"""Wireless scenarios from the command line: movement export, replay, run folders."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import sctplab

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
SHORT = ["--set", "duration=30s", "--set", "measure.end=30s", "--set", "flows.transport.stop=30s"]


def _summary(folder: Path) -> dict[str, object]:
    s: dict[str, object] = json.loads((folder / "summary.json").read_text())
    return s


def test_exported_movement_replays_the_generated_run(tmp_path: Path) -> None:
    manet = SCENARIOS / "manet-tcp.toml"
    moves = tmp_path / "moves-3.tcl"
    r = sctplab("movement", manet, "--seed", "3", "--out", moves, *SHORT)
    assert r.returncode == 0, r.stderr
    text = moves.read_text()
    # setdest format: three initial coordinates per node, then timed setdest lines.
    assert text.count("set X_") == 46 and text.count("set Z_") == 46
    assert '"$node_(' in text and "setdest" in text

    gen = tmp_path / "gen"
    rep = tmp_path / "rep"
    assert sctplab("run", manet, "--seed", "3", "--out", gen, "--quiet", *SHORT).returncode == 0
    r = sctplab(
        "run",
        manet,
        "--seed",
        "3",
        "--out",
        rep,
        "--quiet",
        *SHORT,
        "--set",
        f"mobility.file={moves.name}",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    # The same legs, so the same run, byte for byte.
    assert (gen / "summary.json").read_bytes() == (rep / "summary.json").read_bytes()
    # The run folder keeps its movement file (under inputs/) and names it relative to
    # itself, so the run repeats from the folder alone.
    assert (rep / "inputs" / moves.name).read_text() == text
    assert f'file = "inputs/{moves.name}"' in (rep / "scenario.toml").read_text()
    again = tmp_path / "again"
    r = sctplab("run", rep / "scenario.toml", "--seed", "3", "--out", again, "--quiet")
    assert r.returncode == 0, r.stderr
    a, b = _summary(rep), _summary(again)
    a.pop("scenario")
    b.pop("scenario")
    assert a == b


def test_manet_summary_has_the_contract_keys(tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = sctplab("run", SCENARIOS / "manet-sctp.toml", "--out", out, "--quiet", *SHORT)
    assert r.returncode == 0, r.stderr
    s = _summary(out)
    flows = s["flows"]
    assert isinstance(flows, dict)
    t = flows["transport"]
    for key in ["goodput_bps", "sack_packets", "sack_bytes", "ack_bytes", "connect_time_s"]:
        assert key in t
    # Every SCTP acknowledgement is a SACK.
    assert t["sack_bytes"] == t["ack_bytes"]
    # Ten background flows drawn from the seed, recorded with their pair and start.
    bg = [f for name, f in flows.items() if name.startswith("background.")]
    assert len(bg) == 10
    among = {f"n{i}" for i in range(2, 46)}
    assert len({(f["from"], f["to"]) for f in bg}) == 10
    for f in bg:
        assert f["from"] in among and f["to"] in among and f["from"] != f["to"]
        assert 1.0 <= f["start_s"] <= 11.0
    nodes = s["nodes"]
    assert isinstance(nodes, dict) and len(nodes) == 46
    assert {"mac", "routing", "forwarded"} <= set(nodes["n0"])


def test_wireless_pcap_decodes_as_80211(tmp_path: Path) -> None:
    from conftest import require_tshark

    tshark = require_tshark()
    out = tmp_path / "run"
    r = sctplab(
        "run",
        SCENARIOS / "manet-tcp.toml",
        "--out",
        out,
        "--pcap",
        "--quiet",
        "--set",
        "duration=25s",
        "--set",
        "measure.end=25s",
        "--set",
        "flows.transport.stop=25s",
    )
    assert r.returncode == 0, r.stderr
    pcap = out / "pcap" / "n0-wlan0.pcap"
    import subprocess

    fields = subprocess.run(
        [
            tshark,
            "-r",
            str(pcap),
            "-T",
            "fields",
            "-e",
            "wlan.fc.type_subtype",
            "-e",
            "aodv.type",
            "-e",
            "tcp.srcport",
            "-e",
            "_ws.malformed",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    subtypes = {line.split("\t")[0] for line in fields}
    # RTS (0x001b), CTS (0x001c), ACK (0x001d) and DATA (0x0020) frames, AODV inside UDP
    # 654 and the TCP flow's segments, nothing malformed.
    assert {"0x001b", "0x001c", "0x001d", "0x0020"} <= subtypes, subtypes
    assert any(line.split("\t")[1] == "1" for line in fields)  # a Route Request
    assert any(line.split("\t")[2] == "50000" for line in fields)
    assert not any(line.split("\t")[3] for line in fields)


TWO_NODES = """
duration = "1s"
[wireless]
width = "500m"
height = "300m"
routing = "static"
arp = false  # the MAC exchange alone; ARP's frames are tested in crates/sctplab-core
[wireless.mac]
data_rate = "2Mb"
basic_rate = "2Mb"
[[nodes]]
name = "a"
wlan = 1
x = "100m"
y = "100m"
[[nodes]]
name = "b"
wlan = 1
x = "300m"
y = "100m"
[[flows]]
name = "cbr"
type = "cbr"
from = "a"
to = "b"
rate = "100Kb"
packet_size = "512B"
stop = "10ms"
"""


def test_ns2_wireless_trace_follows_one_packet(tmp_path: Path) -> None:
    scenario = tmp_path / "two.toml"
    scenario.write_text(TWO_NODES)
    out = tmp_path / "run"
    r = sctplab("run", scenario, "--out", out, "--trace", "ns2", "--quiet")
    assert r.returncode == 0, r.stderr
    lines = [line.split() for line in (out / "trace.tr").read_text().splitlines()]
    # (op, node, layer, type) in order: the agent sends, routing sends, the MAC puts RTS,
    # CTS, DATA and ACK on the air, the receiver's MAC, routing and agent take it.
    steps = [(f[0], f[2], f[3], f[6]) for f in lines]
    assert steps == [
        ("s", "_0_", "AGT", "cbr"),
        ("s", "_0_", "RTR", "cbr"),
        ("s", "_0_", "MAC", "RTS"),
        ("s", "_1_", "MAC", "CTS"),
        ("s", "_0_", "MAC", "cbr"),
        ("r", "_1_", "MAC", "cbr"),
        ("s", "_1_", "MAC", "ACK"),
        ("r", "_1_", "RTR", "cbr"),
        ("r", "_1_", "AGT", "cbr"),
    ]
    data = lines[4]
    # 540-B IP packet + 34 B MAC header and FCS + 24 B PLCP = 598 B; the Duration field
    # (SIFS + ACK = 10 + 248 us = 0x102), receiver node 1, transmitter node 0, IP; the IP
    # part names nodes, ports, TTL and next hop.
    assert data[7] == "598"
    assert data[8:12] == ["[102", "1", "0", "800]"]
    assert data[13:17] == ["[0:50000", "1:52000", "64", "1]"]
    # Times: the DATA frame starts 25 us (LL) + 50 us (DIFS) + k slots + 272 (RTS) + 10 +
    # 248 (CTS) + 10 us + two 667-ns propagation delays after the agent's send.
    t0, t_data = float(lines[0][1]), float(data[1])
    k = (t_data - t0 - 615e-6 - 1.334e-6) / 20e-6
    assert abs(k - round(k)) < 1e-6 and 0 <= round(k) <= 30


def test_shortcuts_none_changes_only_the_event_count(tmp_path: Path) -> None:
    # `--shortcuts none` is a checking tool: every MAC timer and reception an event of
    # the queue (the plain model). summary.json must be the same but for `events`.
    manet = SCENARIOS / "manet-sctp.toml"
    short = ["--set", "duration=22s", "--set", "measure.end=22s"]
    short += ["--set", "flows.transport.stop=22s"]
    fast, plain = tmp_path / "fast", tmp_path / "plain"
    r = sctplab("run", manet, "--out", fast, "--quiet", *short)
    assert r.returncode == 0, r.stderr
    r = sctplab("run", manet, "--out", plain, "--quiet", "--shortcuts", "none", *short)
    assert r.returncode == 0, r.stderr
    a, b = _summary(fast), _summary(plain)
    fast_events, plain_events = a.pop("events"), b.pop("events")
    assert a == b
    assert isinstance(fast_events, int) and isinstance(plain_events, int)
    assert plain_events > 2 * fast_events
    assert json.loads((plain / "run.json").read_text())["shortcuts"] == "none"
    assert "shortcuts" not in json.loads((fast / "run.json").read_text())


def test_bad_shortcuts_value_is_one_line_and_no_folder(tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = sctplab("run", SCENARIOS / "manet-tcp.toml", "--out", out, "--shortcuts", "fast", *SHORT)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "--shortcuts" in lines[0] and "none" in lines[0], r.stderr
    assert not out.exists()
