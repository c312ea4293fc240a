"""Reading a run folder's animation trace (`anim.jsonl`, written by `--trace anim`; the
format is in docs/animate.md) into the columns the page plays from."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sctplab._core import UsageError

FILE_NAME = "anim.jsonl"
FORMAT = "sctplab-anim"
VERSION = 1

# The page's packet kinds, in the order of its colour table.
KINDS = ("d", "a", "c", "r", "p")


@dataclass
class AnimData:
    """One trace, as columns. Times are integer microseconds."""

    header: dict[str, Any]
    # Per leg: node, start, x0, y0, x1, y1, speed (m/s).
    legs: list[list[float]] = field(default_factory=list)
    # Per hop written one by one: start, duration, from, to (-1: broadcast), flow
    # (-1: none), kind (index into KINDS).
    hop_t: list[int] = field(default_factory=list)
    hop_dur: list[int] = field(default_factory=list)
    hop_from: list[int] = field(default_factory=list)
    hop_to: list[int] = field(default_factory=list)
    hop_flow: list[int] = field(default_factory=list)
    hop_kind: list[int] = field(default_factory=list)
    # Hops past the budget, per bin: bin start, from, to, count.
    hops_counted: list[list[int]] = field(default_factory=list)
    # Drops: time, node, flow, reason (index into `reasons`); past the budget: bin
    # start, node, reason, count.
    drops: list[list[int]] = field(default_factory=list)
    drops_counted: list[list[int]] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    # Route changes: time, node, destination node, new next-hop node; past the budget:
    # bin start, count.
    routes: list[list[int]] = field(default_factory=list)
    routes_counted: list[list[int]] = field(default_factory=list)
    # Routing-table changes: time, node, destination node, next-hop node, hops (both -1:
    # the route is gone); past the budget: bin start, node, count.
    tables: list[list[int]] = field(default_factory=list)
    tables_counted: list[list[int]] = field(default_factory=list)
    # `[[faults]]` on links: time, link (the header's order), 1 up or 0 down.
    link_events: list[list[int]] = field(default_factory=list)
    # Satellites: per check instant, time, first satellite node and its flat list of
    # latitude, longitude pairs (degrees); ground station attachments: time, station
    # node, satellite node (-1: none).
    sat_positions: list[tuple[int, int, list[float]]] = field(default_factory=list)
    attachments: list[list[int]] = field(default_factory=list)
    # Per flow: sample times, cwnd (None where the flow has none), throughput (b/s).
    sample_t: list[list[int]] = field(default_factory=list)
    sample_cwnd: list[list[float | None]] = field(default_factory=list)
    sample_rate: list[list[float]] = field(default_factory=list)
    end_us: int = 0

    def reason(self, why: str) -> int:
        try:
            return self.reasons.index(why)
        except ValueError:
            self.reasons.append(why)
            return len(self.reasons) - 1


def _bad(path: Path, line: int, what: str) -> UsageError:
    return UsageError(f"{path}: line {line}: {what}")


def read(run_dir: Path) -> AnimData:
    """The trace of RUN_DIR; a folder without one, a file of another format or version,
    or a malformed line is a `UsageError` with one line saying which."""
    path = run_dir / FILE_NAME
    if not run_dir.is_dir():
        raise UsageError(f"{run_dir}: not a run folder")
    if not path.is_file():
        raise UsageError(
            f"{run_dir}: no {FILE_NAME} (run the scenario with --trace anim to animate it)"
        )
    try:
        with path.open(encoding="utf-8") as f:
            return _parse(path, f)
    except OSError as e:
        raise UsageError(f"{path}: cannot read it: {e.strerror or type(e).__name__}") from e
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text (not an animation trace)") from None


def _parse(path: Path, lines: Any) -> AnimData:
    first = lines.readline()
    try:
        header = json.loads(first)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise _bad(path, 1, f"not an animation trace (no header with format {FORMAT!r})")
    if header.get("version") != VERSION:
        raise _bad(
            path,
            1,
            f"animation trace version {header.get('version')!r}; this sctplab reads "
            f"version {VERSION} (re-run with --trace anim)",
        )
    for key in ("nodes", "links", "flows"):
        if not isinstance(header.get(key), list):
            raise _bad(path, 1, f"header has no {key!r} list")
    data = AnimData(header=header)
    flows = len(header["flows"])
    data.sample_t = [[] for _ in range(flows)]
    data.sample_cwnd = [[] for _ in range(flows)]
    data.sample_rate = [[] for _ in range(flows)]
    for n, text in enumerate(lines, start=2):
        try:
            _record(data, json.loads(text))
        except (ValueError, TypeError, IndexError, KeyError):
            raise _bad(path, n, f"malformed record {text.strip()[:60]!r}") from None
    return data


def _record(d: AnimData, r: list[Any]) -> None:
    tag = r[0]
    if tag == "hop":
        d.hop_t.append(int(r[1]))
        d.hop_dur.append(int(r[2]))
        d.hop_from.append(int(r[3]))
        d.hop_to.append(int(r[4]))
        d.hop_flow.append(int(r[5]))
        d.hop_kind.append(KINDS.index(r[6]))
    elif tag == "leg":
        d.legs.append([int(r[1]), int(r[2]), *(float(v) for v in r[3:8])])
    elif tag == "hops":
        d.hops_counted.append([int(v) for v in r[1:5]])
    elif tag == "drop":
        d.drops.append([int(r[1]), int(r[2]), int(r[3]), d.reason(str(r[4]))])
    elif tag == "drops":
        d.drops_counted.append([int(r[1]), int(r[2]), d.reason(str(r[3])), int(r[4])])
    elif tag == "s":
        i = int(r[2])
        if i < 0:
            raise IndexError(i)
        d.sample_t[i].append(int(r[1]))
        d.sample_cwnd[i].append(None if r[3] is None else float(r[3]))
        d.sample_rate[i].append(float(r[4]))
    elif tag == "route":
        d.routes.append([int(v) for v in r[1:5]])
    elif tag == "routes":
        d.routes_counted.append([int(r[1]), int(r[2])])
    elif tag == "table":
        d.tables.append([int(r[i]) for i in range(1, 6)])
    elif tag == "tables":
        d.tables_counted.append([int(r[i]) for i in range(1, 4)])
    elif tag == "link":
        if r[3] not in ("up", "down"):
            raise ValueError(r[3])
        d.link_events.append([int(r[1]), int(r[2]), int(r[3] == "up")])
    elif tag == "satpos":
        d.sat_positions.append((int(r[1]), int(r[2]), [float(v) for v in r[3]]))
    elif tag == "attach":
        d.attachments.append([int(v) for v in r[1:4]])
    elif tag == "end":
        d.end_us = int(r[1])
    else:
        raise ValueError(tag)
