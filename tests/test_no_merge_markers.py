"""No tracked text file keeps a merge's conflict markers (session 16 left one in
bench/RESULTS.md for a session; a committed marker is invisible to every other test)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^(<{7}|>{7}) ", re.M)


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [REPO / p for p in out.decode().split("\0") if p]


def test_no_conflict_markers_in_tracked_text() -> None:
    bad: list[str] = []
    for path in _tracked():
        if not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary (pcap, PNG)
        text = data.decode("utf-8", errors="replace")
        for m in MARKER.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            bad.append(f"{path.relative_to(REPO)}:{line}")
    assert not bad, "conflict markers left by a merge: " + ", ".join(bad)
