"""`sctplab plot RUN_DIR`: PNGs from whatever the run folder holds."""

from __future__ import annotations

import struct
from pathlib import Path

import pandas as pd
import pytest
from conftest import SCENARIOS, sctplab

import sctplab as api
from sctplab.plots import _bins

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from the IHDR chunk, after checking the signature."""
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC, f"{path.name} is not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_tcp_run_gives_all_three_plots(tmp_path: Path) -> None:
    out = tmp_path / "tcp"
    r = sctplab(
        "run",
        SCENARIOS / "example-tcp.toml",
        "--set",
        "duration=20s",
        "--out",
        out,
        "--trace",
        "sends,acks",
        "--series",
        "cwnd,ssthresh",
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    r = sctplab("plot", out)
    assert r.returncode == 0, r.stderr
    names = ["cwnd.png", "sequence.png", "throughput.png"]
    assert r.stdout.splitlines() == [f"wrote {out / n}" for n in names]
    for name in names:
        width, height = png_size(out / name)
        # 9 in wide at 120 dpi; two flows stacked make the per-flow figures taller.
        assert width == 1080 and height > 400, (name, width, height)


def test_missing_files_skip_their_plot_with_a_note(tmp_path: Path) -> None:
    out = tmp_path / "cbr"
    r = sctplab("run", SCENARIOS / "example-cbr.toml", "--out", out, "--trace", "ns2", "--quiet")
    assert r.returncode == 0, r.stderr
    result = api.plot(out)
    # trace.tr alone: throughput only (from the trace); cwnd and sequence need files
    # this run did not write.
    assert result.written == [out / "throughput.png"]
    assert [n.split(":")[0] for n in result.skipped] == ["cwnd.png skipped", "sequence.png skipped"]
    assert all("\n" not in n for n in result.skipped)
    png_size(out / "throughput.png")
    assert not (out / "cwnd.png").exists() and not (out / "sequence.png").exists()

    r = sctplab("plot", out)
    assert r.returncode == 0
    assert "cwnd.png skipped: no series.parquet (run with --series cwnd,ssthresh)" in r.stdout


def test_not_a_run_folder_is_exit_2(tmp_path: Path) -> None:
    for target in (tmp_path, tmp_path / "missing"):
        r = sctplab("plot", target)
        assert r.returncode == 2
        assert r.stderr.strip() == f"sctplab: error: {target}: not a run folder (no summary.json)"
    with pytest.raises(api.UsageError, match="not a run folder"):
        api.plot(tmp_path)


def test_throughput_bins_are_exact_on_bin_edges() -> None:
    # A 64 kb/s CBR flow of 160-byte packets sends every 20 ms, at 0.00, 0.02, ...:
    # every 0.1 s bin holds exactly 5 packets = 800 B, even though 0.3 is not a float
    # multiple of 0.1 (0.1 * 3 = 0.30000000000000004).
    times = pd.Series([round(0.02 * k, 9) for k in range(50)])
    edges, totals = _bins(times, pd.Series([160.0] * 50), end=1.0)
    assert list(totals) == [800.0] * 10
    assert len(edges) == 11 and edges[-1] == pytest.approx(1.0)


def test_multihoming_run_gives_per_destination_plot(tmp_path: Path) -> None:
    # The example's primary link is down from 20 s to 100 s: the plot needs two
    # destinations in sends.csv's dest column; paths.png draws them with the faults.
    out = tmp_path / "mh"
    r = sctplab(
        "run",
        SCENARIOS / "example-multihoming.toml",
        "--out",
        out,
        "--trace",
        "sends",
        "--series",
        "cwnd,state",
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    sends = pd.read_csv(out / "sends.csv")
    assert set(sends["dest"]) == {"h2:eth0", "h2:eth1"}
    series = pd.read_parquet(out / "series.parquet")
    assert {"sctp1@h2:eth0", "sctp1@h2:eth1"} <= set(series["entity"].astype(str))
    result = api.plot(out)
    names = [p.name for p in result.written]
    assert "paths.png" in names and "cwnd.png" in names, result
    w, h = png_size(out / "paths.png")
    assert w > 500 and h > 200
    # A single-homed run has one destination: no paths.png, and no note about it.
    single = tmp_path / "single"
    r = sctplab(
        "run",
        SCENARIOS / "example-sctp.toml",
        "--out",
        single,
        "--trace",
        "sends",
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    assert "paths.png" not in [p.name for p in api.plot(single).written]
