"""The CMT study's runs: ours (scenarios/cmt.toml) and ns-2.35's (python/sctplab/ns2/
cmt.tcl, read as `sctplab validate ns2`'s CMT rows read it), one per pool worker, cached
in `cmt/runs_paths.json`: ours per core build, ns-2's per cmt.tcl text (ns-2.35 does not
change with our build), so a second `reproduce cmt` only redraws."""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

from sctplab.reproduce.cmt_plan import BY_NAME, Key, ns2_extra, ours_sets
from sctplab.reproduce.pool import Point
from sctplab.reproduce.run_cache import RunCache
from sctplab.scenario_paths import load_scenario

RUNS_FILE = "runs_paths.json"
# ns-2.35's CPU seconds for one run before it is stopped: a 61-s run needs well under one,
# but Agent/SCTP/CMT can spin forever in SctpCMTAgent::SendMuch with loss on a path
# (seen under gdb at 3 % loss); such a run has no goodput and the report counts it.
NS2_CPU_LIMIT_S = 5


def work(point: Point) -> dict[str, Any]:
    """One run in a pool worker: its goodput (and, for ours, per-path bytes acked)."""
    scenario, sets, seed = point
    ns2 = sets.pop("_ns2", None)
    if ns2 is not None:
        import subprocess

        from sctplab.validation.cmt import ns2_goodput

        agent, loss, end, extra = ns2
        with tempfile.TemporaryDirectory(prefix="sctplab-cmt-") as tmp:
            try:
                g = ns2_goodput(
                    Path(tmp),
                    agent,
                    float(loss),
                    seed,
                    float(end),
                    tuple(extra),
                    cpu_limit_s=NS2_CPU_LIMIT_S,
                )
            except subprocess.CalledProcessError as e:
                return {"goodput_bps": None, "ns2_failed": f"exit status {e.returncode}"}
        return {"goodput_bps": g}
    from sctplab.runner import run

    flow = run(scenario, seed=seed, set=sets).summary["flows"]["sctp1"]
    return {
        "goodput_bps": float(flow["goodput_bps"]),
        "bytes_acked": {a: int(p["bytes_acked"]) for a, p in flow["paths"].items()},
    }


def _ns2_version() -> str:
    from sctplab.ns2 import oracle

    return hashlib.sha256(oracle.script_text("cmt.tcl").encode()).hexdigest()[:16]


def _cache_key(key: Key, end_s: float) -> str:
    from sctplab.code_version import build_info

    if BY_NAME[key.config].ns2:
        version = ["ns2", _ns2_version()]
    else:
        v = build_info()
        version = [v["sctplab_version"], v["git_commit"]]
    return json.dumps(
        [key.config, key.delay_b_ms, key.loss_b, key.buffer, key.seed, end_s, *version]
    )


def _point(base: dict[str, Any], key: Key, end_s: float) -> Point:
    c = BY_NAME[key.config]
    if c.ns2:
        agent = "cmt" if c.cmt else "sctp"
        return (base, {"_ns2": [agent, key.loss_b, end_s, list(ns2_extra(key))]}, key.seed)
    return (base, ours_sets(key, end_s), key.seed)


def run_cached(out: Path, keys: list[Key], end_s: float) -> tuple[dict[Key, dict[str, Any]], int]:
    """Results by key and how many came from `out/runs_paths.json` (ours only from a clean
    tree's build). New results are saved at most a minute apart, so an interrupted study
    resumes."""
    # A dirty tree's build is not identified by its commit: keep only ns-2's.
    cache = RunCache.open(out / RUNS_FILE, keep_when_dirty=lambda k: '"ns2"' in k)
    ckeys = [_cache_key(k, end_s) for k in keys]
    missing = [i for i, c in enumerate(ckeys) if c not in cache]
    base = load_scenario("cmt.toml")
    cache.run(
        [_point(base, keys[i], end_s) for i in missing], [ckeys[i] for i in missing], work=work
    )
    return {k: cache[c] for k, c in zip(keys, ckeys, strict=True)}, len(keys) - len(missing)
