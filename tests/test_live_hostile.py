"""Hostile packets over UDP to `sctplab live server` (issue 28), loopback only.

The datagrams are built here byte by byte (RFC 9260 chunk layouts, CRC32c as RFC 9260
appendix A), not by sctplab, so the server meets them exactly as a forger would send
them. After them the server must still complete a legitimate association, and its
memory must stay bounded when DATA arrives 2^30 and 2^24 TSNs ahead of its window.
"""

from __future__ import annotations

import json
import socket
import struct
import subprocess
from pathlib import Path

from test_live import CLI, SCTP_PORT, finish, free_udp_port, start, wait_bound

ATTACKER_PORT = 6000
# Peak resident memory the server may reach: a CPython process with the extension is
# some tens of MB; the receive map of one DATA chunk 2^24 TSNs ahead alone used to
# take 280 MB (and 2^30 ahead aborted the process on a 16 GiB allocation).
RSS_CAP_KB = 200_000


def _crc32c_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def chunk(kind: int, flags: int, value: bytes) -> bytes:
    head = struct.pack("!BBH", kind, flags, 4 + len(value))
    return head + value + b"\0" * (-len(value) % 4)


def packet(vtag: int, *chunks: bytes) -> bytes:
    """An SCTP packet from the attacker's port to the server's, CRC32c filled in."""
    body = struct.pack("!HHII", ATTACKER_PORT, SCTP_PORT, vtag, 0) + b"".join(chunks)
    # The checksum goes in as the CRC's bytes in little-endian order (RFC 9260 app. A).
    return body[:8] + struct.pack("<I", crc32c(body)) + body[12:]


def init(tag: int, tsn: int = 1) -> bytes:
    return chunk(1, 0, struct.pack("!IIHHI", tag, 65536, 1, 1, tsn))


def abort(t_bit: bool = False) -> bytes:
    return chunk(6, int(t_bit), b"")


def heartbeat() -> bytes:
    return chunk(4, 0, struct.pack("!HH", 1, 12) + b"\x07" * 8)


def cookie_echo(cookie: bytes) -> bytes:
    return chunk(10, 0, cookie)


def message(k: int, stream: int, size: int) -> bytes:
    """CONTRACTS.md test message k of `stream`."""
    return struct.pack("!I", k) + bytes((stream + i) % 256 for i in range(4, size))


def data(tsn: int, payload: bytes, ssn: int = 0, stream: int = 0) -> bytes:
    return chunk(0, 0x03, struct.pack("!IHHI", tsn & 0xFFFFFFFF, stream, ssn, 0) + payload)


def parse(dgram: bytes) -> tuple[int, list[tuple[int, int, bytes]]]:
    """Verification tag and (type, flags, value) of each chunk."""
    vtag = struct.unpack("!I", dgram[4:8])[0]
    chunks, at = [], 12
    while at + 4 <= len(dgram):
        kind, flags, length = struct.unpack("!BBH", dgram[at : at + 4])
        chunks.append((kind, flags, dgram[at + 4 : at + length]))
        at += length + (-length % 4)
    return vtag, chunks


class Attacker:
    def __init__(self, server_udp: int) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.3)
        self.to = ("127.0.0.1", server_udp)

    def send(self, dgram: bytes) -> None:
        self.sock.sendto(dgram, self.to)

    def recv(self) -> tuple[int, list[tuple[int, int, bytes]]] | None:
        try:
            return parse(self.sock.recv(2048))
        except TimeoutError:
            return None

    def close(self) -> None:
        self.sock.close()


def server(udp: int, summary: Path) -> subprocess.Popen[str]:
    return start(
        [*CLI, "live", "server", "--port", str(SCTP_PORT), "--udp-port", str(udp),
         "--timeout", "20", "--summary", str(summary)]
    )  # fmt: skip


def peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_forged_and_out_of_the_blue_packets_then_our_client(tmp_path: Path) -> None:
    udp = free_udp_port()
    srv = server(udp, tmp_path / "server.json")
    wait_bound(udp)
    a = Attacker(udp)
    garbage = cookie_echo(b"\xa5" * 76)
    # Blind kills before the fix: an INIT or a garbage COOKIE ECHO carried the ABORT
    # behind it past the tag check; a tag-0 ABORT matched a server without a TCB.
    for dgram in [
        packet(0, init(0x1111), abort()),
        packet(0x22223333, init(0x1111), abort()),
        packet(0x22223333, garbage, abort()),
        packet(0x22223333, garbage, data(1 << 30, message(0, 0, 100))),
        packet(0x22223333, abort(), garbage),
        packet(0, abort()),
        packet(0x44445555, abort()),
        packet(0, heartbeat()),
    ]:
        a.send(dgram)
    assert a.recv() is None, "all silently discarded"
    # RFC 9260 8.4 (8): no HEARTBEAT ACK, an ABORT with the T bit under the same tag.
    a.send(packet(0x66667777, heartbeat()))
    assert a.recv() == (0x66667777, [(6, 1, b"")])
    a.close()

    cli = start(
        [*CLI, "live", "client", "127.0.0.1", "--port", str(SCTP_PORT),
         "--udp-port", str(free_udp_port()), "--remote-udp-port", str(udp),
         "--streams", "2", "--messages", "200", "--size", "500", "--timeout", "20"]
    )  # fmt: skip
    ccode, cline, cerr = finish(cli)
    code, line, err = finish(srv)
    assert (ccode, code) == (0, 0), cerr + err
    assert cline["messages"] == 200
    assert line == {"messages": 200, "bytes": 100_000, "streams": {"0": 100, "1": 100}, "errors": 0}
    summary = json.loads((tmp_path / "server.json").read_text())
    flow = summary["flows"]["live"]
    assert (flow["rule_violations"], flow["ootb_packets"], flow["cookie_rejects"]) == (5, 3, 1)
    assert summary["live"]["hostile_drops"] == 9


