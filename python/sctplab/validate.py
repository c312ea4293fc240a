"""`sctplab validate ns2`: the shipped ns-2.35 scripts and sctplab on the same scenarios
and seeds, side by side (CONTRACTS.md "Validation and benchmarks").

Three kinds of point-to-point rows:
- deterministic (seed 002's drop lists): the sender's packet order and the packets R1
  forwards in the 5 s after the first DATA packet must be equal; counts may differ by
  one packet at the window's edge (docs/validation.md explains why);
- statistical (random loss on R1's link, several seeds): mean packets forwarded over
  the run, ns-2 and ours, with 95 % Student-t intervals; the difference must lie within
  the sum of both half-widths, or within 2 % of ns-2's mean;
- snoop (seed 003's topology, ns2/snoop_lan.tcl): mean transfer time of a 1 MB file by
  TCP Reno with and without a snoop agent at the base station, random loss of data on
  the wireless hop, 20 seeds in both modes (the runs are short), same tolerance. Our
  agent as the reproduction runs it (`dupack_thresh = 1`; ns-2.35's snoop lets the first
  duplicate ack of a loss through, docs/validation.md compares that setting too).
  ns-2's LL/LLSnoop works only on a LAN interface, so there the wireless hop is a
  two-node LAN whose base `Mac` neither contends nor collides (each side sends on its
  own, as on our full-duplex link), timed to equal our link: both take 4.328 s for the
  lossless transfer (ns-2 32 us less, its first segment is 40 bytes short).
Wireless rows (802.11 chains, seed 004's MANET replayed in both at each maximum speed,
and the saturated cell of sctplab.validate_cell) come from sctplab.validate_wireless;
their ns-2 results are cached (ns2_oracle.Ns2Cache).
"""

from __future__ import annotations

import csv
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sctplab import ns2_oracle, validate_multihoming
from sctplab.reproduce.common import load_scenario, markdown_table, scenarios_dir
from sctplab.runner import run
from sctplab.stats import mean_ci


def columns(oracle: str) -> list[str]:
    """validation.csv's header; `oracle` (ns2, ns3) names the oracle's mean and CI."""
    return [
        "metric",
        "scenario",
        f"{oracle}_mean",
        f"{oracle}_ci95",
        "ours",
        "ours_ci95",
        "difference",
        "tolerance",
        "pass",
    ]


COLUMNS = columns("ns2")
TCP_AGENTS = ns2_oracle.TCP_AGENTS
SCTP_NS2_SETS = {"flows.sctp1.variant": "ns2", "flows.sctp1.initial_cwnd": "4064B"}
SNOOP_MB = 1
SNOOP_LOSS = (0.02, 0.005)
# A 1 MB transfer takes well under a second of CPU in either simulator, so the snoop rows
# afford the full run's seed count even with --quick.
SNOOP_SEEDS = 20
# ns2/snoop_lan.tcl's trace: node 3 is the LAN; the application starts at 1 s.
_LAN, _MH, _NS2_START = "3", "2", 1.0


@dataclass
class Check:
    metric: str
    scenario: str
    ns2_mean: float
    ns2_ci95: float | None
    ours: float
    ours_ci95: float | None
    tolerance: float

    @property
    def difference(self) -> float:
        return self.ours - self.ns2_mean

    @property
    def passed(self) -> bool:
        return abs(self.difference) <= self.tolerance + 1e-9

    def cells(self) -> list[str]:
        def f(v: float | None) -> str:
            return "" if v is None or math.isnan(v) else f"{v:.6g}"

        return [
            self.metric,
            self.scenario,
            f(self.ns2_mean),
            f(self.ns2_ci95),
            f(self.ours),
            f(self.ours_ci95),
            f(self.difference),
            f(self.tolerance),
            "yes" if self.passed else "no",
        ]


def _window(pkts: list[tuple[float, int]]) -> list[int]:
    data = [(t, n) for t, n in pkts if n > 0]
    return [n for t, n in data if 1.0 <= t < 6.0]


def _order_checks(
    name: str, mine: ns2_oracle.Ns2Packets, theirs: ns2_oracle.Ns2Packets
) -> list[Check]:
    out = []
    for what, a, b in (
        ("send_order", _window(mine.sends), _window(theirs.sends)),
        ("forward_order", _window(mine.forwarded), _window(theirs.forwarded)),
    ):
        common = min(len(a), len(b))
        first_diff = next((i for i in range(common) if a[i] != b[i]), common)
        # Packets in the same order before the first difference, as a share of ns-2's.
        out.append(
            Check(f"{what}_agreement", name, 1.0, None, first_diff / max(len(b), 1), None, 0.01)
        )
        out.append(Check(f"{what}_count_5s", name, len(b), None, len(a), None, 1.0))
    return out


