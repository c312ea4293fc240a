"""Seed 004's transport comparison under each routing protocol: `scenarios/manet-tcp.toml`
and `manet-sctp.toml` (case `sh-mobile`, 10 m/s, 16 kb/s CBR) with `[wireless] routing`
set, TCP and SCTP paired seed by seed (same movement and CBR pairs)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from sctplab.reproduce.manet_runs import Todo, run_cached
from sctplab.reproduce.manet_study import (
    BASE_RATE,
    FULL_END_S,
    LOAD_SPEED,
    QUICK_END_S,
    START_S,
    TRANSPORTS,
)
from sctplab.reproduce.manet_study import Key as ManetKey
from sctplab.reproduce.manet_study import sets_for as manet_sets
from sctplab.reproduce.routing_study import PROTOCOLS

METRICS = ["goodput_bps", "connect_time_s"]
FULL_SEEDS = 12  # as seed 004
QUICK_SEEDS = 3

Results = dict[tuple[str, str, int], dict[str, float]]  # (protocol, transport, seed)


def run(out: Path, quick: bool) -> tuple[Results, int, float, int]:
    """(metrics per run, seeds, end of the window in s, runs reused from the cache)."""
    seeds = QUICK_SEEDS if quick else FULL_SEEDS
    end_s = QUICK_END_S if quick else FULL_END_S
    todo: list[Todo] = []
    for seed in range(1, seeds + 1):
        for p in PROTOCOLS:
            for t in TRANSPORTS:
                k = ManetKey(t, "sh-mobile", LOAD_SPEED, BASE_RATE, seed)
                todo.append(
                    ((p, t, seed), t, {**manet_sets(k, end_s), "wireless.routing": p}, seed)
                )
    results, reused = run_cached(out, todo)
    return {tag: _metrics(r) for tag, r in results.items()}, seeds, end_s, reused


def _metrics(r: dict[str, Any]) -> dict[str, float]:
    f = r["flow"]
    ct = f.get("connect_time_s")
    return {
        "goodput_bps": float(f["goodput_bps"]),
        "connect_time_s": math.nan if ct is None else float(ct),
    }


def per_seed(res: Results, protocol: str, transport: str, metric: str, seeds: int) -> list[float]:
    return [res[(protocol, transport, s)][metric] for s in range(1, seeds + 1)]


def settings(seeds: int, end_s: float) -> str:
    return (
        "Transports under each protocol: seed 004's scenarios (`scenarios/manet-tcp.toml`, "
        "`manet-sctp.toml`: 46 nodes in 1000 m x 300 m, random waypoint at up to "
        f"{LOAD_SPEED} m/s with pause 0, 10 CBR flows of {BASE_RATE} kb/s, one TCP-SACK or "
        "SCTP flow n0 -> n1, no multihoming) with `[wireless] routing` set to each protocol; "
        f"{seeds} movement scenarios, the transport from {START_S:g} s to {end_s:g} s"
        + (" (--quick; the seed: 12 scenarios to 920 s)." if end_s != FULL_END_S else ".")
    )
