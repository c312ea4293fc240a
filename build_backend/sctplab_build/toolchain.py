"""The Rust toolchain check every build starts with: one line naming rustup when rustc is
missing or older than the workspace's `rust-version`, instead of a page of compiler
errors (Debian 12's apt has rustc 1.63; the crates use edition 2024, Rust 1.85)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

MINIMUM = (1, 85)
RUSTUP = "install a current toolchain with rustup (https://rustup.rs), then run pip again"


def rustc_version(rustc: str) -> tuple[int, int] | None:
    """(major, minor) of `rustc --version`, None when it cannot be run or read."""
    try:
        out = subprocess.run(
            [rustc, "--version"], capture_output=True, text=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.match(r"rustc (\d+)\.(\d+)", out)
    return (int(m[1]), int(m[2])) if m else None


def problem(rustc: str | None = None) -> str | None:
    """Why this machine cannot build sctplab's core, in one line; None when it can.

    Without cargo at all, maturin's own hook asks pip for `puccinialin`, which fetches a
    current toolchain for the build: that case is maturin's (MATURIN_NO_INSTALL_RUST
    turns it off, and then the missing rustc is ours to report)."""
    if (
        rustc is None
        and not shutil.which("cargo")
        and not os.environ.get("MATURIN_NO_INSTALL_RUST")
    ):
        return None
    rustc = rustc or os.environ.get("RUSTC", "rustc")
    need = ".".join(map(str, MINIMUM))
    version = rustc_version(rustc)
    if version is None:
        return f"sctplab needs Rust {need} or newer and `{rustc} --version` did not run: {RUSTUP}"
    if version < MINIMUM:
        have = ".".join(map(str, version))
        return f"sctplab needs Rust {need} or newer, {rustc} is {have}: {RUSTUP}"
    return None


def check() -> None:
    """Exits the build hook with the one line when the toolchain cannot build sctplab
    (pip shows the hook's output)."""
    reason = problem()
    if reason is not None:
        print(f"error: {reason}", file=sys.stderr, flush=True)
        raise SystemExit(1)
