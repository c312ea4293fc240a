"""`sctplab live`: the simulator's SCTP association over UDP on loopback, against itself
and against usrsctp (a C peer of our own, tests/live/usrsctp_peer.c, built here with the
system compiler), with and without the seeded impairment relay.

Expected values come from the contract (CONTRACTS.md "Live mode"): M messages sent
round-robin over N streams give stream s exactly ceil((M - s) / N) messages, so 1000
over 4 give 250 each, 1000 * SIZE bytes, no errors, exit 0 after a graceful shutdown.
"""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PEER_SRC = ROOT / "tests" / "live" / "usrsctp_peer.c"
CLI = [sys.executable, "-m", "sctplab.cli"]
SCTP_PORT = 5001
MESSAGES, STREAMS, SIZE = 1000, 4, 1000
EXPECTED_STREAMS = {"0": 250, "1": 250, "2": 250, "3": 250}
# Relay settings of the impaired runs (both directions): 1 % loss, 2 ms +- 1 ms,
# 2 % reordered by 5 ms more, 1 % duplicated; chunk 100 lost twice (its first
# transmission and its fast retransmission: gap reports, fast retransmit, then T3),
# chunk 1000 (the last of 1000 one-chunk messages) lost once: nothing follows it to
# report the gap, so only T3 can repair it.
RELAY_ARGS = [
    "--loss", "0.01", "--delay", "0.002", "--jitter", "0.001", "--reorder", "0.02",
    "--duplicate", "0.01", "--drop", "100x2", "--drop", "1000", "--seed", "3",
]  # fmt: skip
TIMEOUT = 25
SERVER_TIMEOUT = TIMEOUT + 15


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(p: subprocess.Popen[str], timeout: float = TIMEOUT + 10) -> tuple[int, dict, str]:
    out, err = p.communicate(timeout=timeout)
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    return p.returncode, json.loads(lines[-1]) if lines else {}, err


