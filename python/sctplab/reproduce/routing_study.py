"""The routing study's plan (Broch et al., MobiCom 1998): its points (protocol, CBR
sources, pause time, movement scenario), the overrides each runs with, one run in a pool
worker, and the run cache (`routing/runs_broch.json`, per core build, so an interrupted
study resumes)."""

from __future__ import annotations

import json
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sctplab.reproduce.pool import Point
from sctplab.reproduce.run_cache import RunCache
from sctplab.scenario_paths import load_scenario

# Every routing protocol the study compares, in the order of the tables and figures;
# one list so a protocol that lands (DSR) is one entry here.
PROTOCOLS = ["aodv", "dsdv", "dsr"]
PAUSES = [0, 30, 60, 120, 300, 600, 900]  # s
QUICK_PAUSES = [0, 900]
SOURCES = [10, 20, 30]
FULL_SEEDS = 10  # the paper: 10 movement patterns per pause time
QUICK_SEEDS = 3
# Path optimality needs the run's ns-2 trace (about twice the CPU of a run, and 0.2-0.5 GB
# of text to read), so it is measured on the 30-source runs of the first PATH_SEEDS
# scenarios.
PATH_SOURCES = 30
FULL_PATH_SEEDS = 5
DURATION_S = 900.0
START_MAX_S = 180.0  # sources start at uniform times in [0, 180 s]
PACKETS_PER_S = 4.0


def series(protocol: str, sources: int) -> str:
    return f"{protocol}-{sources}src"


@dataclass(frozen=True)
class Key:
    protocol: str
    sources: int
    pause: int
    seed: int
    traced: bool = False


def sets_for(key: Key, duration_s: float = DURATION_S) -> dict[str, Any]:
    """The point's overrides; a shorter run (tests) scales the sources' start window
    with it."""
    sets: dict[str, Any] = {
        "wireless.routing": key.protocol,
        "mobility.pause": f"{key.pause}s",
        "flows.cbr.count": key.sources,
    }
    if duration_s != DURATION_S:
        sets["duration"] = f"{duration_s:g}s"
        sets["flows.cbr.start_max"] = f"{START_MAX_S * duration_s / DURATION_S:g}s"
    return sets


def plan(seeds: int, path_seeds: int, pauses: list[int]) -> list[Key]:
    """Every run, seed-major; the 30-source runs of the first `path_seeds` scenarios are
    the traced ones (their summaries serve delivery and overhead too)."""
    return [
        Key(p, n, pause, seed, traced=n == PATH_SOURCES and seed <= path_seeds)
        for seed in range(1, seeds + 1)
        for pause in pauses
        for n in SOURCES
        for p in PROTOCOLS
    ]


def summary_metrics(summary: dict[str, Any]) -> dict[str, Any]:
    """Delivery and overhead of one run from its summary.json: CBR packets sent and
    delivered summed over the generated flows `cbr.<i>`, and routing transmissions summed
    over the nodes (each hop counted)."""
    cbr = [f for name, f in summary["flows"].items() if name.startswith("cbr.")]
    sent = sum(int(f["data_packets_sent"]) for f in cbr)
    got = sum(int(f["delivered_packets"]) for f in cbr)
    nodes = summary.get("nodes", {}).values()
    return {
        "flows": [[f["start_s"], int(f["data_packets_sent"])] for f in cbr],
        "sent": sent,
        "delivered": got,
        "delivery_ratio": got / sent if sent else math.nan,
        "routing_packets": sum(int(n["routing_packets"]) for n in nodes),
        "routing_bytes": sum(int(n["routing_bytes"]) for n in nodes),
    }


def work(point: Point) -> dict[str, Any]:
    """One run in a pool worker: its delivery and overhead, and for a traced run the
    path-optimality histogram read from its ns-2 trace."""
    from sctplab.reproduce.routing_paths import optimality
    from sctplab.runner import movement, run

    scenario, sets, seed = point
    traced = bool(sets.pop("_traced", False))
    if not traced:
        return summary_metrics(run(scenario, seed=seed, set=sets).summary)
    with tempfile.TemporaryDirectory(prefix="sctplab-routing-") as tmp:
        res = run(scenario, seed=seed, set=sets, out=tmp, trace="ns2", output_notes=False)
        out = summary_metrics(res.summary)
        out["path"] = optimality(Path(tmp) / "trace.tr", movement(scenario, seed, sets))
    return out


def _cache_key(key: Key, duration_s: float) -> str:
    from sctplab.code_version import build_info

    v = build_info()
    return json.dumps(
        [
            sorted(sets_for(key, duration_s).items()),
            key.seed,
            key.traced,
            v["sctplab_version"],
            v["git_commit"],
        ]
    )


def run_cached(
    out: Path, keys: list[Key], duration_s: float = DURATION_S
) -> tuple[dict[Key, dict[str, Any]], int]:
    """Results by key; results of the same core build in `out/runs_broch.json` are
    reused (none from a dirty tree). New ones are saved at most a minute apart."""
    cache = RunCache.open(out / "runs_broch.json")
    ckeys = [_cache_key(k, duration_s) for k in keys]
    missing = [i for i, c in enumerate(ckeys) if c not in cache]
    # Traced runs first: they take about three times as long, so the workers end together.
    missing.sort(key=lambda i: not keys[i].traced)
    base = scenario()
    points: list[Point] = []
    for i in missing:
        sets: dict[str, Any] = sets_for(keys[i], duration_s)
        if keys[i].traced:
            sets["_traced"] = True
        points.append((base, sets, keys[i].seed))
    cache.run(points, [ckeys[i] for i in missing], work=work)
    return {k: cache[c] for k, c in zip(keys, ckeys, strict=True)}, len(keys) - len(missing)


def scenario() -> dict[str, Any]:
    return load_scenario("routing.toml")
