"""Building and running sctplab's own ns-3.37 programs (package data, python/sctplab/ns3/)
against Debian's `libns3-dev`, so `sctplab validate ns3` can compare with them. ns-3 is an
oracle for validation only: nothing in a normal run depends on it.

The programs are compiled once into a build cache keyed by everything the binary depends
on (the sources, the compiler and its version, the flags, ns-3's version); a second
validation with the same cache reuses the binary."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

# The ns-3 modules the programs use (pkg-config names).
MODULES = (
    "ns3-core",
    "ns3-network",
    "ns3-internet",
    "ns3-point-to-point",
    "ns3-applications",
    "ns3-traffic-control",
)
# The one binary (main.cc includes the programs, so ns-3's headers are parsed once) and
# every file it is built from; its first argument picks the program.
BINARY = "sctplab-ns3"
SOURCES = ("main.cc", "dumbbell.cc", "aqm_dumbbell.cc", "lab_app.h", "lab_controllers.h")
PROGRAMS = ("dumbbell", "aqm")


def source(name: str) -> Path:
    """Path of a shipped ns-3 source file (package data)."""
    return Path(str(resources.files("sctplab.ns3") / name))


def _compiler() -> str | None:
    return os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")


def ns3_version() -> str | None:
    """ns-3's version as pkg-config reports it, None when ns-3 (libns3-dev) or
    pkg-config is missing."""
    if shutil.which("pkg-config") is None:
        return None
    r = subprocess.run(
        ["pkg-config", "--modversion", MODULES[0]], capture_output=True, text=True, check=False
    )
    return (r.stdout.strip() or None) if r.returncode == 0 else None


def missing() -> str | None:
    """Why the ns-3 programs cannot be built here, or None if they can."""
    if ns3_version() is None:
        return (
            "ns-3 is not installed (Debian packages ns3 and libns3-dev: "
            "apt-get install ns3 libns3-dev)"
        )
    if _compiler() is None:
        return "no C++ compiler (Debian package g++)"
    return None


def _flags() -> list[str]:
    """Compiler and linker flags from pkg-config, less what does not exist here: Debian's
    ns3 .pc files name `-I/usr\\;` and the unversioned libgsl.so of libgsl-dev, which
    libns3-dev does not pull in (the ns-3 libraries find the versioned one themselves)."""
    r = subprocess.run(
        ["pkg-config", "--cflags", "--libs", *MODULES], capture_output=True, text=True, check=True
    )
    out: list[str] = []
    for tok in shlex.split(r.stdout):
        if tok.startswith(("-I", "-L")) and not Path(tok[2:]).is_dir():
            continue
        if tok.startswith("/") and not Path(tok).exists():
            continue
        if tok not in out or not tok.startswith("-l"):
            out.append(tok)
    return out


def _compiler_id(cxx: str) -> str:
    r = subprocess.run([cxx, "--version"], capture_output=True, text=True, check=False)
    return r.stdout.splitlines()[0] if r.stdout else cxx


@dataclass
class Build:
    """The compiled binary and what building it cost (0 s when the cache had it)."""

    binary: Path
    compile_s: float
    cached: bool


def build(cache: Path) -> Build:
    """Compiles the programs into `cache`, unless a binary built from the same sources,
    compiler, flags and ns-3 version is there already."""
    why = missing()
    if why is not None:
        raise FileNotFoundError(why)
    cxx = _compiler()
    assert cxx is not None
    flags = _flags()
    std = ["-std=c++17", "-O2"]
    h = hashlib.sha256()
    for part in (_compiler_id(cxx), str(ns3_version()), json.dumps(std + flags)):
        h.update(part.encode() + b"\0")
    for name in SOURCES:
        h.update(name.encode() + b"\0" + source(name).read_bytes() + b"\0")
    folder = cache / h.hexdigest()[:16]
    binary = folder / BINARY
    if binary.exists():
        return Build(binary, 0.0, True)
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(dir=folder) as t:
        tmp = Path(t) / BINARY
        r = subprocess.run(
            [cxx, *std, "-o", str(tmp), str(source(SOURCES[0])), *flags],
            capture_output=True,
            text=True,
            check=False,
        )
        if r.returncode != 0:
            tail = "\n".join(r.stderr.strip().splitlines()[-15:])
            raise RuntimeError(f"compiling the ns-3 programs failed:\n{tail}")
        tmp.replace(binary)  # atomic: a concurrent build never sees half a binary
    return Build(binary, time.monotonic() - t0, False)


def run(binary: Path, program: str, args: dict[str, Any]) -> dict[str, Any]:
    """Runs `program` (one of PROGRAMS) of the built binary with `--key=value`
    arguments; returns its JSON line."""
    argv = [str(binary), program]
    for k, v in args.items():
        val = str(int(v)) if isinstance(v, bool) else str(v)
        argv.append(f"--{k}={val}")
    r = subprocess.run(argv, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)} failed ({r.returncode}): {r.stderr.strip()}")
    result: dict[str, Any] = json.loads(r.stdout.strip().splitlines()[-1])
    return result
