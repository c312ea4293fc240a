"""The ns-2.35 oracle files of crates/sctplab-core/src/sat/ns2_check.rs are what ns-2.35's
satellite module prints for the project's Tcl beside them (scripts/sat_ns2_oracle.py): the
Rust tests compare the model's positions, inter-satellite links, terminal attachments,
routes and one-way delays with those files, so together they compare the model with
ns-2.35."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "crates/sctplab-core/src/sat/testdata"


def _oracle() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "sat_ns2_oracle", ROOT / "scripts/sat_ns2_oracle.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def ns() -> str:
    exe = shutil.which("ns")
    if exe is None:
        pytest.skip("ns-2.35 (ns) not installed")
    return exe


def test_stored_dumps_are_what_ns2_prints(ns: str, tmp_path: Path) -> None:
    stored = (TESTDATA / "ns2_polar.out").read_text()
    assert _oracle().polar_dumps(ns, tmp_path) == stored
    assert stored.count("Dumped satellites at time") == 64


def test_stored_paths_are_what_ns2_traces(ns: str, tmp_path: Path) -> None:
    stored = (TESTDATA / "ns2_delay.txt").read_text()
    assert _oracle().delay_paths(ns, tmp_path) == stored
    assert len(stored.splitlines()) == 836
