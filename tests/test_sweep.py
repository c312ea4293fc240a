"""`sctplab sweep`: grid x seeds into the store, top-ups, failures, bad input, SIGKILL."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import sctplab

import sctplab as api
from sctplab import sweeps
from sctplab.executor import RunOutcome, RunTask, compute_run

# One 1 Mb/s link carrying a CBR flow with 5% random loss on it. With the loss decided
# on the wire a lost packet still occupies the link, so utilisation is the offered load
# whatever the seed: 400 kb/s of 500-byte payloads is 100 packets/s of 528 B on the
# wire (20 IP + 8 UDP), 422.4 kb/s = 0.4224 of the link; 200 kb/s gives 0.2112. What
# the seed changes is which packets are lost: delivered_bytes = 500 B per packet sent
# and not lost, less the ones still in flight at 2 s: at 400 kb/s the packet sent at
# 1.99 s arrives at 1.99 + 0.0042 + 0.010 = 2.004 s (counted neither as delivered nor,
# if lost, in loss_drops); at 200 kb/s the last one (1.98 s) arrives at 1.994 s.
TINY = """\
name = "tiny"
duration = "2s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "1Mb"
delay = "10ms"
[links.loss]
rate = 0.05
position = "wire"
[[flows]]
name = "f"
type = "cbr"
from = "a"
to = "b"
rate = "400Kb"
packet_size = "500B"
"""
UTILIZATION = {"400Kb": 0.4224, "200Kb": 0.2112}
IN_FLIGHT_AT_END = {"400Kb": 1, "200Kb": 0}
RATE_GRID = 'flows.f.rate=["400Kb","200Kb"]'


def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    return path


def catalog_rows(store: Path) -> list[sqlite3.Row]:
    conn = sqlite3.connect(store / "catalog.sqlite")
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute("SELECT * FROM runs ORDER BY seed, overrides").fetchall()
    finally:
        conn.close()


def run_folders(store: Path) -> list[Path]:
    return sorted(p for p in (store / "runs").glob("*/*") if p.is_dir())


def test_small_sweep_writes_folders_and_catalog(tmp_path: Path) -> None:
    scen, store = tiny(tmp_path), tmp_path / "store"
    r = sctplab("sweep", scen, "--grid", RATE_GRID, "--seeds", "2", "--jobs", "2", "--store", store)
    assert r.returncode == 0, r.stderr
    assert "4 run(s), 0 already in" in r.stderr

    rows = catalog_rows(store)
    assert len(rows) == 4
    assert {row["status"] for row in rows} == {"ok"}
    assert {(json.loads(row["overrides"])["flows.f.rate"], row["seed"]) for row in rows} == {
        ("400Kb", 1),
        ("400Kb", 2),
        ("200Kb", 1),
        ("200Kb", 2),
    }
    folders = run_folders(store)
    assert len(folders) == 4
    assert {f"runs/{f.parent.name}/{f.name}" for f in folders} == {row["path"] for row in rows}

    delivered: dict[str, set[int]] = {"400Kb": set(), "200Kb": set()}
    for folder in folders:
        names = {p.name for p in folder.iterdir()}
        assert names == {"summary.json", "run.json", "scenario.toml", "manifest.json"}
        manifest = json.loads((folder / "manifest.json").read_text())
        summary = json.loads((folder / "summary.json").read_text())
        rate = manifest["parameters"]["flows.f.rate"]
        assert summary["seed"] == manifest["seed"]
        assert f'rate = "{rate}"' in (folder / "scenario.toml").read_text()
        link = summary["links"]["a->b"]
        assert link["utilization"] == pytest.approx(UTILIZATION[rate], rel=1e-9)
        got = summary["flows"]["f"]["delivered_bytes"]
        assert got == 500 * (link["tx_packets"] - link["loss_drops"] - IN_FLIGHT_AT_END[rate])
        delivered[rate].add(got)
        assert manifest["code_version"].startswith(api.__version__ + "+")
        assert len(manifest["scenario_hash"]) == 64
    # The seed reaches the loss model: the two seeds lose different packets.
    assert all(len(v) == 2 for v in delivered.values())


def test_sweep_summary_matches_sctplab_run(tmp_path: Path) -> None:
    """A sweep run is the run `sctplab run --set ... --seed ...` gives, byte for byte."""
    scen, store = tiny(tmp_path), tmp_path / "store"
    r = sctplab("sweep", scen, "--grid", RATE_GRID, "--seeds", "2", "--jobs", "1", "--store", store)
    assert r.returncode == 0, r.stderr
    single = tmp_path / "single"
    r = sctplab("run", scen, "--set", 'flows.f.rate="200Kb"', "--seed", "2", "--out", single)
    assert r.returncode == 0, r.stderr
    [row] = [
        row
        for row in catalog_rows(store)
        if row["seed"] == 2 and json.loads(row["overrides"]) == {"flows.f.rate": "200Kb"}
    ]
    swept = (store / row["path"] / "summary.json").read_bytes()
    assert swept == (single / "summary.json").read_bytes()


def test_more_seeds_top_up_only_the_missing_runs(tmp_path: Path) -> None:
    scen, store = tiny(tmp_path), tmp_path / "store"
    args = ["sweep", scen, "--grid", RATE_GRID, "--jobs", "2", "--store", store]
    assert sctplab(*args, "--seeds", "2").returncode == 0
    before = {row["run_id"]: row["created_at"] for row in catalog_rows(store)}
    mtimes = {f: (f / "manifest.json").stat().st_mtime_ns for f in run_folders(store)}

    r = sctplab(*args, "--seeds", "3")
    assert r.returncode == 0, r.stderr
    assert "6 run(s), 4 already in" in r.stderr and "2 to run" in r.stderr
    rows = catalog_rows(store)
    assert len(rows) == 6
    assert {row["seed"] for row in rows if row["run_id"] not in before} == {3}
    assert {row["run_id"]: row["created_at"] for row in rows if row["run_id"] in before} == before
    assert {f: (f / "manifest.json").stat().st_mtime_ns for f in mtimes} == mtimes

    r = sctplab(*args, "--seeds", "3")
    assert r.returncode == 0
    assert "6 run(s), 6 already in" in r.stderr and "0 to run" in r.stderr
    assert len(catalog_rows(store)) == 6


def test_a_failing_grid_point_is_recorded_and_the_sweep_goes_on(tmp_path: Path) -> None:
    scen, store = tiny(tmp_path), tmp_path / "store"
    args = ["sweep", scen, "--grid", 'links.ab.delay=["10ms","fast"]', "--seeds", "2"]
    r = sctplab(*args, "--jobs", "2", "--store", store)
    assert r.returncode == 1
    assert "2 run(s) done, 2 failed" in r.stdout
    failures = [line for line in r.stderr.splitlines() if "run failed" in line]
    assert len(failures) == 2 and all('links.ab.delay="fast"' in line for line in failures)

    rows = catalog_rows(store)
    assert sorted(row["status"] for row in rows) == ["failed", "failed", "ok", "ok"]
    for row in rows:
        if row["status"] == "failed":
            assert json.loads(row["overrides"]) == {"links.ab.delay": "fast"}
            assert "links.ab.delay" in row["error"] and "\n" not in row["error"]
            assert row["path"] is None
        else:
            assert (store / row["path"] / "summary.json").is_file()
    assert len(run_folders(store)) == 2

    # Failed runs are not "done": the next sweep tries them again, and only them.
    r = sctplab(*args, "--jobs", "1", "--store", store)
    assert r.returncode == 1
    assert "4 run(s), 2 already in" in r.stderr


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        ("links.ab.delay", "expected KEY=JSON_LIST"),
        ("=[1]", "expected KEY=JSON_LIST"),
        ("links.ab.delay=[10ms]", "not valid JSON"),
        ('links.ab.delay=["10ms"', "not valid JSON"),
        ("links.ab.loss.rate=0.1", "expected a non-empty list"),
        ("links.ab.loss.rate=[]", "expected a non-empty list"),
        ("links.ab.loss.rate=[null]", "not a TOML value"),
    ],
)
def test_bad_grid_is_one_line_and_exit_2(tmp_path: Path, grid: str, message: str) -> None:
    store = tmp_path / "store"
    r = sctplab("sweep", tiny(tmp_path), "--grid", grid, "--seeds", "1", "--store", store)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sctplab: error:") and message in lines[0]
    assert not store.exists(), "nothing may start on bad input"


def test_bad_scenario_and_options_are_one_line_and_exit_2(tmp_path: Path) -> None:
    store = tmp_path / "store"
    bad = tmp_path / "bad.toml"
    bad.write_text(TINY.replace('delay = "10ms"', 'delay = "ten"'))
    cases = [
        ([tmp_path / "missing.toml", "--seeds", "1"], "no such scenario file"),
        ([bad, "--seeds", "1"], "links.ab.delay"),
        ([tiny(tmp_path), "--seeds", "0"], "--seeds"),
        ([tiny(tmp_path)], "--seeds"),
        ([tiny(tmp_path), "--seeds", "1", "--jobs", "0"], "--jobs"),
        (
            [tiny(tmp_path), "--seeds", "1", "--jobs", "2", "--scheduler", "tcp://127.0.0.1:9"],
            "--jobs",
        ),
    ]
    for args, message in cases:
        r = sctplab("sweep", *args, "--store", store)
        assert r.returncode == 2, args
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("sctplab: error:"), r.stderr
        assert message in lines[0], (args, lines[0])
    assert not store.exists()


def test_python_sweep_mirrors_the_cli(tmp_path: Path) -> None:
    store = tmp_path / "store"
    grid = {"flows.f.rate": ["400Kb", "200Kb"]}
    df = api.sweep(TINY, grid, seeds=2, jobs=1, store=store, progress=False)
    assert len(df) == 4
    assert df.attrs["parameters"] == ["flows.f.rate"]
    assert set(df["status"]) == {"ok"}
    assert sorted(zip(df["flows.f.rate"], df["seed"], strict=True)) == [
        ("200Kb", 1),
        ("200Kb", 2),
        ("400Kb", 1),
        ("400Kb", 2),
    ]
    for rate, util in zip(df["flows.f.rate"], df["links.a->b.utilization"], strict=True):
        assert util == pytest.approx(UTILIZATION[rate], rel=1e-9)

    # Same scenario as a dict: same content hash, so the store already has these runs.
    import tomllib

    more = api.sweep(tomllib.loads(TINY), grid, seeds=3, jobs=1, store=store, progress=False)
    assert len(more) == 6
    reused = set(df["run_id"])
    old = more[more["run_id"].isin(reused)]
    assert list(old.sort_values("run_id")["created_at"]) == list(
        df.sort_values("run_id")["created_at"]
    )
    assert set(more[~more["run_id"].isin(reused)]["seed"]) == {3}


def test_python_sweep_reports_failed_runs(tmp_path: Path) -> None:
    df = api.sweep(
        TINY, {"links.ab.delay": ["10ms", "fast"]}, 1, jobs=1, store=tmp_path / "s", progress=False
    )
    bad = df[df["status"] == "failed"]
    assert list(bad["links.ab.delay"]) == ["fast"]
    assert "links.ab.delay" in bad["error"].iloc[0]
    with pytest.raises(api.UsageError, match="non-empty list"):
        api.sweep(TINY, {"links.ab.delay": "10ms"}, 1, store=tmp_path / "s")
    with pytest.raises(api.ScenarioError, match=r"links\.ab\.delay"):
        api.sweep(TINY.replace('"10ms"', '"ten"'), {}, 1, store=tmp_path / "s")


def _die_on_seed_2(task: RunTask) -> RunOutcome:
    """Stands in for compute_run in the pool's worker: the run with seed 2 kills it."""
    if task.seed == 2:
        os._exit(3)
    return compute_run(task)