def deterministic(tmp: Path) -> list[Check]:
    checks: list[Check] = []
    golden = scenarios_dir() / "golden"
    for variant in TCP_AGENTS:
        for d, drops in ns2_oracle.SEED002_DROPS.items():
            theirs = ns2_oracle.run_seed002_tcp(variant, drops)
            folder = tmp / f"tcp-{variant}-d{d}"
            run(golden / f"seed002-tcp-{variant}-d{d}.toml", out=folder, trace=["ns2"])
            mine = ns2_oracle.read_trace(folder / "trace.tr", (0, 1), (1, 2), "tcp", True)
            checks += _order_checks(f"seed002-tcp-{variant}-d{d}", mine, theirs)
    for d, drops in ns2_oracle.SEED002_DROPS.items():
        theirs = ns2_oracle.run_seed002_sctp(drops)
        folder = tmp / f"sctp-ns2-d{d}"
        run(
            golden / f"seed002-sctp-newreno-d{d}.toml", set=SCTP_NS2_SETS, out=folder, trace=["ns2"]
        )
        mine = ns2_oracle.read_trace(folder / "trace.tr", (0, 1), (1, 2), "sctp", True)
        checks += _order_checks(f"seed002-sctp-ns2-d{d}", mine, theirs)
    return checks


def _ns2_random(agent: str, rate: float, seed: int, duration: float, tmp: Path) -> int:
    exe = ns2_oracle.ns2_binary()
    assert exe is not None
    out = tmp / f"ns-{agent}-{seed}.tr"
    subprocess.run(
        [
            exe,
            str(ns2_oracle.script("random_loss.tcl")),
            agent,
            str(rate),
            str(seed),
            str(duration),
            "8",
            str(out),
        ],
        check=True,
        capture_output=True,
        cwd=tmp,
    )
    kind = "sctp" if agent == "SCTP" else "tcp"
    if kind == "sctp":
        pk = ns2_oracle.read_sctp_trace(out, (0, 1), (1, 2))
    else:
        pk = ns2_oracle.read_trace(out, (0, 1), (1, 2), "tcp", one_based=False)
    out.unlink()
    return len(pk.forwarded)


def statistical(tmp: Path, seeds: int, duration: float, rate: float = 0.01) -> list[Check]:
    checks: list[Check] = []
    cases: list[tuple[str, str, str, dict[str, str]]] = [
        (v, "tcp", f"seed002-tcp-{v}-d0.toml", {}) for v in TCP_AGENTS
    ]
    cases.append(("ns2", "sctp", "seed002-sctp-newreno-d0.toml", SCTP_NS2_SETS))
    for variant, proto, file, extra in cases:
        agent = "SCTP" if proto == "sctp" else TCP_AGENTS[variant]
        theirs = [float(_ns2_random(agent, rate, s, duration, tmp)) for s in range(1, seeds + 1)]
        base = load_scenario(f"golden/{file}")
        mine = []
        for s in range(1, seeds + 1):
            sets = {**extra, "duration": f"{duration}s", "links.r1.loss.rate": rate}
            summ = run(base, seed=s, set=sets).summary
            ctrl = summ["flows"][base["flows"][0]["name"]].get("control_packets", 0)
            # R1 -> K1 carries the flow's data and, for SCTP, the client's INIT,
            # COOKIE-ECHO and HEARTBEAT (ns-2 counts DATA lines only).
            mine.append(float(summ["links"]["r1->k1"]["tx_packets"] - (3 if ctrl else 0)))
        tm, tci, _ = mean_ci(theirs)
        mm, mci, _ = mean_ci(mine)
        tol = max((0 if math.isnan(tci) else tci) + (0 if math.isnan(mci) else mci), 0.02 * tm)
        checks.append(
            Check(
                f"packets_forwarded_loss{rate:g}",
                f"{proto}-{variant}, {duration:g} s, {seeds} seeds",
                tm,
                tci,
                mm,
                mci,
                tol,
            )
        )
    return checks