def wait_bound(port: int) -> None:
    """Waits until something listens on UDP `port` (a server started in the background)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing bound UDP port {port}")


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler (cc) to build the usrsctp peer")
    exe = tmp_path_factory.mktemp("peer") / "usrsctp_peer"
    r = subprocess.run(
        [cc, "-O2", "-o", str(exe), str(PEER_SRC), "-lusrsctp", "-lpthread"],
        capture_output=True,
        text=True,
        check=False,
    )
    if r.returncode != 0 and "usrsctp.h" in r.stderr:
        pytest.skip("libusrsctp-dev is not installed (usrsctp.h missing)")
    assert r.returncode == 0, r.stderr
    return exe


def our_server(udp: int, *extra: str) -> subprocess.Popen[str]:
    return start(
        [*CLI, "live", "server", "--port", str(SCTP_PORT), "--udp-port", str(udp),
         "--timeout", str(TIMEOUT), *extra]
    )  # fmt: skip


def our_client(udp: int, remote_udp: int, *extra: str) -> subprocess.Popen[str]:
    return start(
        [*CLI, "live", "client", "127.0.0.1", "--port", str(SCTP_PORT), "--udp-port", str(udp),
         "--remote-udp-port", str(remote_udp), "--streams", str(STREAMS),
         "--messages", str(MESSAGES), "--size", str(SIZE), "--timeout", str(TIMEOUT), *extra]
    )  # fmt: skip


def usrsctp_server(peer: Path, udp: int, *extra: str) -> subprocess.Popen[str]:
    # The server outlasts a client that used its whole timeout and then lingered: on a
    # loaded machine the shutdown can reach the server after TIMEOUT (one CI-like run in
    # about twenty under load 8 timed out the server with a 25-s alarm).
    return start([str(peer), "server", str(udp), str(SCTP_PORT), str(SERVER_TIMEOUT), *extra])


def usrsctp_client(peer: Path, udp: int, remote_udp: int, *extra: str) -> subprocess.Popen[str]:
    return start(
        [str(peer), "client", str(udp), str(remote_udp), str(SCTP_PORT), str(STREAMS),
         str(MESSAGES), str(SIZE), str(TIMEOUT), *extra]
    )  # fmt: skip


def start_relay(
    server_udp: int, args: list[str] | None = None
) -> tuple[subprocess.Popen[str], int]:
    port = free_udp_port()
    p = start(
        [*CLI, "live", "relay", "--listen-port", str(port), "--server-port", str(server_udp),
         "--timeout", str(SERVER_TIMEOUT + 5), *(RELAY_ARGS if args is None else args)]
    )  # fmt: skip
    wait_bound(port)
    return p, port


def stop_relay(p: subprocess.Popen[str]) -> dict:
    p.send_signal(signal.SIGINT)
    code, stats, err = finish(p)
    assert code == 0, err
    return stats


def assert_received(line: dict) -> None:
    assert line["messages"] == MESSAGES
    assert line["bytes"] == MESSAGES * SIZE
    assert line["streams"] == EXPECTED_STREAMS
    assert line["errors"] == 0


def test_our_client_to_our_server_with_pcap(tmp_path: Path) -> None:
    udp = free_udp_port()
    pcap = tmp_path / "server.pcap"
    summary = tmp_path / "summary.json"
    srv = our_server(udp, "--pcap", str(pcap), "--summary", str(summary))
    wait_bound(udp)
    cli = our_client(free_udp_port(), udp)
    code, line, err = finish(cli)
    assert code == 0, err
    # The client reports what it sent and had acknowledged.
    assert_received(line)
    scode, sline, serr = finish(srv)
    assert scode == 0, serr
    assert_received(sline)
    # The contract's line: exactly these keys, in this order.
    assert list(sline) == ["messages", "bytes", "streams", "errors"]
    flow = json.loads(summary.read_text())["flows"]["live"]
    assert flow["delivered_bytes"] == MESSAGES * SIZE
    assert json.loads(summary.read_text())["live"]["malformed"] == 0
    tshark = shutil.which("tshark")
    if tshark is None:
        return
    # tshark decodes every record as SCTP with a good CRC32c: one DATA chunk per
    # 1000-byte message (it fits a 1500-byte MTU), plus the handshake and shutdown.
    r = subprocess.run(
        [tshark, "-r", str(pcap), "-d", f"udp.port=={udp},sctp", "-o", "sctp.checksum:crc-32c",
         "-T", "fields", "-e", "sctp.chunk_type", "-e", "sctp.checksum.status"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    rows = [ln.split("\t") for ln in r.stdout.splitlines() if ln]
    assert all(status == "1" for _, status in rows), "every CRC32c good"
    chunk_types = [t for types, _ in rows for t in types.split(",")]
    assert chunk_types.count("0") == MESSAGES  # DATA, no retransmission on loopback
    for t in ("1", "2", "10", "11", "7", "8", "14"):  # INIT .. SHUTDOWN-COMPLETE
        assert t in chunk_types


def test_our_client_to_usrsctp_server(peer: Path) -> None:
    udp = free_udp_port()
    srv = usrsctp_server(peer, udp)
    wait_bound(udp)
    code, line, err = finish(our_client(free_udp_port(), udp))
    assert code == 0, err
    assert_received(line)
    scode, sline, serr = finish(srv)
    assert scode == 0, (sline, serr)
    assert_received(sline)
    assert sline["graceful"] is True


def test_usrsctp_client_to_our_server(peer: Path) -> None:
    udp = free_udp_port()
    srv = our_server(udp)
    wait_bound(udp)
    code, line, err = finish(usrsctp_client(peer, free_udp_port(), udp))
    assert code == 0, (line, err)
    assert line["graceful"] is True
    scode, sline, serr = finish(srv)
    assert scode == 0, serr
    assert_received(sline)


def test_impaired_our_client_to_usrsctp_server(peer: Path, tmp_path: Path) -> None:
    udp = free_udp_port()
    srv = usrsctp_server(peer, udp)
    wait_bound(udp)
    relay, relay_port = start_relay(udp)
    summary = tmp_path / "client.json"
    # The relay can lose the SHUTDOWN-COMPLETE; usrsctp then resends SHUTDOWN-ACK when its
    # T2 expires, after an RTO the relay's losses may have backed off to several seconds,
    # and the lingering client answers it (RFC 9260 8.4 (5)): linger past such an RTO.
    code, _, err = finish(
        our_client(free_udp_port(), relay_port, "--linger", "10", "--summary", str(summary))
    )
    assert code == 0, err
    scode, sline, serr = finish(srv, SERVER_TIMEOUT + 10)
    stats = stop_relay(relay)
    assert scode == 0, (sline, serr, stats)
    assert_received(sline)
    assert stats["to_server"]["listed_drops"] == 3
    flow = json.loads(summary.read_text())["flows"]["live"]
    # Our sender repaired losses from the peer's gap reports and by T3.
    assert flow["fast_retransmissions"] >= 1
    assert flow["timeouts"] >= 1
    assert flow["timeout_retransmissions"] >= 1
    # usrsctp saw the relay's duplicates.
    assert sline["dup_data"] >= 1


def relay_losing_shutdown_complete(server_udp: int, run_s: float) -> tuple[int, list[int]]:
    """A UDP relay in a thread that loses the first SHUTDOWN-COMPLETE toward the server;
    returns its port and a list that records the first-chunk type of each packet lost."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.05)
    lost: list[int] = []

    def forward() -> None:
        client = None
        end = time.monotonic() + run_s
        while time.monotonic() < end:
            try:
                data, src = sock.recvfrom(65536)
            except TimeoutError:
                continue
            if src == ("127.0.0.1", server_udp):
                if client is not None:
                    sock.sendto(data, client)
                continue
            client = src
            # Byte 12: the first chunk's type (14: SHUTDOWN-COMPLETE).
            if len(data) > 12 and data[12] == 14 and not lost:
                lost.append(data[12])
                continue
            sock.sendto(data, ("127.0.0.1", server_udp))
        sock.close()

    threading.Thread(target=forward, daemon=True).start()
    return int(sock.getsockname()[1]), lost