def test_the_driver_takes_whole_messages_from_a_worker_socket() -> None:
    # The driver's end against the worker's (_Channel): several messages in one read, a
    # message split over many reads and larger than one read, the 8-byte length form
    # (written by hand: 2 GiB would be too big for a test), and EOF at the end.
    import pickle
    import socket

    from sctplab.executor import _READ_SIZE, _Channel, _DriverEnd

    ours, theirs = socket.socketpair()
    driver, worker = _DriverEnd(ours), _Channel(theirs.fileno())
    assert driver.take() == []
    worker.send((0, "a"))
    worker.send((1, "b"))
    assert driver.take() == [(0, "a"), (1, "b")]
    big = (2, "x" * (3 * _READ_SIZE + 5))
    data = pickle.dumps(big)
    long_form = (-1).to_bytes(4, "big", signed=True) + len(data).to_bytes(8, "big") + data
    got: list[object] = []
    for i in range(0, len(long_form), 4096):
        theirs.sendall(long_form[i : i + 4096])
        while True:
            taken = driver.take()
            got += taken
            if not taken:
                break
    while not got:
        got += driver.take()
    assert got == [big]
    worker.send((3, None))
    theirs.close()
    assert driver.take() == [(3, None)]
    with pytest.raises(EOFError):
        driver.take()
    driver.close()