def _ns2_snoop_time(snoop: bool, rate: float, seed: int, tmp: Path) -> float:
    """ns-2's transfer time: from the application's start until the mobile host's LL has
    passed up every segment of the file in order."""
    exe = ns2_oracle.ns2_binary()
    assert exe is not None
    out = tmp / f"ns-snoop{int(snoop)}-{rate:g}-{seed}.tr"
    nbytes = SNOOP_MB * 1_000_000
    subprocess.run(
        [
            exe,
            str(ns2_oracle.script("snoop_lan.tcl")),
            str(int(snoop)),
            str(rate),
            str(seed),
            str(nbytes),
            str(out),
        ],
        check=True,
        capture_output=True,
        cwd=tmp,
    )
    segments = nbytes // 1000
    received: set[int] = set()
    in_order = 0
    done = math.nan
    with out.open() as f:
        for line in f:
            x = line.split()
            if x[0] != "r" or x[2] != _LAN or x[3] != _MH or x[4] != "tcp":
                continue
            received.add(int(x[10]))
            while in_order in received:
                in_order += 1
            if in_order >= segments:
                done = float(x[1]) - _NS2_START
                break
    out.unlink()
    return done


def snoop(tmp: Path, seeds: int) -> list[Check]:
    """TCP and TCP-snoop on seed 003's topology: transfer time of a file, ns-2 and ours."""
    from sctplab.reproduce import snoop as study

    checks: list[Check] = []
    for rate in SNOOP_LOSS:
        for protocol in ("tcp", "tcp-snoop"):
            on = protocol.endswith("snoop")
            theirs = [_ns2_snoop_time(on, rate, s, tmp) for s in range(1, seeds + 1)]
            scenario = study.case(protocol, SNOOP_MB, rate)
            mine = []
            for s in range(1, seeds + 1):
                t = run(scenario, seed=s).summary["flows"]["flow"]["completion_time_s"]
                mine.append(math.nan if t is None else float(t))
            tm, tci, _ = mean_ci(theirs)
            mm, mci, _ = mean_ci(mine)
            tol = max((0 if math.isnan(tci) else tci) + (0 if math.isnan(mci) else mci), 0.02 * tm)
            checks.append(
                Check(
                    f"{protocol.replace('-', '_')}_transfer_time_s",
                    f"snoop {SNOOP_MB} MB, wireless loss {rate:g}, {seeds} seeds",
                    tm,
                    tci,
                    mm,
                    mci,
                    tol,
                )
            )
    return checks


@dataclass
class Validation:
    """What `validate ns2` wrote and how many of its checks pass."""

    report: Path
    passed: int
    total: int

    @property
    def ok(self) -> bool:
        return self.passed == self.total

    @property
    def last_line(self) -> str:
        return f"{self.passed}/{self.total} checks pass"


def say(line: str, oracle: str) -> None:
    """One progress line on stderr, `sctplab validate ORACLE: LINE`."""
    print(f"sctplab validate {oracle}: {line}", file=sys.stderr, flush=True)


def run_groups(groups: list[tuple[str, Callable[[], list[Check]]]], oracle: str) -> list[Check]:
    """Runs each group of rows in turn, one progress line on stderr as it starts and
    ends (`sctplab validate ORACLE: [i/n] label: ...`)."""
    checks: list[Check] = []
    t_start = time.monotonic()
    for i, (label, rows) in enumerate(groups, 1):
        say(f"[{i}/{len(groups)}] {label}: started", oracle)
        t0 = time.monotonic()
        got = rows()
        checks += got
        passed = sum(c.passed for c in got)
        say(
            f"[{i}/{len(groups)}] {label}: {passed}/{len(got)} pass, "
            f"{time.monotonic() - t0:.0f} s ({time.monotonic() - t_start:.0f} s in all)",
            oracle,
        )
    return checks


def write_csv(path: Path, header: list[str], checks: list[Check]) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(c.cells() for c in checks)


def _smoke(check: Check, quick: bool) -> bool:
    """--quick's MANET rows: three movements make paired intervals so wide that a row
    passes gaps of 10-20 %; they show the comparison runs, not that the two agree."""
    return quick and check.metric.startswith("manet_")


