"""A mobile endpoint's handover between two access networks, three ways.

scenarios/example-asconf.toml's mobile node m leaves network A at 20 s while it is in
reach of network B. The same network and move run with:

- ``asconf``: the scenario as written: at the move m sends new data by B (a local
  ``set_primary``) and tells the server by ASCONF (RFC 5061) to add m:eth1, make it its
  primary and delete m:eth0;
- ``failover``: plain multihoming (RFC 9260 8): no ASCONF, no ``bind`` (both ends list
  both addresses), new data stays on the server's network-A address until its error
  counter passes Path.Max.Retrans;
- ``tcp``: one TCP SACK connection from m:eth0 to s:eth0 with the same 64 KiB window.
  TCP names its connection by the two addresses, so it cannot move; this simulator's
  TCP does not reconnect either: it keeps retransmitting on its RTO into network A.

For each: the interruption (the longest time, from 15 s to the end, during which the
sender's cumulative ack did not advance: in-order delivery stood still), and the bytes
delivered in the 10 s before the move, the 10 s after it, and from the move to the end
of the run, 120 s (each its own run with that measurement window).

Run it:  python scripts/handover.py
"""

from __future__ import annotations

import csv
import json
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from sctplab import _core

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "example-asconf.toml"
MOVE_S = 20.0
# Long enough for plain failover to finish: 63 s of T3-rtx back-off (1 + 2 + ... + 32 s)
# after the move before the destination is marked inactive.
END_S = 120.0


def variant(kind: str) -> dict[str, Any]:
    """The scenario as a dict, changed for `kind`."""
    doc: dict[str, Any] = tomllib.loads(SCENARIO.read_text())
    doc["duration"] = f"{END_S:g}s"
    flow = doc["flows"][0]
    if kind == "asconf":
        return doc
    doc["faults"] = [f for f in doc["faults"] if f.get("link") is not None]
    if kind == "failover":
        for key in ("bind", "auth"):
            flow.pop(key)
        return doc
    doc["flows"] = [
        {
            "name": flow["name"],
            "type": "tcp",
            "variant": "sack",
            "from": "m",
            "to": "s",
            "segment_size": "1452B",
            "window": 45,
            "handshake": True,
            "start": flow["start"],
        }
    ]
    return doc


def run(doc: dict[str, Any], start: float | None, end: float | None) -> tuple[dict[str, Any], Path]:
    if start is not None or end is not None:
        doc = dict(doc)
        doc["measure"] = {k: f"{v}s" for k, v in (("start", start), ("end", end)) if v is not None}
    out = Path(tempfile.mkdtemp(prefix="sctplab-handover-"))
    raw = _core.run(
        json.dumps(doc),
        is_json=True,
        source=str(SCENARIO),
        default_name="handover",
        out_dir=str(out),
        traces=["acks"],
    )
    summary: dict[str, Any] = json.loads(raw["summary_json"])
    return summary["flows"]["mobile"], out


def interruption(acks: Path, end_s: float) -> float:
    """Longest time from 15 s to `end_s` without the cumulative ack advancing."""
    last_t, last_ack, longest = 15.0, -1, 0.0
    with acks.open() as f:
        for row in csv.DictReader(f):
            t, ack = float(row["time_s"]), int(row["cum_ack"])
            if t < 15.0:
                last_ack = max(last_ack, ack)
                continue
            if ack > last_ack:
                longest = max(longest, t - last_t)
                last_t, last_ack = t, ack
    return max(longest, end_s - last_t)


def main() -> int:
    end_s = END_S
    print(f"variant   interruption_s  bytes_10-20s  bytes_20-30s  bytes_20-{END_S:g}s")
    for kind in ("asconf", "failover", "tcp"):
        doc = variant(kind)
        _, out = run(doc, None, None)
        gap = interruption(out / "acks.csv", end_s)
        before = run(doc, 10.0, MOVE_S)[0]["delivered_bytes"]
        after10 = run(doc, MOVE_S, 30.0)[0]["delivered_bytes"]
        after = run(doc, MOVE_S, None)[0]["delivered_bytes"]
        print(f"{kind:9} {gap:14.3f} {before:13d} {after10:13d} {after:13d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
