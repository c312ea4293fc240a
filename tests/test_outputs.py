"""What a run records: summary.json does not depend on it, `--max-output` bounds it,
and a replayed movement file's copy cannot clash with the run's own files (issues 29
and 30)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import SCENARIOS, sctplab

import sctplab as api
from sctplab import _core

MANET_SHORT = [
    "--set",
    "duration=25s",
    "--set",
    "measure.end=25s",
    "--set",
    "flows.transport.stop=25s",
]


def test_summary_does_not_depend_on_what_is_recorded(tmp_path: Path) -> None:
    example = SCENARIOS / "example-sctp.toml"
    plain, recorded = tmp_path / "plain", tmp_path / "recorded"
    assert sctplab("run", example, "--out", plain, "--quiet").returncode == 0
    r = sctplab(
        "run",
        example,
        "--out",
        recorded,
        "--quiet",
        "--pcap",
        "--trace",
        "ns2,sends,acks",
        "--series",
        "cwnd,flight,queue",
    )
    assert r.returncode == 0, r.stderr
    assert (recorded / "series.parquet").is_file() and (recorded / "trace.tr").is_file()
    assert (plain / "summary.json").read_bytes() == (recorded / "summary.json").read_bytes()


def test_max_output_stops_the_run_with_one_line_and_keeps_the_files(tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = sctplab(
        "run",
        SCENARIOS / "example-cbr.toml",
        "--out",
        out,
        "--quiet",
        "--pcap",
        "--trace",
        "ns2",
        "--max-output",
        "20KB",
    )
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("sctplab: error: --max-output 20.0 kB: "), lines[0]
    assert " s of 10 s simulated" in lines[0] and "raise --max-output" in lines[0]
    # The folder says the run did not finish, and keeps what it wrote.
    assert not (out / "summary.json").exists()
    run = json.loads((out / "run.json").read_text())
    assert run["complete"] is False and run["status"] == "failed"
    assert "--max-output" in run["error"]
    # Whole records up to the one that passed the cap (packets here are at most 1,500
    # bytes: a pcap record of 16 + 1,500 bytes, or one line of text), then nothing.
    written = sum(p.stat().st_size for p in out.rglob("*") if p.suffix in (".pcap", ".tr"))
    assert 20_000 < written < 20_000 + 16 + 1_500


@pytest.mark.parametrize("bad", ["5", "lots", "-1MB", "5Mb"])
def test_a_bad_max_output_is_one_line(tmp_path: Path, bad: str) -> None:
    r = sctplab(
        "run", SCENARIOS / "example-sctp.toml", "--out", tmp_path / "r", "--max-output", bad
    )
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "--max-output" in lines[0] and "500MB" in lines[0], r.stderr


def test_the_python_api_takes_max_output(tmp_path: Path) -> None:
    example = SCENARIOS / "example-sctp.toml"
    with pytest.raises(_core.UsageError, match="--max-output"):
        api.run(example, out=tmp_path / "a", pcap=True, max_output="1KB")
    with pytest.raises(_core.UsageError, match="--max-output"):
        api.run(example, out=tmp_path / "b", pcap=True, max_output=1.5)  # type: ignore[arg-type]
    under = api.run(example, out=tmp_path / "c", pcap=True, max_output=10**9)
    assert under.summary == api.run(example).summary


@pytest.mark.parametrize("name", ["trace.tr", "summary.json", "scenario.toml", "run.json", "pcap"])
def test_any_movement_file_name_gives_a_repeatable_run_folder(tmp_path: Path, name: str) -> None:
    manet = SCENARIOS / "manet-tcp.toml"
    src = tmp_path / "src"
    src.mkdir()
    moves = src / name
    r = sctplab("movement", manet, "--seed", "3", "--out", moves, *MANET_SHORT)
    assert r.returncode == 0, r.stderr
    text = moves.read_text()
    out = tmp_path / "run"
    args = ["--seed", "3", "--quiet", "--pcap", "--trace", "ns2", *MANET_SHORT]
    r = sctplab("run", manet, "--out", out, *args, "--set", f"mobility.file={name}", cwd=src)
    assert r.returncode == 0, r.stderr
    # The run's own files are the run's, the movement file's copy is under inputs/.
    assert (out / "inputs" / name).read_text() == text
    assert (out / "trace.tr").read_text().startswith(("s ", "r ", "f ", "D ", "M "))
    assert (out / "pcap" / "n0-wlan0.pcap").is_file()
    json.loads((out / "run.json").read_text())
    summary = json.loads((out / "summary.json").read_text())
    resolved = (out / "scenario.toml").read_text()
    assert f'file = "inputs/{name}"' in resolved
    # Repeated from the folder alone, elsewhere and after the original is gone.
    shutil.rmtree(src)
    again = tmp_path / "again"
    r = sctplab("run", out / "scenario.toml", "--out", again, *args)
    assert r.returncode == 0, r.stderr
    repeated = json.loads((again / "summary.json").read_text())
    summary.pop("scenario")
    repeated.pop("scenario")
    assert summary == repeated