def validate_ns2(
    out: Path, quick: bool = False, ns2_cache: Path | None = None, jobs: int | None = None
) -> Validation:
    """Writes OUT/validation.md and OUT/validation.csv; returns the report and the pass
    count. Progress goes to stderr, one line as each group of rows starts and ends (and
    the wireless pool's heartbeat).

    The wireless rows' ns-2 results are kept in `ns2_cache` (default OUT/ns2-cache),
    keyed by everything they depend on, so a second run re-runs only sctplab; they run
    on `jobs` processes (default one per core)."""
    if ns2_oracle.ns2_binary() is None:
        raise FileNotFoundError("ns-2 is not installed (Debian package ns2: apt-get install ns2)")
    out.mkdir(parents=True, exist_ok=True)
    cache = out / "ns2-cache" if ns2_cache is None else ns2_cache
    seeds, duration = (5, 60.0) if quick else (20, 300.0)
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        # Imported here: sctplab.validate_wireless builds its rows with Check.
        from sctplab import validate_wireless

        groups: list[tuple[str, Callable[[], list[Check]]]] = [
            ("seed 002 send and forward order (30 cases)", lambda: deterministic(tmp)),
            (
                f"random loss, 5 protocols x {seeds} seeds of {duration:g} s",
                lambda: statistical(tmp, seeds, duration),
            ),
            (f"snoop transfer times, {SNOOP_SEEDS} seeds", lambda: snoop(tmp, SNOOP_SEEDS)),
            (
                "multihomed SCTP failover",
                lambda: validate_multihoming.checks(
                    tmp, lambda m, s, n, o, t: Check(m, s, n, None, o, None, t)
                ),
            ),
            (
                "wireless: chains, MANET replay, saturated cell (ns-2 results cached)",
                lambda: validate_wireless.wireless(tmp, quick, cache, jobs),
            ),
        ]
        checks = run_groups(groups, "ns2")
    write_csv(out / "validation.csv", COLUMNS, checks)
    failed = [c for c in checks if not c.passed]
    smoke = [c for c in checks if _smoke(c, quick)]
    md = [
        "# sctplab against ns-2.35",
        "",
        f"{len(checks) - len(failed)} of {len(checks)} checks pass"
        + (" (--quick: fewer seeds, shorter runs)." if quick else "."),
        "",
    ]
    if smoke:
        md += [
            f"The {len(smoke)} `manet_*` rows are smoke tests here (marked in the scenario "
            "column): --quick replays only 3 movements, so their paired intervals pass "
            "differences of 10-20 % and more; they show that the replay runs in both "
            "simulators, not that the two agree. The full run's 12 movements at four speeds "
            "are the comparison (docs/validation.md).",
            "",
        ]
    md += [
        "Deterministic rows: seed 002's drop lists; `*_agreement` is the share of ns-2's "
        "packets (in the 5 s after the first DATA) that we send or forward in the same "
        "order before the first difference, `*_count_5s` the packet counts (tolerance one "
        "packet at the window's edge). Statistical rows: 1 % random loss of data on R1's "
        "link, mean over seeds with 95 % Student-t half-widths; tolerance = the sum of the "
        "half-widths, at least 2 % of ns-2's mean. Snoop rows: seed 003's topology "
        "(scenarios/snoop.toml), TCP Reno with window 20 sending a 1 MB file with and without "
        "a snoop agent at the base station, random loss of data on the wireless hop; "
        "transfer time from the application's start to the last byte in order at the "
        "mobile host, 20 seeds, same statistics and tolerance. ns-2 runs "
        "LL/LLSnoop on a two-node "
        "LAN with the base Mac (no contention, no collisions; python/sctplab/ns2/"
        "snoop_lan.tcl). Wireless rows (802.11 at 2 Mb/s, two-ray ground, AODV): TCP-SACK "
        "throughput over static chains of 1 to 7 hops, mean over seeds, same tolerance; "
        "`manet_*` rows replay seed 004's scenario at each maximum speed (our random-"
        "waypoint movement exported as a setdest file, our CBR pairs) in both, paired over "
        "movements, tolerance = the half-width of the paired differences' interval at "
        "1 - 0.05 / (number of MANET rows) confidence (Bonferroni), at least 2 % of "
        "ns-2's mean; `cell_*` rows: throughput of a saturated 802.11 cell of n stations "
        "(DumbAgent in ns-2, static routes in ours), same tolerance as the chains. "
        "docs/validation.md explains the known differences.",
        "",
        markdown_table(COLUMNS, [_md_cells(c, quick) for c in checks]),
        "",
    ]
    report = out / "validation.md"
    report.write_text("\n".join(md))
    return Validation(report, len(checks) - len(failed), len(checks))


def _md_cells(check: Check, quick: bool) -> list[str]:
    cells = check.cells()
    if _smoke(check, quick):
        cells[1] += " (smoke test: --quick)"
    return cells
