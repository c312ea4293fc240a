"""The ns-2.35 oracle file of crates/sctplab-core/src/sat/ns2_check.rs is what ns-2.35's
satellite module prints for the project's Tcl beside it: the Rust test compares the
model's positions, inter-satellite links and terminal attachments with that file, so
together they compare the model with ns-2.35."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

TESTDATA = Path(__file__).resolve().parent.parent / "crates/sctplab-core/src/sat/testdata"


def test_stored_output_is_what_ns2_prints(tmp_path: Path) -> None:
    ns = shutil.which("ns")
    if ns is None:
        pytest.skip("ns-2.35 (ns) not installed")
    script = tmp_path / "ns2_polar.tcl"
    shutil.copy(TESTDATA / "ns2_polar.tcl", script)
    done = subprocess.run(
        [ns, script.name], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=True
    )
    stored = (TESTDATA / "ns2_polar.out").read_text()
    assert done.stdout == stored
    assert stored.count("Dumped satellites at time") == 64