def test_an_outcome_crosses_the_pool_as_its_fields() -> None:
    # A pool worker sends outcome.fields() and the driver makes RunOutcome(*fields):
    # every field, each with a value of its own, must come back in its place.
    import dataclasses
    import pickle

    values = {
        "ok": True,
        "code_version": "0.1.0+abc",
        "sets": (("duration", '"2s"'),),
        "error": "no error",
        "summary_json": '{"events": 1}',
        "resolved_toml": 'name = "x"',
        "wall_s": 0.25,
        "events": 17,
        "run_json": {"complete": True},
        "metrics_json": '{"events":1}',
    }
    assert [f.name for f in dataclasses.fields(RunOutcome)] == list(values)
    outcome = RunOutcome(**values)  # type: ignore[arg-type]
    assert RunOutcome(*pickle.loads(pickle.dumps(outcome.fields()))) == outcome


def test_a_dying_worker_fails_its_runs_and_the_sweep_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    monkeypatch.setattr(sweeps, "compute_run", _die_on_seed_2)
    report = sweeps.run_sweep(TINY, {}, 6, jobs=1, store=store)
    failed = {run.key.seed: error for run, error in report.failed}
    assert "worker process died" in failed[2]
    # With one worker at most two runs are in flight (seed 2 and the next one); the pool
    # is replaced and the others complete.
    assert set(failed) <= {2, 3}
    assert report.ran == 6 - len(failed)

    monkeypatch.undo()
    report = sweeps.run_sweep(TINY, {}, 6, jobs=1, store=store)
    assert (report.reused, report.ran, report.failed) == (6 - len(failed), len(failed), [])


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        return [int(p) for p in path.read_text().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its parent's wait is missing


def test_sigkill_mid_sweep_then_resume(tmp_path: Path) -> None:
    scen, store = tiny(tmp_path), tmp_path / "store"
    # ~0.1 s per run (5000 s simulated, ~1.5 M events) and one worker: the sweep takes
    # seconds, long enough to be killed after a few runs.
    seeds = 30
    args = ["sweep", str(scen), "--grid", 'duration=["5000s"]', "--seeds", str(seeds)]
    args += ["--jobs", "1", "--store", str(store)]
    exe = shutil.which("sctplab")
    cmd = [exe] if exe else [sys.executable, "-m", "sctplab.cli"]
    proc = subprocess.Popen(
        [*cmd, *args, "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        done = 0
        workers: list[int] = []
        while time.monotonic() < deadline and proc.poll() is None:
            workers = workers or _children(proc.pid)
            try:
                done = len(catalog_rows(store))
            except sqlite3.Error:
                done = 0  # the catalog is not created yet
            if done >= 3:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the sweep finished before it could be killed"
        assert done >= 3
        workers = workers or _children(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()

    # The pool worker notices its driver is gone and exits instead of lingering.
    if Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists():
        assert workers, "the sweep's worker processes were not seen"
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers), "orphaned pool workers"

    before = {row["run_id"]: row["created_at"] for row in catalog_rows(store)}
    assert 3 <= len(before) < seeds
    mtimes = {
        row["run_id"]: (store / row["path"] / "manifest.json").stat().st_mtime_ns
        for row in catalog_rows(store)
    }

    r = sctplab(*args)
    assert r.returncode == 0, r.stderr
    assert f"{seeds} run(s), {len(before)} already in" in r.stderr
    rows = catalog_rows(store)
    assert len(rows) == seeds and {row["status"] for row in rows} == {"ok"}
    assert {row["run_id"]: row["created_at"] for row in rows if row["run_id"] in before} == before
    for row in rows:
        if row["run_id"] in mtimes:
            path = store / row["path"] / "manifest.json"
            assert path.stat().st_mtime_ns == mtimes[row["run_id"]]
    assert len(run_folders(store)) == seeds
    assert list((store / ".tmp").iterdir()) == []
    conn = sqlite3.connect(store / "catalog.sqlite")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