def test_lost_shutdown_complete_our_client_to_usrsctp_server(peer: Path) -> None:
    # usrsctp resends its SHUTDOWN-ACK when T2-shutdown expires; our client, lingering
    # with its association gone, answers with a SHUTDOWN-COMPLETE with the T bit under
    # the tag the SHUTDOWN-ACK carried (RFC 9260 8.4 (5)), and usrsctp accepts it
    # (8.5.1 (C)): the server ends gracefully, not by its alarm.
    udp = free_udp_port()
    srv = usrsctp_server(peer, udp)
    wait_bound(udp)
    relay_port, lost = relay_losing_shutdown_complete(udp, TIMEOUT)
    code, _, err = finish(our_client(free_udp_port(), relay_port, "--linger", "4"))
    assert code == 0, err
    scode, sline, serr = finish(srv, SERVER_TIMEOUT + 10)
    assert lost == [14]
    assert scode == 0, (sline, serr)
    assert_received(sline)
    assert sline["graceful"] is True


def test_impaired_usrsctp_client_to_our_server(peer: Path, tmp_path: Path) -> None:
    udp = free_udp_port()
    summary = tmp_path / "server.json"
    srv = our_server(udp, "--summary", str(summary))
    wait_bound(udp)
    relay, relay_port = start_relay(udp)
    code, line, err = finish(usrsctp_client(peer, free_udp_port(), relay_port))
    scode, sline, serr = finish(srv, SERVER_TIMEOUT + 10)
    stats = stop_relay(relay)
    assert code == 0, (line, err, stats)
    assert scode == 0, (sline, serr, stats)
    assert_received(sline)
    # usrsctp's sender repaired from our SACKs' gap reports and, for the last chunk,
    # by T3.
    assert line["fast_rtx"] >= 1
    assert line["t3"] >= 1
    flow = json.loads(summary.read_text())["flows"]["live"]
    assert flow["delivered_bytes"] == MESSAGES * SIZE


def test_server_times_out_with_status_3() -> None:
    p = start([*CLI, "live", "server", "--port", "5001", "--udp-port", str(free_udp_port()),
               "--timeout", "0.3"])  # fmt: skip
    code, line, _ = finish(p)
    assert code == 3
    assert line == {"messages": 0, "bytes": 0, "streams": {}, "errors": 0}


def test_bad_flow_key_is_exit_2() -> None:
    p = start([*CLI, "live", "server", "--port", "5001", "--udp-port", "0",
               "--set", "rto_minn=1s"])  # fmt: skip
    code, _, err = finish(p)
    assert code == 2
    assert "rto_minn" in err and len(err.strip().splitlines()) == 1


def test_ctrl_c_stops_a_waiting_server() -> None:
    p = start([*CLI, "live", "server", "--port", "5001", "--udp-port", str(free_udp_port())])
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    code, line, _ = finish(p, timeout=10)
    assert code == 130
    assert line == {"messages": 0, "bytes": 0, "streams": {}, "errors": 0}