def handshake(a: Attacker) -> tuple[int, int]:
    """An association of our own (tag 0xABCD, first TSN 100, one stream each way), so
    the DATA that follows carries the right tag; returns the server's tag and first
    TSN."""
    a.send(packet(0, init(0xABCD, tsn=100)))
    reply = a.recv()
    assert reply is not None and reply[1][0][0] == 2, reply
    ack = reply[1][0][2]
    tag, server_tsn = struct.unpack("!I", ack[:4])[0], struct.unpack("!I", ack[12:16])[0]
    at, cookie = 16, b""
    while at + 4 <= len(ack):
        ptype, plen = struct.unpack("!HH", ack[at : at + 4])
        if ptype == 7:
            cookie = ack[at + 4 : at + plen]
        at += plen + (-plen % 4)
    a.send(packet(tag, cookie_echo(cookie)))
    assert a.recv() == (0xABCD, [(11, 0, b"")]), "COOKIE ACK"
    return tag, server_tsn


def shutdown(a: Attacker, tag: int, server_tsn: int) -> None:
    a.send(packet(tag, chunk(7, 0, struct.pack("!I", (server_tsn - 1) & 0xFFFFFFFF))))
    reply = a.recv()
    assert reply is not None and reply[1][0][0] == 8, "SHUTDOWN ACK"
    a.send(packet(tag, chunk(14, 0, b"")))


def test_data_on_a_stream_the_server_lacks_is_acked_and_reported(tmp_path: Path) -> None:
    # Our INIT offers one outbound stream, so the server has stream 0 only. RFC 9260
    # 6.5: DATA on stream 1 is acknowledged as usual (the first DATA packet gets its
    # SACK at once: cum TSN 100, a_rwnd the whole 64 KiB, nothing held), discarded,
    # and answered by an ERROR with cause 1 (3.3.10.1: code 1, length 8, the stream
    # id, two reserved bytes) bundled behind the SACK.
    udp = free_udp_port()
    srv = server(udp, tmp_path / "server.json")
    wait_bound(udp)
    a = Attacker(udp)
    tag, server_tsn = handshake(a)
    a.send(packet(tag, data(100, message(0, 1, 100), stream=1)))
    reply = a.recv()
    assert reply is not None and [c[0] for c in reply[1]] == [3, 9], reply
    assert struct.unpack("!IIHH", reply[1][0][2][:12]) == (100, 65536, 0, 0)
    assert reply[1][1] == (9, 0, struct.pack("!HHHH", 1, 8, 1, 0))
    for k in range(10):
        a.send(packet(tag, data(101 + k, message(k, 0, 100), ssn=k)))
        assert a.recv() is not None
    shutdown(a, tag, server_tsn)
    a.close()
    code, line, err = finish(srv)
    assert code == 0, err
    assert line == {"messages": 10, "bytes": 1000, "streams": {"0": 10}, "errors": 0}
    flow = json.loads((tmp_path / "server.json").read_text())["flows"]["live"]
    assert flow["errors_sent"] == 1


def test_data_far_ahead_keeps_memory_bounded(tmp_path: Path) -> None:
    udp = free_udp_port()
    srv = server(udp, tmp_path / "server.json")
    wait_bound(udp)
    a = Attacker(udp)
    tag, server_tsn = handshake(a)
    for ahead in (1 << 30, 1 << 24):
        a.send(packet(tag, data(99 + ahead, message(0, 0, 100))))
        sack = a.recv()
        assert sack is not None and sack[1][0][0] == 3
        assert struct.unpack("!IIHH", sack[1][0][2][:12]) == (99, 65536, 0, 0), "nothing taken"
    rss = peak_rss_kb(srv.pid)
    assert rss < RSS_CAP_KB, f"peak RSS {rss} kB"
    for k in range(10):
        a.send(packet(tag, data(100 + k, message(k, 0, 100), ssn=k)))
        assert a.recv() is not None
    shutdown(a, tag, server_tsn)
    a.close()
    code, line, err = finish(srv)
    assert code == 0, err
    assert line == {"messages": 10, "bytes": 1000, "streams": {"0": 10}, "errors": 0}
    summary = json.loads((tmp_path / "server.json").read_text())
    assert summary["flows"]["live"]["chunks_dropped_beyond_window"] == 2
