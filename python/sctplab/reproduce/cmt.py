"""Beyond the seeds (issue 35 item 7): concurrent multipath transfer in the style of
Iyengar, Amer and Stewart (IEEE/ACM ToN 2006): goodput of single-path SCTP, CMT with each
retransmission policy and CMT with buffer splitting and NR-SACK over two disjoint paths
(equal delays, unequal delays, loss on one path) against the receive buffer and the
loss, ours beside ns-2.35's Agent/SCTP/CMT on the same set-ups; and seed 004's
multihomed MANET with CMT."""

from __future__ import annotations

from pathlib import Path

from sctplab.reproduce import cmt_manet
from sctplab.reproduce.cmt_claims import discussion
from sctplab.reproduce.cmt_data import Paths, rows
from sctplab.reproduce.cmt_figures import figures, tables
from sctplab.reproduce.cmt_plan import (
    BUFFER_SETUPS,
    LOSS_BUFFER,
    POLICIES,
    START_S,
    WINDOW_START_S,
    Grid,
    grid,
    plan,
)
from sctplab.reproduce.cmt_runs import RUNS_FILE, run_cached
from sctplab.reproduce.common import StudyResult


def reproduce(out: Path, quick: bool = False, *, manet: bool = True) -> StudyResult:
    """The study into `out`; `manet` False leaves seed 004's part out (tests)."""
    from sctplab.ns2 import oracle

    out.mkdir(parents=True, exist_ok=True)
    # Without ns-2.35 (Debian's ns2) ours runs alone and the report says so.
    g = grid(quick, ns2=oracle.ns2_binary() is not None)
    runs, reused = run_cached(out, plan(g), g.end_s)
    p = Paths(g, runs)
    m = cmt_manet.run(out, quick) if manet else None

    res = StudyResult(
        "cmt", "Beyond the seeds: concurrent multipath transfer (Iyengar et al. 2006)"
    )
    res.settings = _settings(g, quick)
    if not g.ns2:
        res.settings.append(
            "ns-2.35 (`ns`, Debian's ns2 package) was not found: its series are left out."
        )
    if m is not None:
        res.settings.append(cmt_manet.settings(m))
    if reused or (m is not None and m.reused):
        res.settings.append(
            f"{reused + (m.reused if m else 0)} runs reused from `cmt/{RUNS_FILE}` and "
            "seed 004's `manet/runs.json` (ours: same core build; ns-2.35's: same cmt.tcl)."
        )
    res.rows = rows(p) + (cmt_manet.rows(m) if m else [])
    res.tables = tables(out, p) + ([cmt_manet.table(out, m)] if m else [])
    res.figures = figures(out, p) + ([cmt_manet.figure(out, m)] if m else [])
    res.discussion = discussion(p) + ([cmt_manet.discussion(m)] if m else [])
    return res


def _settings(g: Grid, quick: bool) -> list[str]:
    q = " (--quick)" if quick else ""
    return [
        "Network `scenarios/cmt.toml` (its ns-2.35 twin `python/sctplab/ns2/cmt.tcl`, as "
        "`sctplab validate ns2`'s CMT rows): two hosts with two interfaces each on two "
        "disjoint paths, each 10 Mb/s and 20 ms to a router, then a 2 Mb/s bottleneck "
        "into the receiver (20 ms), drop-tail queues of 50 packets; an FTP-like bulk flow "
        f"from {START_S:g} s, `ns2` preset, 1468-byte DATA chunks; goodput is in-order user "
        f"data from {WINDOW_START_S:g} s to {g.end_s:g} s per second (ns-2.35's from the "
        "receiver's cumulative TSN in its trace).",
        "Path set-ups: "
        + "; ".join(f"`{s.item}`: {s.title}" for s in BUFFER_SETUPS)
        + " (x: the receive buffer, `receive_buffer` / ns-2.35's `initialRwnd_`, "
        + ", ".join(f"{b // 1024}" for b in g.buffers)
        + f" KiB{q}); `goodput_vs_loss`: equal delays, {LOSS_BUFFER // 1024} KiB, loss "
        "probability on path B's bottleneck "
        + ", ".join(f"{x:g}" for x in g.losses)
        + f"{q} (random, per packet, ours `links.rb_h2.loss.rate`, ns-2.35's ErrorModel).",
        "Series: `sp` (single path: `cmt = false`, new data to h2:eth0), `cmt-<policy>` "
        f"(`cmt = true`, `cmt_rtx_policy` {', '.join(POLICIES)}; SFR, CUC, DAC and CMT-PF "
        "on, ns-2.35's defaults), `cmt-bs-nrsack` (`cmt-cwnd` with `buffer_splitting = "
        '"both"`, `nr_sack = true` and a send buffer of the receive buffer\'s size: '
        "sender splitting needs one), `cmt-bs-nrsack-unordered` (the same with "
        "`unordered = true`); ns-2.35: `ns2-sp` (Agent/SCTP) and `ns2-cmt-<policy>` "
        "(Agent/SCTP/CMT with `eCmtRtxPolicy_`; ns-2.35 has no buffer splitting). "
        f"{g.seeds} seeds per point{q}, the same for both simulators (they draw different "
        "losses); mean and 95 % Student-t half-width over seeds.",
    ]