def test_usrsctp_preset_over_the_impaired_path_to_usrsctp(peer: Path, tmp_path: Path) -> None:
    # The `usrsctp` preset (multiple fast retransmit, T3 ending fast recovery, 3-MTU
    # initial cwnd, RTO.Initial 1 s; docs/models/sctp.md) against usrsctp itself, through
    # the relay's losses: every message arrives intact and in order, and the losses were
    # repaired by the preset's own rules (gap reports and T3).
    udp = free_udp_port()
    srv = usrsctp_server(peer, udp)
    wait_bound(udp)
    relay, relay_port = start_relay(udp)
    summary = tmp_path / "client.json"
    code, _, err = finish(
        our_client(
            free_udp_port(), relay_port, "--set", "variant=usrsctp",
            "--linger", "10", "--summary", str(summary),
        )
    )  # fmt: skip
    assert code == 0, err
    scode, sline, serr = finish(srv, SERVER_TIMEOUT + 10)
    stats = stop_relay(relay)
    assert scode == 0, (sline, serr, stats)
    assert_received(sline)
    flow = json.loads(summary.read_text())["flows"]["live"]
    assert flow["retransmissions"] >= 1


# AUTH (RFC 4895) and stream reset (RFC 6525) against usrsctp (issue 37 item 5). The
# peer's --auth asks for SACK to be authenticated; ours asks for SACK and SHUTDOWN, so
# each end receives chunks it must verify: usrsctp's SACKs and SHUTDOWN reach our end
# with an AUTH chunk, ours reach usrsctp with one, and both sides' counters show the
# HMACs were checked (usrsctp's "auth_received" / "auth_failed" are an oracle for the
# HMACs we compute). DATA is never asked for: the driver writes message bytes into DATA
# after the machine built and signed the packet.
OUR_AUTH = ["--auth", "--set", 'auth_chunks=["sack", "shutdown"]']
RESET_AFTER = 100


def finish_peer(p: subprocess.Popen[str]) -> tuple[int, dict[str, Any], dict[str, Any], str]:
    """The usrsctp peer's result line and its second line (AUTH and reset counters)."""
    out, err = p.communicate(timeout=TIMEOUT + 10)
    lines = [json.loads(ln) for ln in out.splitlines() if ln.startswith("{")]
    assert len(lines) == 2, (out, err)
    return p.returncode, lines[0], lines[1], err


def assert_our_auth(flow: dict[str, Any], *, received: bool, sent: bool) -> None:
    assert flow["auth_negotiated"] is True
    assert flow["auth_bad"] == 0 and flow["auth_drops"] == 0
    if received:
        assert flow["auth_chunks_received"] > 0
    if sent:
        assert flow["auth_chunks_sent"] > 0


def test_auth_our_client_to_usrsctp_server(peer: Path, tmp_path: Path) -> None:
    udp = free_udp_port()
    srv = usrsctp_server(peer, udp, "--auth")
    wait_bound(udp)
    summary = tmp_path / "client.json"
    code, line, err = finish(our_client(free_udp_port(), udp, *OUR_AUTH, "--summary", str(summary)))
    assert code == 0, err
    assert_received(line)
    scode, sline, sext, serr = finish_peer(srv)
    assert scode == 0, (sline, serr)
    assert_received(sline)
    # usrsctp's SACKs came authenticated and verified here.
    assert_our_auth(json.loads(summary.read_text())["flows"]["live"], received=True, sent=False)
    # Our SHUTDOWN carries none (usrsctp asked for SACK only; its AUTH counters see ours
    # only where it asked).
    assert sext["auth_failed"] == 0 and sext["auth_missing"] == 0


def test_auth_usrsctp_client_to_our_server(peer: Path, tmp_path: Path) -> None:
    udp = free_udp_port()
    summary = tmp_path / "server.json"
    srv = our_server(udp, *OUR_AUTH, "--summary", str(summary))
    wait_bound(udp)
    code, line, ext, err = finish_peer(usrsctp_client(peer, free_udp_port(), udp, "--auth"))
    assert code == 0, (line, err)
    assert line["graceful"] is True
    # Every SACK of ours carried an AUTH chunk that usrsctp verified.
    assert ext["auth_received"] > 0 and ext["auth_failed"] == 0 and ext["auth_missing"] == 0
    scode, sline, serr = finish(srv)
    assert scode == 0, serr
    assert_received(sline)
    # usrsctp's SHUTDOWN came authenticated and verified here.
    assert_our_auth(json.loads(summary.read_text())["flows"]["live"], received=True, sent=True)


