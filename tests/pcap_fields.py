"""A run's pcap files as tshark reads them, for the tests that check what a capture
shows (ECN codepoints, TCP flags, SCTP chunks): test_aqm.py, test_wireless_aqm.py."""

from __future__ import annotations

import subprocess
from pathlib import Path


def tshark_fields(tshark: str, pcap: Path, flt: str, *fields: str) -> list[list[str]]:
    """The given fields of the packets matching `flt`, one list per packet. SCTP's
    CRC32c is checked, so `sctp.checksum.status` reads as the check found it."""
    argv = [tshark, "-o", "sctp.checksum:crc-32c", "-r", str(pcap), "-Y", flt, "-T", "fields"]
    for f in fields:
        argv += ["-e", f]
    r = subprocess.run(argv, capture_output=True, text=True, check=True)
    return [line.split("\t") for line in r.stdout.splitlines() if line]


def ecn_counts(tshark: str, pcap: Path, flt: str) -> dict[int, int]:
    """Packets per ECN codepoint among those matching the display filter `flt`."""
    counts: dict[int, int] = {}
    for (field,) in tshark_fields(tshark, pcap, flt, "ip.dsfield.ecn"):
        codepoint = int(field, 0)
        counts[codepoint] = counts.get(codepoint, 0) + 1
    return counts
