"""Robustness (issue 13): runs that never end, Ctrl-C, crashes on huge inputs, and one
line (no traceback) for every bad input of every command."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest
from conftest import sctplab

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
    'duration = "100000s"\n'
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
    grid = 'duration=["1s","100000s"]'
    r = sctplab(
        "sweep", scen, "--grid", grid, "--seeds", "1", "--jobs", "2", "--store", store,
        "--run-timeout", "0.5",
    )  # fmt: skip
    assert r.returncode == 1, r.stderr
    assert "1 run(s) done, 1 failed" in r.stdout
    failed = [line for line in r.stderr.splitlines() if "run failed" in line]
    assert len(failed) == 1 and 'duration="100000s"' in failed[0] and "timed out" in failed[0]
    conn = sqlite3.connect(store / "catalog.sqlite")
    rows = conn.execute("SELECT status, error FROM runs ORDER BY status").fetchall()
    conn.close()
    assert [s for s, _ in rows] == ["failed", "ok"]
    assert rows[0][1].startswith("timed out:") and "\n" not in rows[0][1]


def test_python_sweep_run_timeout(tmp_path: Path) -> None:
    df = api.sweep(
        BUSY, {"duration": ["1s", "100000s"]}, 1, jobs=1, store=tmp_path / "s", run_timeout=0.5
    )
    by = dict(zip(df["duration"], df["status"], strict=True))
    assert by == {"1s": "ok", "100000s": "failed"}
    with pytest.raises(api.UsageError, match="--run-timeout"):
        api.sweep(BUSY, {}, 1, store=tmp_path / "s2", run_timeout=-1)