def test_stream_reset_our_client_to_usrsctp_server(peer: Path, tmp_path: Path) -> None:
    udp = free_udp_port()
    srv = usrsctp_server(peer, udp, "--auth", "--reconfig")
    wait_bound(udp)
    summary = tmp_path / "client.json"
    code, _, err = finish(
        our_client(free_udp_port(), udp, *OUR_AUTH, "--reset-after", str(RESET_AFTER),
                   "--summary", str(summary))
    )  # fmt: skip
    assert code == 0, err
    scode, sline, sext, serr = finish_peer(srv)
    assert scode == 0, (sline, serr)
    assert_received(sline)
    # RFC 6525 5.2.2: usrsctp performed the reset of our 4 streams; each one's next
    # message began again at SSN 0.
    assert sext["resets"] == 1
    assert sext["ssn0_after_reset"] == STREAMS and sext["bad_ssn_after_reset"] == 0
    flow = json.loads(summary.read_text())["flows"]["live"]
    assert flow["reconfig_requests"] == 1 and flow["reconfig_refused"] == 0
    assert flow["streams_reset"] == STREAMS
    assert_our_auth(flow, received=True, sent=False)


def test_stream_reset_usrsctp_client_to_our_server(peer: Path, tmp_path: Path) -> None:
    udp = free_udp_port()
    summary = tmp_path / "server.json"
    srv = our_server(udp, *OUR_AUTH, "--reconfig", "--summary", str(summary))
    wait_bound(udp)
    code, line, ext, err = finish_peer(
        usrsctp_client(peer, free_udp_port(), udp, "--auth", "--reset-after", str(RESET_AFTER))
    )
    assert code == 0, (line, err)
    # usrsctp asks for every stream (an empty list, RFC 6525 4.1) but sends a request
    # for a stream only once its queue has drained, so one reset can take several
    # requests (stream 0, then 1 and 2, then 3 in a captured run); each was performed.
    assert ext["resets_performed"] >= 1 and ext["resets_refused"] == 0
    scode, sline, serr = finish(srv)
    assert scode == 0, serr
    assert_received(sline)
    data = json.loads(summary.read_text())
    flow = data["flows"]["live"]
    assert flow["reconfig_responses"] == ext["resets_performed"]
    assert flow["reconfig_refused"] == 0 and flow["streams_reset"] == STREAMS
    # The next message on each of the 4 streams had SSN 0.
    assert data["live"]["ssn_restarts"] == STREAMS
    assert_our_auth(flow, received=True, sent=True)


# Intermittent: some runs stall until the 25-s timeout (2 of 6 idle runs in session 17,
# the first of a loop in session 18). The cause is usrsctp's (0.9.5, sctp_indata.c,
# sctp_process_a_data_chunk): when our Outgoing SSN Reset Request (RFC 6525 5.1.2)
# arrives before the last DATA it covers, usrsctp answers "In progress" and checks the
# deferred reset only at the end of processing a DATA chunk, against its cumulative TSN
# advanced by that one chunk; when the chunk that arrives fills a gap below TSNs
# already held (the relay reordered or lost one of the last ones), the cumulative TSN
# passes the request's Sender's Last Assigned TSN only in the mapping-array slide
# after the packet, and the reset then waits for another DATA chunk. RFC 6525 5.2.2
# says it is performed when the cumulative ack point reaches that TSN. Our client
# holds new messages while its reset is pending, so none comes, and usrsctp answers
# every retransmitted request with the stored "In progress" (docs/live.md).
@pytest.mark.intermittent
def test_auth_and_reset_through_the_relay_to_usrsctp(peer: Path, tmp_path: Path) -> None:
    """AUTH and a mid-transfer reset over the impaired path (RELAY_ARGS): loss repairs
    (fast retransmit and T3) and the reset together, every SACK still verified."""
    udp = free_udp_port()
    srv = usrsctp_server(peer, udp, "--auth", "--reconfig")
    wait_bound(udp)
    relay, relay_port = start_relay(udp)
    summary = tmp_path / "client.json"
    code, _, err = finish(
        our_client(free_udp_port(), relay_port, *OUR_AUTH, "--reset-after", str(RESET_AFTER),
                   "--linger", "10", "--summary", str(summary))
    )  # fmt: skip
    assert code == 0, err
    scode, sline, sext, serr = finish_peer(srv)
    stop_relay(relay)
    assert scode == 0, (sline, serr)
    assert_received(sline)
    assert sext["resets"] == 1
    assert sext["ssn0_after_reset"] == STREAMS and sext["bad_ssn_after_reset"] == 0
    flow = json.loads(summary.read_text())["flows"]["live"]
    assert flow["fast_retransmissions"] > 0 and flow["timeout_retransmissions"] > 0
    assert flow["reconfig_refused"] == 0 and flow["streams_reset"] == STREAMS
    assert_our_auth(flow, received=True, sent=False)


