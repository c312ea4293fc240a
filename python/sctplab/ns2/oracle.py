"""Running ns-2.35 (Debian's `ns2` package) on the same scenarios as sctplab, and reading
its trace, so the two can be compared. ns-2 is an oracle for validation only: nothing in a
normal run depends on it."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

# sctplab variant -> (ns-2 agent, sink)
TCP_AGENTS = {"reno": "Reno", "newreno": "Newreno", "sack": "Sack1", "fack": "Fack"}

# Seed 002's drop lists (CONTRACTS.md, 1-based packet numbers).
SEED002_DROPS: dict[int, list[int]] = {
    0: [],
    1: [15],
    2: [15, 29],
    3: [15, 27, 29],
    4: [15, 25, 27, 29],
    5: [15, 23, 25, 27, 29],
}


def ns2_binary() -> str | None:
    return shutil.which("ns")


def script(name: str) -> Path:
    """Path of a shipped ns-2 script (package data)."""
    return Path(str(resources.files("sctplab.ns2") / name))


# Every script that sources the shared mobile-node set-up.
_SOURCES = {"wireless_node.tcl"}


def script_text(name: str) -> str:
    """The text ns-2 runs for script `name`: the script and the files it sources."""
    text = script(name).read_text()
    for dep in sorted(_SOURCES):
        if dep != name and dep in text:
            text += script(dep).read_text()
    return text


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


class Ns2Cache:
    """ns-2 results on disk, one JSON file per run, keyed by a hash of everything the
    result depends on: the script and what it sources, the arguments and input files
    (the caller's `parts`), how the trace is read (the caller passes the reader's
    source), and the ns binary (path, size and modification time). A model change in
    sctplab changes none of these, so re-validating re-runs only sctplab. `folder`
    None: no cache (every call computes)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def key(self, kind: str, parts: dict[str, Any]) -> str:
        exe = ns2_binary()
        ident = ""
        if exe is not None:
            real = os.path.realpath(exe)
            st = os.stat(real)
            ident = f"{real}:{st.st_size}:{int(st.st_mtime)}"
        return _digest({"kind": kind, "ns": ident, **parts})

    def _path(self, kind: str, key: str) -> Path | None:
        return None if self.folder is None else self.folder / kind / f"{key}.json"

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        path = self._path(kind, key)
        if path is None or not path.is_file():
            return None
        try:
            value = json.loads(path.read_text())
        except ValueError:
            return None  # a torn or foreign file: compute again
        return value if isinstance(value, dict) else None

    def put(self, kind: str, key: str, value: dict[str, Any]) -> None:
        path = self._path(kind, key)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written whole then renamed, so parallel workers never read half a file.
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(value, sort_keys=True))
        os.replace(tmp, path)


def text_digest(text: str) -> str:
    """A short stand-in for a large input (a movement file) in a cache key."""
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Ns2Packets:
    """Data packets of one flow seen in an ns-2 format trace."""

    # (time_s, 1-based packet number) in the order the sender enqueued them
    sends: list[tuple[float, int]]
    # (time_s, 1-based packet number) dequeued onto the link from node `src` to `dst`
    forwarded: list[tuple[float, int]]


def read_trace(
    path: Path, sender: tuple[int, int], link: tuple[int, int], kind: str, one_based: bool
) -> Ns2Packets:
    """Reads `+`/`-` lines of data packets (`kind` is the trace type, e.g. `tcp`).

    ns-2's one-way TCP numbers packets from 0; sctplab's traces from 1 (`one_based`)."""
    shift = 0 if one_based else 1
    sends: list[tuple[float, int]] = []
    forwarded: list[tuple[float, int]] = []
    with path.open() as f:
        for line in f:
            p = line.split()
            if len(p) < 11 or p[4] != kind:
                continue
            hop = (int(p[2]), int(p[3]))
            if p[0] == "+" and hop == sender:
                sends.append((float(p[1]), int(p[10]) + shift))
            elif p[0] == "-" and hop == link:
                forwarded.append((float(p[1]), int(p[10]) + shift))
    return Ns2Packets(sends, forwarded)


def run_seed002_tcp(
    variant: str,
    drops: list[int],
    queue: int = 8,
    access_delay: str = "0.1ms",
    syn: bool = False,
) -> Ns2Packets:
    """Runs seed 002's TCP case in ns-2.35 (python/sctplab/ns2/tcp_variants.tcl).

    `drops` are 1-based data segment numbers. With `syn` the agent models the SYN
    (`syn_ true`): the SYN is packet 0 and data segment n is packet n, so the drop list
    and the sequence numbers need no shift, and the SYN is left out of the result."""
    exe = ns2_binary()
    if exe is None:
        raise FileNotFoundError("ns (Debian package ns2) is not installed")
    # ErrorModel/List counts packets from 0; without a SYN, segment n is packet n - 1.
    shift = 0 if syn else 1
    ns_drops = " ".join(str(d - shift) for d in drops)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.tr"
        subprocess.run(
            [
                exe,
                str(script("tcp_variants.tcl")),
                TCP_AGENTS[variant],
                ns_drops,
                str(queue),
                access_delay,
                str(out),
                "true" if syn else "false",
            ],
            check=True,
            capture_output=True,
            cwd=tmp,
        )
        pkts = read_trace(out, sender=(0, 1), link=(1, 2), kind="tcp", one_based=syn)
        if syn:
            pkts = Ns2Packets(
                [p for p in pkts.sends if p[1] > 0], [p for p in pkts.forwarded if p[1] > 0]
            )
        return pkts


def read_sctp_trace(path: Path, sender: tuple[int, int], link: tuple[int, int]) -> Ns2Packets:
    """Reads DATA chunks from an ns-2 trace written with `Trace set show_sctphdr_ 1`
    (one line per chunk: ... flags ending in D, fid, src, dst, chunks, TSN, uid, ...).
    ns-2's TSNs start at 1, like sctplab's packet numbers."""
    sends: list[tuple[float, int]] = []
    forwarded: list[tuple[float, int]] = []
    with path.open() as f:
        for line in f:
            p = line.split()
            if len(p) < 12 or p[4] != "sctp" or not p[6].endswith("D"):
                continue
            hop = (int(p[2]), int(p[3]))
            if p[0] == "+" and hop == sender:
                sends.append((float(p[1]), int(p[11])))
            elif p[0] == "-" and hop == link:
                forwarded.append((float(p[1]), int(p[11])))
    return Ns2Packets(sends, forwarded)


def run_seed002_sctp(drops: list[int], queue: int = 8) -> Ns2Packets:
    """Runs seed 002's SCTP case in ns-2.35's Agent/SCTP (python/sctplab/ns2/
    sctp_seed002.tcl). `drops` are 1-based TSNs; ns-2's list counts every packet on
    R1->K1 from 0, and an INIT, a COOKIE-ECHO and a HEARTBEAT precede TSN 1."""
    exe = ns2_binary()
    if exe is None:
        raise FileNotFoundError("ns (Debian package ns2) is not installed")
    ns_drops = " ".join(str(d + 2) for d in drops)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.tr"
        subprocess.run(
            [exe, str(script("sctp_seed002.tcl")), ns_drops, str(queue), str(out)],
            check=True,
            capture_output=True,
            cwd=tmp,
        )
        return read_sctp_trace(out, sender=(0, 1), link=(1, 2))
