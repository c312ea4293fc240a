"""Per-run overhead of a local sweep on short runs (issue 14).

Runs `sctplab sweep SCENARIO --seeds N --jobs J` into a fresh store as a subprocess and
compares the CPU time of the whole sweep (driver and workers: the child's RUSAGE_CHILDREN)
with the CPU the core needs for the same runs, measured in this process (`_core.run` on
every planned task, process time; the catalog's wall_time_s, wall time inside the core,
is printed too but is inflated on a loaded machine). Overhead = everything else:
process start, imports, pickling, store writes (scenario parsing is inside `_core.run`).

    python bench/sweep_overhead.py [--scenario scenarios/example-cbr.toml] [--seeds 400]
                                   [--jobs 1] [--repeat 3]

Prints one line per repeat and the minimum (the least disturbed by other load).

`--versus DIR` runs, in each repeat, the same sweep a second time with PYTHONPATH=DIR
(another tree's python/ folder with the same `_core`), for before/after on one load.
Stores are deleted only at the end: on ext4, creating files right after deleting
thousands (the previous repeat's store) costs several times the system time
(ext4_new_inode's recently_deleted scan), which is the deletion's cost, not the sweep's.
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def core_cpu(scenario: str, seeds: int, extra: list[str]) -> float:
    """CPU seconds `_core.run` takes for the sweep's runs, in this process."""
    from sctplab import _core
    from sctplab.sweeps import parse_grid, plan

    grids = [extra[i + 1] for i, x in enumerate(extra) if x == "--grid"]
    runs = plan(scenario, parse_grid(grids), seeds)[3]
    t0 = time.process_time()
    for r in runs:
        t = r.task
        _core.run(t.text, is_json=t.is_json, source=t.source, default_name=t.default_name,
                  sets=list(t.sets), seed=t.seed)  # fmt: skip
    return time.process_time() - t0


def one(
    scenario: str, seeds: int, jobs: int, extra: list[str], store: Path, pythonpath: str | None
) -> tuple[float, float, float, float, int]:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "sctplab.cli", "sweep", scenario, "--seeds", str(seeds),
         "--jobs", str(jobs), "--store", str(store), "--quiet", *extra],
        check=True, stdout=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    conn = sqlite3.connect(store / "catalog.sqlite")
    (core, n) = conn.execute(
        "SELECT sum(wall_time_s), count(*) FROM runs WHERE status = 'ok'"
    ).fetchone()
    conn.close()
    return wall, user, system, core, n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenario", default="scenarios/example-cbr.toml")
    ap.add_argument("--seeds", type=int, default=400)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--store-dir", default=None, help="where the temporary stores go")
    ap.add_argument("--versus", default=None, help="another tree's python/ folder")
    ap.add_argument("extra", nargs="*", help="more sweep arguments (after --)")
    a = ap.parse_args()
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else []
    print(f"machine: {os.cpu_count()} cores, load {' '.join(load)}")
    print(f"sctplab sweep {a.scenario} --seeds {a.seeds} --jobs {a.jobs} {' '.join(a.extra)}")
    trees: list[tuple[str, str | None]] = [("this", None)]
    if a.versus is not None:
        trees.append(("versus", a.versus))
    rows: dict[str, list[tuple[float, float, int]]] = {name: [] for name, _ in trees}
    with tempfile.TemporaryDirectory(dir=a.store_dir) as tmp:
        for i in range(a.repeat):
            for name, pythonpath in trees:
                # The core's CPU measured beside each sweep, so both see the same load.
                core = core_cpu(a.scenario, a.seeds, a.extra)
                store = Path(tmp) / f"store-{name}-{i}"
                wall, user, system, core_wall, n = one(
                    a.scenario, a.seeds, a.jobs, a.extra, store, pythonpath
                )
                cpu = user + system
                over = cpu - core
                rows[name].append((over, cpu, n))
                print(
                    f"{name}: runs {n}: wall {wall:.2f} s, CPU {cpu:.2f} s (user {user:.2f}, "
                    f"sys {system:.2f}), core CPU {core:.2f} s ({1e3 * core / n:.2f} ms/run; "
                    f"core wall in catalog {1e3 * core_wall / n:.2f} ms/run), overhead "
                    f"{1e3 * over / n:.2f} ms/run = {100 * over / cpu:.1f} % of CPU",
                    flush=True,
                )
    for name, _ in trees:
        over, cpu, n = min(rows[name])
        print(f"{name}: min overhead {1e3 * over / n:.2f} ms/run = {100 * over / cpu:.1f} % of CPU")


if __name__ == "__main__":
    main()
