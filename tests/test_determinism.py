"""Same scenario and seed: byte-identical summary.json and pcap files."""

from __future__ import annotations

from pathlib import Path

from conftest import sctplab


def test_two_runs_are_byte_identical(example: Path, tmp_path: Path) -> None:
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        r = sctplab("run", example, "--seed", "3", "--out", out, "--pcap", "--trace", "ns2")
        assert r.returncode == 0, r.stderr
    a, b = outs
    assert (a / "summary.json").read_bytes() == (b / "summary.json").read_bytes()
    assert (a / "trace.tr").read_bytes() == (b / "trace.tr").read_bytes()
    pcaps = sorted(p.name for p in (a / "pcap").iterdir())
    assert pcaps
    for name in pcaps:
        assert (a / "pcap" / name).read_bytes() == (b / "pcap" / name).read_bytes(), name


def test_another_seed_changes_the_losses(example: Path, tmp_path: Path) -> None:
    for seed in ("1", "2"):
        assert sctplab("run", example, "--seed", seed, "--out", tmp_path / seed).returncode == 0
    a = (tmp_path / "1" / "summary.json").read_bytes()
    b = (tmp_path / "2" / "summary.json").read_bytes()
    assert a != b
