"""The profile-guided build's training list and flag handling (build_backend/sctplab_build).

A training run that stops loading (a scenario renamed, a key gone) would make every
install fall back to the plain build without a word in pip's default output; these tests
catch it instead.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sctplab import _core

ROOT = Path(__file__).resolve().parent.parent
# The modules themselves, not the package: its __init__ imports maturin, which only the
# isolated build environment has.
sys.path.insert(0, str(ROOT / "build_backend" / "sctplab_build"))

import pgo  # noqa: E402
import train  # noqa: E402


def test_parse_runs_reads_seed_sets_and_comments():
    text = (
        "# a comment line\n"
        "\n"
        "scenarios/a.toml\n"
        "scenarios/b.toml --seed 3 --set links.r1.bandwidth=8Mb --set x=y=z  # trailing\n"
    )
    assert train.parse_runs(text) == [
        ("scenarios/a.toml", 1, []),
        ("scenarios/b.toml", 3, [("links.r1.bandwidth", "8Mb"), ("x", "y=z")]),
    ]


@pytest.mark.parametrize("line", ["s.toml --seed", "s.toml --set novalue", "s.toml --sed 2"])
def test_parse_runs_rejects_bad_options(line):
    with pytest.raises(ValueError, match="line 1"):
        train.parse_runs(line)


def test_every_training_run_loads():
    runs = train.parse_runs(pgo.TRAINING.read_text())
    assert len(runs) >= 5
    for path, _seed, sets in runs:
        scenario = ROOT / path
        assert scenario.is_file(), path
        name, _resolved = _core.resolve(
            scenario.read_text(), source=path, default_name=scenario.stem, sets=sets
        )
        assert name


def test_rustflags_keep_the_users():
    env = pgo.with_rustflags({"RUSTFLAGS": "-Ctarget-cpu=native"}, ["-Cprofile-use=/p"])
    assert env["RUSTFLAGS"] == "-Ctarget-cpu=native -Cprofile-use=/p"
    assert pgo.with_rustflags({}, ["-Cprofile-use=/p"])["RUSTFLAGS"] == "-Cprofile-use=/p"
    encoded = pgo.with_rustflags({"CARGO_ENCODED_RUSTFLAGS": "-C\x1fopt-level=3"}, ["-Cx"])
    assert encoded["CARGO_ENCODED_RUSTFLAGS"] == "-C\x1fopt-level=3\x1f-Cx"
    assert "RUSTFLAGS" not in encoded


# ---- the toolchain check (build_backend/sctplab_build/toolchain.py)

import toolchain  # noqa: E402


def _fake_rustc(tmp_path: Path, output: str) -> str:
    exe = tmp_path / "rustc"
    exe.write_text(f"#!/bin/sh\necho '{output}'\n")
    exe.chmod(0o755)
    return str(exe)


@pytest.mark.parametrize(
    ("output", "ok"),
    [
        ("rustc 1.63.0 (4b91a6ea7 2022-08-08)", False),  # Debian 12's apt
        ("rustc 1.84.1 (e71f9a9a9 2025-01-27)", False),
        ("rustc 1.85.0 (4d91de4e4 2025-02-17)", True),
        ("rustc 1.91.0-nightly (abc 2025-09-01)", True),
        ("rustc 2.0.0", True),
    ],
)
def test_rust_version_check(tmp_path: Path, output: str, ok: bool) -> None:
    reason = toolchain.problem(_fake_rustc(tmp_path, output))
    if ok:
        assert reason is None
    else:
        assert reason is not None and "\n" not in reason
        assert "Rust 1.85 or newer" in reason and "rustup" in reason
        assert output.split()[1].rsplit(".", 1)[0] in reason


def test_rust_check_without_a_rustc(tmp_path: Path) -> None:
    reason = toolchain.problem(str(tmp_path / "no-such-rustc"))
    assert reason is not None and "did not run" in reason and "rustup" in reason
