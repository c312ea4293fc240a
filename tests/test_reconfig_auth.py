"""RE-CONFIG (RFC 6525) and AUTH (RFC 4895) through the CLI: the summary keys, a pcap
that tshark decodes with a correct CRC32c, every AUTH chunk's HMAC recomputed here
from the INIT / INIT ACK parameters by RFC 4895's procedure (Python's hmac module as
the independent oracle), SSN 0 after a reset, and bad input in one line, exit 2."""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
import subprocess
from pathlib import Path

import pytest
from conftest import SCENARIOS, require_tshark, sctplab

EXAMPLE = SCENARIOS / "example-reconfig.toml"


def run(tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "run"
    r = sctplab("run", EXAMPLE, "--out", out, "--quiet", *extra)
    assert r.returncode == 0, r.stderr
    return out


Chunk = tuple[int, int, bytes]  # type, flags, the chunk's bytes with padding


def packets(pcap: Path) -> list[list[Chunk]]:
    """The SCTP chunks of every packet of a pcap (Ethernet or raw IPv4)."""
    data = pcap.read_bytes()
    linktype = struct.unpack_from("<I", data, 20)[0]
    at, out = 24, []
    while at + 16 <= len(data):
        incl = struct.unpack_from("<I", data, at + 8)[0]
        frame = data[at + 16 : at + 16 + incl]
        at += 16 + incl
        ip = frame[14:] if linktype == 1 else frame
        if len(ip) < 20 or ip[9] != 132:
            continue
        sctp = ip[(ip[0] & 0x0F) * 4 :]
        chunks, k = [], 12
        while k + 4 <= len(sctp):
            length = struct.unpack_from(">H", sctp, k + 2)[0]
            padded = (length + 3) // 4 * 4
            chunks.append((sctp[k], sctp[k + 1], sctp[k : k + padded]))
            k += padded
        out.append(chunks)
    return out


def params(chunk: bytes, fixed: int) -> dict[int, bytes]:
    """An INIT / INIT ACK's parameters by type: the TLV without padding."""
    out, k = {}, 4 + fixed
    length = struct.unpack_from(">H", chunk, 2)[0]
    while k + 4 <= length:
        ptype, plen = struct.unpack_from(">HH", chunk, k)
        out[ptype] = chunk[k : k + plen]
        k += (plen + 3) // 4 * 4
    return out


def key_vector(p: dict[int, bytes]) -> bytes:
    # RFC 4895 6.1: RANDOM, CHUNKS, HMAC-ALGO as sent, no padding.
    return b"".join(p[t] for t in (0x8002, 0x8003, 0x8004) if t in p)


def association_key(v1: bytes, v2: bytes) -> bytes:
    # RFC 4895 6.1: empty endpoint pair shared key, then the numerically smaller vector.
    n1, n2 = int.from_bytes(v1, "big"), int.from_bytes(v2, "big")
    small, large = (v1, v2) if (n1, len(v1)) < (n2, len(v2)) else (v2, v1)
    return small + large


def test_summary_keys(tmp_path: Path) -> None:
    flow = json.loads((run(tmp_path) / "summary.json").read_text())["flows"]["channels"]
    assert flow["auth_negotiated"] is True
    assert flow["reconfig_requests"] == 2
    assert (flow["streams_reset"], flow["streams_added"]) == (1, 2)
    # Two requests and two responses, each behind its own AUTH chunk.
    assert flow["auth_chunks_sent"] == 4
    assert flow["auth_drops"] == 0 and flow["auth_bad"] == 0
    assert len(flow["streams"]) == 5


def test_pcap_hmacs_and_ssn_reset(tmp_path: Path) -> None:
    pkts = packets(run(tmp_path, "--pcap") / "pcap" / "a-eth0.pcap")
    init = next(c[2] for p in pkts for c in p if c[0] == 1)
    init_ack = next(c[2] for p in pkts for c in p if c[0] == 2)
    pi, pa = params(init, 16), params(init_ack, 16)
    for ps in (pi, pa):
        assert len(ps[0x8002]) == 4 + 32  # 32-byte RANDOM
        assert ps[0x8003][4:] == bytes([0xC1, 0x80, 0x82])  # ASCONF, ASCONF-ACK, RE-CONFIG
        assert ps[0x8004][4:] == bytes([0, 3, 0, 1])  # SHA-256, SHA-1
        assert 0x82 in ps[0x8008][4:]  # Supported Extensions: RE-CONFIG
    key = association_key(key_vector(pi), key_vector(pa))
    checked = 0
    for p in pkts:
        for i, (kind, _, raw) in enumerate(p):
            if kind != 15:
                continue
            key_id, hmac_id = struct.unpack_from(">HH", raw, 4)
            assert (key_id, hmac_id) == (0, 3)
            length = struct.unpack_from(">H", raw, 2)[0]
            mac = raw[8:length]
            zeroed = raw[:8] + bytes(len(mac)) + raw[length:]
            data = zeroed + b"".join(c[2] for c in p[i + 1 :])
            assert hmac.new(key, data, hashlib.sha256).digest() == mac
            assert p[i + 1][0] == 0x82  # the AUTH chunk precedes the RE-CONFIG
            checked += 1
    assert checked == 4  # both directions cross this interface: two requests, two responses
    # After the reset request, stream 1's next message has SSN 0 again (no new message
    # begins while the request is outstanding).
    seen_reset, after = False, []
    for p in pkts:
        for kind, _, raw in p:
            if kind == 0x82 and struct.unpack_from(">H", raw, 4)[0] == 13:
                seen_reset = True
            if kind == 0 and seen_reset:
                sid, ssn = struct.unpack_from(">HH", raw, 8)
                if sid == 1:
                    after.append(ssn)
    # A 3000-byte message is three chunks of one SSN.
    firsts = [ssn for k, ssn in enumerate(after) if k == 0 or after[k - 1] != ssn]
    assert firsts[:3] == [0, 1, 2]


def test_pcap_decodes_in_tshark(tmp_path: Path) -> None:
    tshark = require_tshark()
    out = run(tmp_path, "--pcap") / "pcap"
    for pcap in sorted(out.glob("*.pcap")):
        verbose = subprocess.run(
            [tshark, "-r", str(pcap), "-V", "-o", "sctp.checksum:crc-32c"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert "Malformed" not in verbose, pcap
        assert "Checksum Status: Bad" not in verbose, pcap
    verbose = subprocess.run(
        [tshark, "-r", str(out / "a-eth0.pcap"), "-V", "-o", "sctp.checksum:crc-32c"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for needle in (
        "RE_CONFIG chunk",
        "AUTH chunk",
        "Outgoing SSN reset request parameter",
        "Add outgoing streams request parameter",
        "Random parameter",
        "Requested HMAC Algorithm parameter",
    ):
        assert needle.lower() in verbose.lower(), needle


@pytest.mark.parametrize(
    ("old", "new", "needle"),
    [
        ("streams = [1]", "streams = [7]", "close_channel_1.streams: stream 7 does not exist"),
        ("streams = [1]", "streams = 3", "close_channel_1.streams: expected a non-empty array"),
        ("streams = 2\n", "streams = [2]\n", "faults.open_two.streams: expected a count"),
        ("auth = true", 'auth_chunks = ["sack"]', "flows.channels.auth_chunks: needs auth = true"),
        ("auth = true", 'auth = true\nauth_chunks = ["data"]', 'unknown chunk "data"'),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, old: str, new: str, needle: str) -> None:
    text = EXAMPLE.read_text()
    assert old in text
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace(old, new, 1))
    r = sctplab("run", bad, "--out", tmp_path / "o", "--quiet")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert needle in lines[0], lines[0]


def test_auth_on_a_tcp_flow_is_one_line_and_exit_2(tmp_path: Path) -> None:
    text = (SCENARIOS / "example-tcp.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('type = "tcp"', 'type = "tcp"\nauth = true', 1))
    r = sctplab("run", bad, "--out", tmp_path / "o", "--quiet")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "auth" in lines[0], r.stderr
