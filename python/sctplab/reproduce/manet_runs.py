"""Seed 004's runs: one per pool worker, cached in `manet/runs.json` by core build so an
interrupted study resumes."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from sctplab.reproduce.manet_study import (
    BASE_RATE,
    TRANSPORTS,
    scenario,
)
from sctplab.reproduce.pool import Point
from sctplab.reproduce.run_cache import RunCache


def work(point: Point) -> dict[str, Any]:
    """One run (in a pool worker): the transport flow's summary plus its packet counts
    and the background pairs drawn, for the pairing check."""
    from sctplab.runner import run

    scenario, sets, seed = point
    with tempfile.TemporaryDirectory(prefix="sctplab-manet-") as tmp:
        res = run(scenario, seed=seed, set=sets, out=tmp)
    flow = res.summary["flows"]["transport"]
    return {
        "flow": {k: v for k, v in flow.items() if k not in ("streams",)},
        "rtx_packets": int(flow["retransmitted_packets"]),
        "background": sorted(
            (name, f["from"], f["to"], f["start_s"])
            for name, f in res.summary["flows"].items()
            if name.startswith("background")
        ),
    }


def _cache_key(transport: str, sets: dict[str, Any], seed: int) -> str:
    from sctplab.code_version import build_info

    v = build_info()
    return json.dumps(
        [transport, sorted(sets.items()), seed, v["sctplab_version"], v["git_commit"]],
        sort_keys=True,
    )


Todo = tuple[Any, str, dict[str, Any], int]  # (tag, transport, overrides, seed)


def _cost(sets: dict[str, Any]) -> int:
    """A run's relative cost, for ordering only: the CBR rate (kb/s) dominates it (at
    10 m/s, 220 s: 64 kb/s takes about twice the CPU of 16 kb/s; speed, case and transport
    change it by less than a third)."""
    rate = str(sets.get("flows.background.rate", f"{BASE_RATE}Kb"))
    return int(rate.removesuffix("Kb")) if rate.removesuffix("Kb").isdigit() else BASE_RATE


def run_cached(out: Path, todo: list[Todo]) -> tuple[dict[Any, dict[str, Any]], int]:
    """Results of the runs by tag; runs of the same core build already in `out/runs.json`
    are reused (none when the build is from a dirty tree). New results are saved as they
    arrive (at most a minute apart), so an interrupted study resumes."""
    cache = RunCache.open(out / "runs.json")
    keys = [_cache_key(t, sets, seed) for _, t, sets, seed in todo]
    missing = [i for i, k in enumerate(keys) if k not in cache]
    base = {t: scenario(t) for t in TRANSPORTS}
    # Longest runs first, so the two workers finish together instead of one idling
    # while the other runs a long point at the end (results are kept by key, so the
    # order changes nothing else).
    missing.sort(key=lambda i: -_cost(todo[i][2]))
    cache.run(
        [(base[todo[i][1]], todo[i][2], todo[i][3]) for i in missing],
        [keys[i] for i in missing],
        work=work,
    )
    return {tag: cache[k] for (tag, *_), k in zip(todo, keys, strict=True)}, len(todo) - len(
        missing
    )
