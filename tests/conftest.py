from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


def sctplab(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs the installed CLI as a user would."""
    exe = shutil.which("sctplab")
    cmd = [exe] if exe else [sys.executable, "-m", "sctplab.cli"]
    return subprocess.run(
        [*cmd, *map(str, args)], capture_output=True, text=True, cwd=cwd, check=False
    )


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", help="also run tests marked slow")
    parser.addoption(
        "--runintermittent",
        action="store_true",
        help="also run tests marked intermittent (known to fail some runs; cause open)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not (config.getoption("--runintermittent") or os.environ.get("SCTPLAB_INTERMITTENT") == "1"):
        why = "intermittent: use --runintermittent or SCTPLAB_INTERMITTENT=1"
        for item in items:
            if "intermittent" in item.keywords:
                item.add_marker(pytest.mark.skip(reason=why))
    if config.getoption("--runslow") or os.environ.get("SCTPLAB_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow: use --runslow or SCTPLAB_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def example() -> Path:
    return SCENARIOS / "example-cbr.toml"


def require_tshark() -> str:
    exe = shutil.which("tshark")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("tshark is required in CI (scripts/test.sh installs it)")
        pytest.skip("tshark not installed")
    return exe