# I-DATA (RFC 8260, issue 36 item 5) against usrsctp, whose --interleave sets fragment
# interleave level 2 and SCTP_INTERLEAVING_SUPPORTED. Whether I-DATA was negotiated is
# usrsctp's own report: the features its SCTP_COMM_UP notification lists (RFC 6458
# sac_info, "idata" on the peer's second line); tshark counts the I-DATA chunks.
IDATA_MESSAGES, IDATA_SIZE = 400, 3000  # 3000 B: three fragments per message at a 1500-B MTU


def chunk_types(pcap: Path, udp: int) -> list[str] | None:
    tshark = shutil.which("tshark")
    if tshark is None:
        return None
    r = subprocess.run(
        [tshark, "-r", str(pcap), "-d", f"udp.port=={udp},sctp", "-o", "sctp.checksum:crc-32c",
         "-T", "fields", "-e", "sctp.chunk_type", "-e", "sctp.checksum.status"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    rows = [ln.split("\t") for ln in r.stdout.splitlines() if ln]
    assert all(status == "1" for _, status in rows), "every CRC32c good"
    return [t for types, _ in rows for t in types.split(",")]


def test_interleave_our_client_to_usrsctp_server(peer: Path, tmp_path: Path) -> None:
    udp = free_udp_port()
    srv = usrsctp_server(peer, udp, "--interleave")
    wait_bound(udp)
    pcap, summary = tmp_path / "client.pcap", tmp_path / "client.json"
    cudp = free_udp_port()
    code, line, err = finish(
        our_client(cudp, udp, "--interleave", "--pcap", str(pcap), "--summary", str(summary))
    )
    assert code == 0, err
    assert "fell back" not in err
    assert_received(line)
    scode, sline, sext, serr = finish_peer(srv)
    assert scode == 0, (sline, serr)
    assert_received(sline)
    assert sext["idata"] == 1
    assert json.loads(summary.read_text())["flows"]["live"]["interleaving_negotiated"] is True
    types = chunk_types(pcap, cudp)
    if types is not None:
        # Every message went as I-DATA (type 64), none as DATA (type 0): one chunk per
        # 1000-byte message, so MESSAGES distinct TSNs (a loaded machine may add
        # retransmissions).
        assert types.count("0") == 0
        r = subprocess.run(
            ["tshark", "-r", str(pcap), "-d", f"udp.port=={cudp},sctp",
             "-Y", "sctp.chunk_type == 64", "-T", "fields", "-e", "sctp.data_tsn_raw"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        tsns = {t for ln in r.stdout.split() for t in ln.split(",")}
        assert len(tsns) == MESSAGES


def test_interleave_falls_back_to_data_with_a_peer_without_it(peer: Path, tmp_path: Path) -> None:
    # usrsctp without --interleave does not list I-DATA (its default): RFC 8260 2.2.1
    # leaves the association on DATA, and our client says so on stderr.
    udp = free_udp_port()
    srv = usrsctp_server(peer, udp)
    wait_bound(udp)
    summary = tmp_path / "client.json"
    code, line, err = finish(
        our_client(free_udp_port(), udp, "--interleave", "--summary", str(summary))
    )
    assert code == 0, err
    assert_received(line)
    assert "fell back to DATA" in err and len(err.strip().splitlines()) == 1
    scode, sline, serr = finish(srv)
    assert scode == 0, (sline, serr)
    assert_received(sline)
    assert json.loads(summary.read_text())["flows"]["live"]["interleaving_negotiated"] is False


def test_interleave_through_the_relay_to_usrsctp(peer: Path, tmp_path: Path) -> None:
    # Our I-DATA sender over the impaired path (RELAY_ARGS): repaired by fast
    # retransmit and T3, every message intact at usrsctp.
    udp = free_udp_port()
    srv = usrsctp_server(peer, udp, "--interleave")
    wait_bound(udp)
    relay, relay_port = start_relay(udp)
    summary = tmp_path / "client.json"
    code, _, err = finish(
        our_client(free_udp_port(), relay_port, "--interleave", "--linger", "10",
                   "--summary", str(summary))
    )  # fmt: skip
    assert code == 0, err
    scode, sline, sext, serr = finish_peer(srv)
    stats = stop_relay(relay)
    assert scode == 0, (sline, serr, stats)
    assert_received(sline)
    assert sext["idata"] == 1
    assert stats["to_server"]["listed_drops"] == 3
    flow = json.loads(summary.read_text())["flows"]["live"]
    assert flow["fast_retransmissions"] >= 1 and flow["timeout_retransmissions"] >= 1


def test_interleave_usrsctp_client_through_the_relay_to_our_server(
    peer: Path, tmp_path: Path
) -> None:
    # usrsctp's I-DATA sender, 400 messages of 3000 bytes (three fragments each, which
    # usrsctp may interleave across the 4 streams) over the impaired path: our server
    # puts every stream's messages together in order. Expected by the contract's
    # round robin: 100 messages per stream, 1.2 MB.
    udp = free_udp_port()
    summary = tmp_path / "server.json"
    srv = our_server(udp, "--interleave", "--summary", str(summary))
    wait_bound(udp)
    relay, relay_port = start_relay(udp)
    p = start(
        [str(peer), "client", str(free_udp_port()), str(relay_port), str(SCTP_PORT),
         str(STREAMS), str(IDATA_MESSAGES), str(IDATA_SIZE), str(TIMEOUT), "--interleave"]
    )  # fmt: skip
    code, line, ext, err = finish_peer(p)
    scode, sline, serr = finish(srv, SERVER_TIMEOUT + 10)
    stats = stop_relay(relay)
    assert code == 0, (line, err, stats)
    assert scode == 0, (sline, serr, stats)
    assert ext["idata"] == 1
    per_stream = IDATA_MESSAGES // STREAMS
    assert sline == {
        "messages": IDATA_MESSAGES,
        "bytes": IDATA_MESSAGES * IDATA_SIZE,
        "streams": {str(s): per_stream for s in range(STREAMS)},
        "errors": 0,
    }
    # Chunk 100 is lost twice (RELAY_ARGS): usrsctp sent it at least twice more,
    # by fast retransmit from our SACKs' gap reports (usrsctp repeats a fast
    # retransmission) or by T3.
    assert line["fast_rtx"] + line["t3"] >= 2
    data = json.loads(summary.read_text())
    assert data["flows"]["live"]["interleaving_negotiated"] is True
    assert data["live"]["malformed_chunks"] == 0


# PR-SCTP (RFC 3758, issue 36 item 5) against usrsctp, with limited retransmissions
# rtx:0 (RFC 7496 sec. 3: a message is never retransmitted), through the relay
# (RELAY_ARGS): every loss abandons its message, and the other end's cumulative TSN
# must pass the abandoned TSNs by FORWARD TSN, or the shutdown would never complete.
# Each message is one chunk, so a TSN is a message.


# Intermittent (session 18: 2 of 5 runs): usrsctp's client stops sending before its last
# chunks and its 25-s alarm ends it. In a captured failing run our server had
# acknowledged TSN 997 of 1000 (a_rwnd 65536) and then received nothing from usrsctp for
# 19 s: no retransmission, no FORWARD TSN, no SHUTDOWN. The relay's list drops the
# datagram that carries chunk 1000 and whatever is bundled with it; usrsctp's T3-rtx
# handler restarts its timer after a FORWARD TSN only if a chunk beyond the new
# Advanced.Peer.Ack.Point is left, so a lost last FORWARD TSN is never resent: the likely
# cause (usrsctp's), not confirmed from the relay's side (docs/live.md).
@pytest.mark.intermittent
def test_pr_usrsctp_abandons_through_the_relay_to_our_server(peer: Path, tmp_path: Path) -> None:
    udp = free_udp_port()
    summary = tmp_path / "server.json"
    srv = our_server(udp, "--pr", "rtx:0", "--summary", str(summary))
    wait_bound(udp)
    relay, relay_port = start_relay(udp)
    code, line, ext, err = finish_peer(
        usrsctp_client(peer, free_udp_port(), relay_port, "--pr", "rtx:0")
    )
    scode, sline, serr = finish(srv, SERVER_TIMEOUT + 10)
    stats = stop_relay(relay)
    assert code == 0, (line, err, stats)
    assert scode == 0, (sline, serr, stats)
    assert ext["pr"] == 1
    # usrsctp's own count of the messages it gave up (SCTP_SEND_FAILED_EVENT): at
    # least chunk 100 and chunk 1000, which the relay's list drops.
    abandoned = ext["abandoned_sent"] + ext["abandoned_unsent"]
    assert abandoned >= 2
    data = json.loads(summary.read_text())
    flow = data["flows"]["live"]
    # Every TSN was either delivered as its message or passed by usrsctp's FORWARD
    # TSN without arriving; only an abandoned message can be missing (one usrsctp gave
    # up on may still have arrived: its SACK was the one lost).
    assert sline["errors"] == 0
    assert sline["messages"] + flow["skipped_tsns"] == MESSAGES
    assert 2 <= flow["skipped_tsns"] <= abandoned
    assert sline["bytes"] == sline["messages"] * SIZE
    assert data["live"]["forward_tsn_received"] >= 1


def test_pr_usrsctp_abandons_a_dropped_chunk_to_our_server(peer: Path, tmp_path: Path) -> None:
    # The relay loses only chunk 100 (message 99, stream 3's k = 24), once, with no
    # random loss: usrsctp abandons it (rtx:0) and its FORWARD TSN, sent while later
    # chunks are outstanding, reaches our server, whose cumulative TSN passes it. So
    # exactly one TSN is skipped and 999 messages arrive, stream 3 one short.
    udp = free_udp_port()
    summary = tmp_path / "server.json"
    srv = our_server(udp, "--pr", "rtx:0", "--summary", str(summary))
    wait_bound(udp)
    relay, relay_port = start_relay(udp, ["--delay", "0.002", "--drop", "100", "--seed", "3"])
    code, line, ext, err = finish_peer(
        usrsctp_client(peer, free_udp_port(), relay_port, "--pr", "rtx:0")
    )
    scode, sline, serr = finish(srv, SERVER_TIMEOUT + 10)
    stats = stop_relay(relay)
    assert code == 0, (line, err, stats)
    assert scode == 0, (sline, serr, stats)
    assert stats["to_server"]["listed_drops"] == 1
    # usrsctp's own count: at least the dropped message (a spurious T3 on a loaded
    # machine may abandon one that still arrives).
    assert ext["abandoned_sent"] + ext["abandoned_unsent"] >= 1
    assert sline == {
        "messages": MESSAGES - 1,
        "bytes": (MESSAGES - 1) * SIZE,
        "streams": {"0": 250, "1": 250, "2": 250, "3": 249},
        "errors": 0,
    }
    data = json.loads(summary.read_text())
    assert data["flows"]["live"]["skipped_tsns"] == 1
    assert data["flows"]["live"]["skipped_messages"] == 1
    assert data["live"]["forward_tsn_received"] >= 1


def test_pr_we_abandon_through_the_relay_to_usrsctp(peer: Path, tmp_path: Path) -> None:
    udp = free_udp_port()
    srv = usrsctp_server(peer, udp, "--pr", "rtx:0")
    wait_bound(udp)
    relay, relay_port = start_relay(udp)
    summary = tmp_path / "client.json"
    code, line, err = finish(
        our_client(free_udp_port(), relay_port, "--pr", "rtx:0", "--linger", "10",
                   "--summary", str(summary))
    )  # fmt: skip
    assert code == 0, err
    scode, sline, sext, serr = finish_peer(srv)
    stats = stop_relay(relay)
    assert scode == 0, (sline, serr, stats)
    flow = json.loads(summary.read_text())["flows"]["live"]
    assert flow["pr_negotiated"] is True and sext["pr"] == 1
    abandoned = flow["abandoned_messages"]
    # Chunks 100 and 1000 are dropped by the relay's list; with rtx:0 neither is
    # retransmitted, and the last one can only be passed by a FORWARD TSN.
    assert abandoned >= 2 and flow["forward_tsn_sent"] >= 1
    assert flow["retransmissions"] == 0
    assert line["messages"] == MESSAGES - abandoned
    # usrsctp's side: no message out of order or corrupt, every message it missed is
    # one we abandoned (it may have received some we gave up on), and message 99
    # (chunk 100, stream 3's k = 24) left a gap in its stream's numbering.
    assert sline["errors"] == 0
    assert MESSAGES - abandoned <= sline["messages"] <= MESSAGES - sext["skipped"]
    assert sext["skipped"] >= 1


def test_bad_pr_value_is_exit_2() -> None:
    p = start([*CLI, "live", "server", "--port", "5001", "--udp-port", "0", "--pr", "prio:1"])
    code, _, err = finish(p)
    assert code == 2
    assert "--pr prio:1" in err and len(err.strip().splitlines()) == 1
