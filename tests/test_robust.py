"""Robustness (issue 13): runs that never end, Ctrl-C, crashes on huge inputs, and one
line (no traceback) for every bad input of every command."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT, sctplab

import sctplab as api

TWO_NODES = """
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
"""

# A TCP transfer whose only link goes down for good at 1 s, and no `duration`: nothing
# can ever finish the flow, and the sender retransmits forever.
DEAD_LINK = (
    TWO_NODES
    + """
[[flows]]
name = "bulk"
type = "tcp"
variant = "sack"
from = "a"
to = "b"
bytes = "10MB"
[[faults]]
at = "1s"
link = "ab"
action = "down"
"""
)

# Long enough that only a timeout or an interrupt ends it in a test (about 10^7 events).
BUSY = (
    'duration = "10000000s"\n'
    + TWO_NODES
    + """
[[flows]]
name = "fast"
type = "cbr"
from = "a"
to = "b"
rate = "900Kb"
"""
)


CLI = [sys.executable, "-m", "sctplab.cli"]


def one_error_line(r: subprocess.CompletedProcess[str]) -> str:
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("sctplab: error: "), r.stderr
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr
    return lines[0]


# --- 1. runs that never end ------------------------------------------------------------


def test_livelock_without_duration_stops_with_one_line(tmp_path: Path) -> None:
    scen = tmp_path / "dead.toml"
    scen.write_text(DEAD_LINK)
    out = tmp_path / "run"
    r = sctplab("run", scen, "--out", out, "--trace", "sends")
    assert r.returncode == 1
    line = one_error_line(r)
    assert "livelock" in line and "bulk" in line and "`duration`" in line
    # The folder does not look complete: no summary.json, run.json says why.
    assert not (out / "summary.json").exists()
    meta = json.loads((out / "run.json").read_text())
    assert meta["complete"] is False and meta["status"] == "failed"
    assert "livelock" in meta["error"]
    assert (out / "sends.csv").is_file()  # traces written so far stay


def test_livelock_through_the_api_is_run_error() -> None:
    with pytest.raises(api.RunError, match="livelock"):
        api.run(DEAD_LINK)


def test_sweep_run_timeout_records_the_run_as_failed_and_goes_on(tmp_path: Path) -> None:
    scen, store = tmp_path / "busy.toml", tmp_path / "store"
    scen.write_text(BUSY)
    grid = 'duration=["1s","10000000s"]'
    r = sctplab(
        "sweep", scen, "--grid", grid, "--seeds", "1", "--jobs", "2", "--store", store,
        "--run-timeout", "0.5",
    )  # fmt: skip
    assert r.returncode == 1, r.stderr
    assert "1 run(s) done, 1 failed" in r.stdout
    failed = [line for line in r.stderr.splitlines() if "run failed" in line]
    assert len(failed) == 1 and 'duration="10000000s"' in failed[0] and "timed out" in failed[0]
    conn = sqlite3.connect(store / "catalog.sqlite")
    rows = conn.execute("SELECT status, error FROM runs ORDER BY status").fetchall()
    conn.close()
    assert [s for s, _ in rows] == ["failed", "ok"]
    assert rows[0][1].startswith("timed out:") and "\n" not in rows[0][1]


def test_python_sweep_run_timeout(tmp_path: Path) -> None:
    df = api.sweep(
        BUSY, {"duration": ["1s", "10000000s"]}, 1, jobs=1, store=tmp_path / "s", run_timeout=0.5
    )
    by = dict(zip(df["duration"], df["status"], strict=True))
    assert by == {"1s": "ok", "10000000s": "failed"}
    with pytest.raises(api.UsageError, match="--run-timeout"):
        api.sweep(BUSY, {}, 1, store=tmp_path / "s2", run_timeout=-1)


def test_a_worker_stuck_outside_the_core_is_killed_and_the_sweep_goes_on(
    tmp_path: Path,
) -> None:
    # The test hook makes the worker sleep 60 s in Python before the core runs seed 2:
    # the core's own limit never gets a look, so only the driver can end it. With
    # --run-timeout 0.5 it kills that worker at 0.5 * 1.1 + 2 s (executor.kill_after),
    # records the run as timed out, starts a new worker, and the other runs complete.
    scen, store = tmp_path / "two.toml", tmp_path / "store"
    scen.write_text('duration = "1s"\n' + TWO_NODES)
    env = {**os.environ, "SCTPLAB_TEST_HANG_BEFORE_RUN": "2:60"}
    t0 = time.monotonic()
    r = subprocess.run(
        [*CLI, "sweep", str(scen), "--seeds", "4", "--jobs", "1", "--store", str(store),
         "--run-timeout", "0.5"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    took = time.monotonic() - t0
    assert r.returncode == 1, r.stderr
    assert "3 run(s) done, 1 failed" in r.stdout, r.stdout
    assert took < 30, took  # not the 60 s of the hang
    conn = sqlite3.connect(store / "catalog.sqlite")
    rows = dict(conn.execute("SELECT seed, coalesce(error, status) FROM runs").fetchall())
    conn.close()
    assert set(rows) == {1, 2, 3, 4}
    assert rows[2].startswith("timed out:") and "worker process was killed" in rows[2]
    assert all(rows[k] == "ok" for k in (1, 3, 4))
    # The store is consistent: the next sweep (no hang) runs only the failed one.
    r = sctplab("sweep", scen, "--seeds", "4", "--jobs", "1", "--store", store)
    assert r.returncode == 0, r.stderr
    assert "1 run(s) done" in r.stdout and "3 reused" in r.stdout, r.stdout


# --- 2. Ctrl-C -------------------------------------------------------------------------


def _wait_for(path: Path, proc: subprocess.Popen[str], limit: float = 30.0) -> None:
    t0 = time.monotonic()
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - t0 < limit, f"{path} never appeared"
        time.sleep(0.05)


def test_ctrl_c_stops_sctplab_run_within_a_second(tmp_path: Path) -> None:
    scen, out = tmp_path / "busy.toml", tmp_path / "run"
    scen.write_text(BUSY)
    proc = subprocess.Popen(
        [*CLI, "run", str(scen), "--out", str(out), "--trace", "sends", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for(out / "sends.csv", proc)  # the core is running
    time.sleep(0.3)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=10)
    waited = time.monotonic() - t0
    assert waited < 1.0, f"took {waited:.2f} s to stop"
    assert proc.returncode == 130
    assert err.strip().splitlines() == ["sctplab: error: interrupted"]
    assert not (out / "summary.json").exists()
    meta = json.loads((out / "run.json").read_text())
    assert meta["complete"] is False and meta["status"] == "interrupted"


def test_ctrl_c_raises_keyboard_interrupt_through_the_api(tmp_path: Path) -> None:
    code = (
        "import sys, sctplab\n"
        "try:\n"
        f"    sctplab.run({BUSY!r}, out=sys.argv[1])\n"
        "except KeyboardInterrupt:\n"
        "    print('KeyboardInterrupt')\n"
    )
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for(out / "run.json", proc)
    time.sleep(0.5)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=10)
    assert time.monotonic() - t0 < 1.0
    assert stdout.strip() == "KeyboardInterrupt", stderr
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"


def test_ctrl_c_stops_a_sweep_and_its_workers(tmp_path: Path) -> None:
    scen, store = tmp_path / "busy.toml", tmp_path / "store"
    scen.write_text(BUSY)
    proc = subprocess.Popen(
        [*CLI, "sweep", str(scen), "--seeds", "2", "--jobs", "2", "--store", str(store)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    _wait_for(store / "catalog.sqlite", proc)
    time.sleep(1.5)  # the workers are in the core
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    _, err = proc.communicate(timeout=10)
    assert time.monotonic() - t0 < 1.0
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == "sctplab: error: interrupted"
    assert "Traceback" not in err
    # Nothing half-done is recorded: the catalog has no row, and no run folder is left.
    conn = sqlite3.connect(store / "catalog.sqlite")
    assert conn.execute("SELECT COUNT(*) FROM runs").fetchone() == (0,)
    conn.close()
    # No worker is left behind.
    time.sleep(0.2)
    left = subprocess.run(
        ["ps", "-o", "pid=,args=", "-g", str(proc.pid)], capture_output=True, text=True
    ).stdout
    alive = [line for line in left.splitlines() if "<defunct>" not in line]
    assert alive == [], left


# --- 3. crashes on huge inputs ---------------------------------------------------------


def test_a_30000_segment_set_path_is_one_line_not_a_segfault(example: Path) -> None:
    key = ".".join(["a"] * 30_000)
    r = sctplab("run", example, "--set", f"{key}=1")
    assert r.returncode == 2
    line = one_error_line(r)
    assert "at most 32 dotted segments" in line and len(line) < 300
    with pytest.raises(api.ScenarioError, match="at most 32 dotted segments"):
        api.run(str(example), set={key: 1})


@pytest.mark.parametrize(
    "doc",
    [
        "x." + ".".join(["a"] * 30_000) + " = 1\n",
        "x = " + "[" * 30_000 + "]" * 30_000 + "\n",
        "x = " + "{a=" * 30_000 + "1" + "}" * 30_000 + "\n",
    ],
    ids=["dotted-key", "arrays", "inline-tables"],
)
def test_deeply_nested_toml_is_one_line(tmp_path: Path, example: Path, doc: str) -> None:
    scen = tmp_path / "deep.toml"
    scen.write_text(doc + example.read_text())
    r = sctplab("run", scen, "--out", tmp_path / "run")
    assert r.returncode == 2
    assert "deep.toml" in one_error_line(r)


def test_a_series_too_large_for_the_disk_is_refused_before_the_run(
    tmp_path: Path, example: Path
) -> None:
    # 10 s sampled every 1 ns, 6 queues: 6 * (10^10 + 1) values, 48 bytes each at most
    # while written (spill chunk + Parquet), about 2880 GB: more than any test disk has.
    r = sctplab(
        "run", example, "--set", "series.interval=1ns", "--series", "queue",
        "--out", tmp_path / "run",
    )  # fmt: skip
    assert r.returncode == 2
    line = one_error_line(r)
    assert "series.interval = 1 ns" in line and "60000000006 values" in line
    assert "GB on disk" in line and "GB free in" in line
    assert not (tmp_path / "run" / "summary.json").exists()
    assert not (tmp_path / "run" / ".series.spill").exists()
    # Without a run folder the series comes back in memory: capped at 10^7 values.
    with pytest.raises(api.UsageError, match="more than the 10000000 a run returns in memory"):
        api.run(str(example), set={"series.interval": "1us"}, series=["queue"])


# A run whose series went to disk in chunks, in a fresh interpreter so its peak RSS is
# its own: ru_maxrss after the imports, after the run, and the file's row count.
_LONG_SERIES = """
import resource, sys
import pyarrow.parquet as pq
import sctplab
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
sctplab.run(sys.argv[1], set={"series.interval": sys.argv[2]}, series=["queue"], out=sys.argv[3])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
rows = pq.ParquetFile(sys.argv[3] + "/series.parquet").metadata.num_rows
print(base, peak, rows)
"""


def test_a_long_series_streams_to_disk_with_bounded_memory(tmp_path: Path, example: Path) -> None:
    # example-cbr (10 s, 3 links = 6 queues) sampled every 5 us: 2,000,000 samples of 6
    # values = 12,000,000 rows, over the 10^7 values a run used to refuse. Held in
    # memory they would take 12e6 * 24 B = 288 MB in the core alone (and as much again in
    # pyarrow); streamed, the run holds one 1 Mi-row chunk (24 MiB) at a time.
    out = tmp_path / "run"
    r = subprocess.run(
        [sys.executable, "-c", _LONG_SERIES, str(example), "5us", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    base_kb, peak_kb, rows = (int(x) for x in r.stdout.split())
    assert rows == 12_000_000
    # Generous: 200 MB above the interpreter with its imports (measured: about 105).
    assert peak_kb - base_kb < 200_000, (base_kb, peak_kb)
    assert not (out / ".series.spill").exists()
    assert json.loads((out / "run.json").read_text())["complete"] is True


def test_a_spilled_series_is_the_file_an_in_memory_one_makes(tmp_path: Path, example: Path) -> None:
    # Every 50 us for 10 s: 200,000 samples x 6 queues = 1,200,000 rows, one whole
    # 1,048,576-row chunk spilled plus the rest. The run folder's file must be the bytes
    # pq.write_table makes of the whole in-memory table (same schema, row groups, values).
    import pyarrow.parquet as pq

    from sctplab.runner import _series_table

    sets = {"series.interval": "50us"}
    mem = api.run(str(example), set=sets, series=["queue"])
    disk = api.run(str(example), set=sets, series=["queue"], out=tmp_path / "run")
    assert mem.series_file is None and disk.series_file == tmp_path / "run" / "series.parquet"
    table = _series_table(mem._series_columns)
    assert table.num_rows == 1_200_000
    pq.write_table(table, tmp_path / "whole.parquet")
    assert (tmp_path / "whole.parquet").read_bytes() == disk.series_file.read_bytes()
    assert disk.series.equals(mem.series)


# Errors two keys make together name the one the user changed (issue 13): both are in
# the message, and an override's key is where the error is reported.
@pytest.mark.parametrize(
    ("key", "value", "want"),
    [
        # n1 loses its NIC: the flow joining n0 and n1 has one wireless end.
        ("nodes.n1.wlan", "0", "nodes.n1.wlan = 0"),
        # A static model needs positions the random-waypoint scenario does not give.
        ("mobility.model", '"static"', 'mobility.model = "static"'),
    ],
)
def test_a_wireless_error_names_the_key_changed(key: str, value: str, want: str) -> None:
    manet = ROOT / "scenarios" / "manet-tcp.toml"
    r = sctplab("run", manet, "--set", f"{key}={value}")
    assert r.returncode == 2
    line = one_error_line(r)
    assert line.startswith(f"sctplab: error: --set {key}={value}: {key}: "), line
    assert want in line, line
    # The same change in the document itself (no override to point at): the message
    # still names the changed key.
    import tomllib

    doc = tomllib.loads(manet.read_text())
    if key == "nodes.n1.wlan":
        doc["nodes"][1]["wlan"] = 0
    else:
        doc["mobility"]["model"] = "static"
    with pytest.raises(api.ScenarioError) as e:
        api.run(doc)
    assert want in str(e.value), str(e.value)


# --- 4. one line, never a traceback ----------------------------------------------------


def test_seed_above_u64_is_one_line(example: Path) -> None:
    r = sctplab("run", example, "--seed", str(2**64))
    assert r.returncode == 2
    assert "--seed 18446744073709551616" in one_error_line(r)


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"scenario": ["a"]}, "UsageError", "expected a path, TOML text or a dict"),
        ({"seed": -1}, "UsageError", "--seed -1: expected an integer from 0"),
        ({"seed": 2**64}, "UsageError", "--seed 18446744073709551616"),
        ({"set": [("duration", "1s")]}, "UsageError", "set: expected a dict"),
    ],
)
def test_api_misuse_raises_the_one_line_errors(
    example: Path, kwargs: dict[str, object], error: str, text: str
) -> None:
    args: dict[str, object] = {"scenario": str(example), **kwargs}
    with pytest.raises(getattr(api, error)) as e:
        api.run(**args)  # type: ignore[arg-type]
    assert text in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["--scheduler", "notaurl"], "--scheduler notaurl: not a scheduler address"),
        (["--grid", "links.bottleneck.loss.rate=[NaN]"], "NaN and Infinity"),
        (["--grid", "links.bottleneck.loss.rate=[0.1,Infinity]"], "NaN and Infinity"),
        (["--seeds", str(10**20)], "runs one sweep plans"),
    ],
)
def test_sweep_bad_options_are_one_line(
    tmp_path: Path, example: Path, args: list[str], text: str
) -> None:
    store = tmp_path / "store"
    base = ["--seeds", "1"] if "--seeds" not in args else []
    r = sctplab("sweep", example, *base, *args, "--store", store)
    assert r.returncode == 2
    assert text in one_error_line(r)
    assert not (store / "catalog.sqlite").exists()


def _catalog(tmp_path: Path, content: bytes | None, sql: str | None = None) -> Path:
    store = tmp_path / "store"
    store.mkdir()
    if content is not None:
        (store / "catalog.sqlite").write_bytes(content)
    if sql is not None:
        conn = sqlite3.connect(store / "catalog.sqlite")
        conn.executescript(sql)
        conn.close()
    return store


@pytest.mark.parametrize(
    ("content", "sql"),
    [
        (b"this is not a database\n" * 10, None),
        (b"", None),
        (None, "CREATE TABLE photos (id INTEGER, data BLOB);"),
    ],
    ids=["corrupt", "empty", "foreign"],
)
def test_export_and_sweep_on_a_bad_catalog_are_one_line(
    tmp_path: Path, example: Path, content: bytes | None, sql: str | None
) -> None:
    store = _catalog(tmp_path, content, sql)
    r = sctplab("export", "--store", store, "--format", "csv")
    assert r.returncode == 2
    assert "not a sctplab catalog" in one_error_line(r)
    if content == b"":
        return  # an empty file is an empty database: a sweep may start a catalog in it
    before = (store / "catalog.sqlite").read_bytes()
    r = sctplab("sweep", example, "--seeds", "1", "--store", store)
    assert r.returncode == 2
    assert "not a sctplab catalog" in one_error_line(r)
    assert (store / "catalog.sqlite").read_bytes() == before, "another program's file untouched"


@pytest.mark.parametrize("column", ["overrides", "metrics", "host"])
def test_a_catalog_row_with_bad_json_is_one_line(
    tmp_path: Path, example: Path, column: str
) -> None:
    store = tmp_path / "store"
    r = sctplab("sweep", example, "--seeds", "1", "--store", store, "--quiet")
    assert r.returncode == 0, r.stderr
    conn = sqlite3.connect(store / "catalog.sqlite")
    conn.execute(f"UPDATE runs SET {column} = '{{not json'")
    conn.commit()
    conn.close()
    r = sctplab("export", "--store", store, "--format", "csv")
    assert r.returncode == 2
    line = one_error_line(r)
    assert f"`{column}` is not valid JSON" in line


@pytest.fixture(scope="module")
def tcp_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tcp") / "run"
    scen = ROOT / "scenarios" / "example-tcp.toml"
    r = sctplab("run", scen, "--out", out, "--trace", "ns2,sends,acks", "--series", "cwnd")
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.parametrize(
    ("name", "damage"),
    [
        ("series.parquet", lambda b: b[: len(b) // 2]),
        ("series.parquet", lambda b: b"PAR1" + b"\0" * 100),
        ("sends.csv", lambda b: b"time_s,flow\n1,2,3,4,5,6,7\n"),
        ("sends.csv", lambda b: b"\xff\xfe\x00garbage"),
        ("trace.tr", lambda b: b"+ 0.1 0 1 tcp\n" * 3),
        ("trace.tr", lambda b: b"\xff" * 50),
        ("summary.json", lambda b: b"[1, 2]"),
    ],
)
def test_plot_on_damaged_files_is_one_line(
    tmp_path: Path, tcp_run: Path, name: str, damage: Callable[[bytes], bytes]
) -> None:
    run = tmp_path / "run"
    shutil.copytree(tcp_run, run)
    (run / name).write_bytes(damage((run / name).read_bytes()))
    r = sctplab("plot", run)
    if r.returncode == 0:
        # A file damaged into another valid one is allowed to plot (or be skipped).
        assert r.stderr == ""
        return
    assert r.returncode == 2
    assert name in one_error_line(r)


# --- issue 29: data loss, tracebacks and smaller robustness items ----------------------


def _sweep_store(tmp_path: Path, example: Path) -> Path:
    store = tmp_path / "store"
    grid = 'links.bottleneck.delay=["20ms","40ms"]'
    r = sctplab("sweep", example, "--grid", grid, "--seeds", "2", "--store", store, "--quiet")
    assert r.returncode == 0, r.stderr
    return store


def _summaries(store: Path) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in (store / "runs").glob("*/*/summary.json")}


def test_a_sweep_on_a_store_without_its_catalog_adopts_the_runs(
    tmp_path: Path, example: Path
) -> None:
    store = _sweep_store(tmp_path, example)
    before = _summaries(store)
    assert len(before) == 4
    for name in ("catalog.sqlite", "catalog.sqlite-wal", "catalog.sqlite-shm"):
        (store / name).unlink(missing_ok=True)
    r = sctplab("export", "--store", store, "--format", "csv")
    assert r.returncode == 2 and "not a sctplab store" in one_error_line(r)
    grid = 'links.bottleneck.delay=["20ms","40ms"]'
    r = sctplab("sweep", example, "--grid", grid, "--seeds", "2", "--store", store)
    assert r.returncode == 0, r.stderr
    assert "4 already in" in r.stderr and "adopted 4 run folder(s)" in r.stderr, r.stderr
    assert _summaries(store) == before  # nothing deleted, nothing recomputed
    df = api.load(store)
    assert len(df) == 4 and set(df["run_id"]) == set(before)


def test_a_complete_folder_whose_row_was_never_committed_is_adopted(
    tmp_path: Path, example: Path
) -> None:
    # The driver killed between the folder's rename and the row's commit.
    store = _sweep_store(tmp_path, example)
    before = _summaries(store)
    run_id = sorted(before)[0]
    conn = sqlite3.connect(store / "catalog.sqlite")
    conn.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))
    conn.commit()
    conn.close()
    grid = 'links.bottleneck.delay=["20ms","40ms"]'
    r = sctplab("sweep", example, "--grid", grid, "--seeds", "2", "--store", store)
    assert r.returncode == 0, r.stderr
    assert "4 already in" in r.stderr and "adopted 1 run folder(s)" in r.stderr, r.stderr
    assert _summaries(store) == before


def test_a_movement_file_name_with_a_nul_byte_is_one_line(tmp_path: Path) -> None:
    manet = ROOT / "scenarios" / "manet-tcp.toml"
    r = sctplab("run", manet, "--set", 'mobility.file="moves\\u0000.tcl"', "--out", tmp_path / "r")
    assert r.returncode == 2
    line = one_error_line(r)
    assert line.startswith("sctplab: error: --set mobility.file=") and "NUL" in line, line
    # The same name written in the scenario file: the file is blamed.
    scen = tmp_path / "m.toml"
    text = manet.read_text().replace("[mobility]\n", '[mobility]\nfile = "moves\\u0000.tcl"\n')
    scen.write_text(text)
    r = sctplab("run", scen, "--out", tmp_path / "r2")
    assert r.returncode == 2
    line = one_error_line(r)
    assert line.startswith(f"sctplab: error: {scen}: mobility.file: ") and "NUL" in line, line


def test_a_movement_file_written_in_the_scenario_is_blamed_on_the_file(tmp_path: Path) -> None:
    manet = ROOT / "scenarios" / "manet-tcp.toml"
    scen = tmp_path / "m.toml"
    scen.write_text(manet.read_text().replace("[mobility]\n", '[mobility]\nfile = "gone.tcl"\n'))
    r = sctplab("run", scen, "--out", tmp_path / "r")
    assert r.returncode == 2
    line = one_error_line(r)
    assert line.startswith(f"sctplab: error: {scen}: mobility.file: "), line
    assert "--set" not in line


def test_a_fifo_as_movement_file_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "moves.tcl"
    os.mkfifo(fifo)
    manet = ROOT / "scenarios" / "manet-tcp.toml"
    r = subprocess.run(
        [*CLI, "run", str(manet), "--set", f"mobility.file={fifo}", "--out", str(tmp_path / "r")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 2
    assert "not a regular file" in one_error_line(r)


def test_an_override_is_blamed_for_the_window_it_breaks() -> None:
    manet = ROOT / "scenarios" / "manet-tcp.toml"
    r = sctplab("run", manet, "--set", "duration=60s")
    assert r.returncode == 2
    line = one_error_line(r)
    assert line.startswith("sctplab: error: --set duration=60s: "), line
    assert "measure.end" in line and "duration" in line


@pytest.mark.parametrize(
    ("grid", "text"),
    [
        ("x=" + "[" * 30_000 + "]" * 30_000, "nested too deeply"),
        ("x=[" + "9" * 5000 + "]", "not valid JSON"),
        ("x=[" + "9" * 30 + "]", "outside TOML's integer range"),
    ],
    ids=["30000-brackets", "5000-digits", "30-digits"],
)
def test_hostile_grid_values_are_one_line(
    tmp_path: Path, example: Path, grid: str, text: str
) -> None:
    r = sctplab("sweep", example, "--grid", grid, "--seeds", "1", "--store", tmp_path / "s")
    assert r.returncode == 2
    line = one_error_line(r)
    assert text in line and len(line) < 400, line


def test_bad_stores_and_outputs_exit_2(tmp_path: Path, example: Path) -> None:
    plain = tmp_path / "plain"
    plain.write_text("x")
    r = sctplab("sweep", example, "--seeds", "1", "--store", plain / "store")
    assert r.returncode == 2
    assert "cannot use as a store" in one_error_line(r)
    r = sctplab("run", example, "--out", plain / "run")
    assert r.returncode == 2
    assert "cannot write the run folder" in one_error_line(r)
    if Path("/dev/full").exists():
        manet = ROOT / "scenarios" / "manet-tcp.toml"
        r = sctplab("movement", manet, "--out", "/dev/full")
        assert r.returncode == 2
        assert "--out /dev/full: cannot write" in one_error_line(r)
        store = _sweep_store(tmp_path, example)
        r = sctplab("export", "--store", store, "--format", "csv", "--out", "/dev/full")
        assert r.returncode == 2
        assert "--out /dev/full: cannot write" in one_error_line(r)


@pytest.mark.parametrize(
    ("call", "error", "text"),
    [
        (lambda: api.run(_deep_dict(5000)), "ScenarioError", "nested too deeply"),
        (lambda: api.run("scen\0ario.toml"), "ScenarioError", "NUL byte"),
        (lambda: api.run(Path("/dev/zero")), "ScenarioError", "not a regular file"),
        (lambda: api.movement(TWO_NODES, seed=-5), "UsageError", "--seed -5"),
        (lambda: api.run(TWO_NODES, set={"duration": 10**5000}), "ScenarioError", "integer"),
        (lambda: api.run(TWO_NODES, set={"x": _deep_list(5000)}), "ScenarioError", "nested"),
        (lambda: api.sweep(TWO_NODES, {"x": range(10**12)}, 1), "UsageError", "values"),
    ],
    ids=["deep-dict", "nul-path", "dev-zero", "movement-seed", "huge-int", "deep-set", "range"],
)
def test_odd_api_calls_raise_sctplab_errors(
    call: Callable[[], object], error: str, text: str
) -> None:
    with pytest.raises(getattr(api, error)) as e:
        call()
    assert text in str(e.value) and "\n" not in str(e.value)


def test_api_out_on_a_regular_file_is_a_usage_error(tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_text("x")
    with pytest.raises(api.UsageError, match="cannot write the run folder"):
        api.run('duration = "1s"\n' + TWO_NODES, out=f)
    assert f.read_text() == "x"


def _deep_dict(n: int) -> dict[str, object]:
    d: dict[str, object] = {"a": 1}
    for _ in range(n):
        d = {"a": d}
    return d


def _deep_list(n: int) -> list[object]:
    v: list[object] = [1]
    for _ in range(n):
        v = [v]
    return v


def test_a_large_grid_reads_the_scenario_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # A 1000 x 1000 grid used to parse the scenario once per point (40 s of silence).
    from sctplab import runner, sweeps

    calls = []
    real = runner._core.mobility_file

    def counted(text: str) -> str | None:
        calls.append(1)
        return real(text)

    monkeypatch.setattr(runner._core, "mobility_file", counted)
    scen = 'duration = "1s"\n' + TWO_NODES
    grid = {"links.ab.delay": [f"{i}ms" for i in range(1, 101)], "seed_note": list(range(100))}
    _, _, _, runs = sweeps.plan(scen, grid, 1)
    assert len(runs) == 10_000
    assert len(calls) == 1


def test_a_sweep_blames_the_scenario_file_for_its_own_movement_file(tmp_path: Path) -> None:
    manet = ROOT / "scenarios" / "manet-tcp.toml"
    assert sctplab("movement", manet, "--out", tmp_path / "moves.tcl").returncode == 0
    scen = tmp_path / "m.toml"
    scen.write_text(manet.read_text().replace("[mobility]\n", '[mobility]\nfile = "moves.tcl"\n'))
    grid = 'wireless.width=["10m"]'  # the movement file's positions fall outside
    r = sctplab("sweep", scen, "--grid", grid, "--seeds", "1", "--jobs", "1",
                "--store", tmp_path / "s")  # fmt: skip
    assert r.returncode == 1
    (line,) = [x for x in r.stderr.splitlines() if "run failed" in x]
    assert f'wireless.width="10m" seed 1: {scen}: mobility.file: ' in line, line
    assert "--set" not in line


def test_a_damaged_folder_is_moved_aside_not_deleted(tmp_path: Path, example: Path) -> None:
    # Its row lost and its manifest damaged: it cannot be adopted, the run is computed
    # again, and the old folder stays beside the new one.
    store = _sweep_store(tmp_path, example)
    before = _summaries(store)
    run_id = sorted(before)[0]
    (folder,) = (store / "runs").glob(f"*/{run_id}")
    (folder / "manifest.json").write_text("{damaged")
    conn = sqlite3.connect(store / "catalog.sqlite")
    conn.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))
    conn.commit()
    conn.close()
    grid = 'links.bottleneck.delay=["20ms","40ms"]'
    r = sctplab("sweep", example, "--grid", grid, "--seeds", "2", "--store", store)
    assert r.returncode == 0, r.stderr
    assert "3 already in" in r.stderr and "kept 1 folder(s)" in r.stderr, r.stderr
    (aside,) = folder.parent.glob(f"{run_id}.kept-*")
    assert (aside / "manifest.json").read_text() == "{damaged"
    assert (folder / "summary.json").read_bytes() == before[run_id]  # deterministic
