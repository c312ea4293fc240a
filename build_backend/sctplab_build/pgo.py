"""Profile-guided optimisation (PGO) of the extension that `pip install .` builds.

The release build is built a first time instrumented (`-Cprofile-generate`), the runs of
`training.txt` go through that extension, `llvm-profdata` merges their counters, and the
wheel is then built with `-Cprofile-use`. The profile has to come from the extension
itself: Rust's symbol names carry a hash of the crate's build (features of its
dependencies included), and `sctplab-core` built for `core_run` hashes differently, so a
profile gathered there would match none of the core's functions here.

PGO is an optimisation only: when `SCTPLAB_PGO=0`, when `llvm-profdata` is missing (and
`rustup component add llvm-tools` cannot fetch it) or when any step fails, the plain
release build is made, with one line saying why.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

TRAINING = Path(__file__).with_name("training.txt")
TRAIN_SCRIPT = Path(__file__).with_name("train.py")
# rustup's download of llvm-tools (about 30 MB); a machine without network gives up here.
RUSTUP_TIMEOUT_S = 300
TRAIN_TIMEOUT_S = 600
OFF_VALUES = {"0", "off", "no", "false"}

BuildWheel = Callable[[str, Mapping[str, Any] | None, str | None], str]


class PgoUnavailable(Exception):
    """PGO cannot be done here; the message says why (one line)."""


def say(message: str) -> None:
    print(f"sctplab build: {message}", file=sys.stderr, flush=True)


def pgo_dir() -> Path:
    """Where the instrumented build, the raw counters and the profile live."""
    return Path(os.environ.get("CARGO_TARGET_DIR", "target")).resolve() / "pgo"


def llvm_profdata() -> Path:
    """The `llvm-profdata` of the toolchain that builds (it must read rustc's LLVM's
    profiles: a system LLVM is often older); fetches llvm-tools with rustup if needed."""
    override = os.environ.get("LLVM_PROFDATA")
    if override:
        if not Path(override).is_file():
            raise PgoUnavailable(f"LLVM_PROFDATA={override} is not a file")
        return Path(override)
    rustc = os.environ.get("RUSTC", "rustc")
    try:
        sysroot = subprocess.run(
            [rustc, "--print", "sysroot"], capture_output=True, text=True, check=True
        ).stdout.strip()
        host = next(
            line.split(":", 1)[1].strip()
            for line in subprocess.run(
                [rustc, "-vV"], capture_output=True, text=True, check=True
            ).stdout.splitlines()
            if line.startswith("host:")
        )
    except (OSError, subprocess.CalledProcessError, StopIteration) as e:
        raise PgoUnavailable(f"cannot ask {rustc} for its sysroot ({e})") from e
    tool = Path(sysroot) / "lib" / "rustlib" / host / "bin" / "llvm-profdata"
    if tool.is_file():
        return tool
    if shutil.which("rustup") is None:
        raise PgoUnavailable("llvm-profdata missing and no rustup to add llvm-tools")
    try:
        subprocess.run(
            ["rustup", "component", "add", "llvm-tools"],
            capture_output=True,
            check=True,
            timeout=RUSTUP_TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError) as e:
        raise PgoUnavailable(
            f"llvm-profdata missing, `rustup component add llvm-tools` failed ({type(e).__name__})"
        ) from e
    if not tool.is_file():
        raise PgoUnavailable(f"llvm-profdata not at {tool} after adding llvm-tools")
    return tool


def with_rustflags(env: Mapping[str, str], flags: list[str]) -> dict[str, str]:
    """`env` with `flags` added to the Rust flags the user set (cargo reads
    CARGO_ENCODED_RUSTFLAGS first, RUSTFLAGS otherwise)."""
    out = dict(env)
    if out.get("CARGO_ENCODED_RUSTFLAGS"):
        out["CARGO_ENCODED_RUSTFLAGS"] = "\x1f".join([out["CARGO_ENCODED_RUSTFLAGS"], *flags])
    else:
        out["RUSTFLAGS"] = " ".join([*out.get("RUSTFLAGS", "").split(), *flags])
    return out


@contextlib.contextmanager
def environment(env: Mapping[str, str]) -> Iterator[None]:
    """Runs the block with `env` as os.environ (maturin's backend passes its own on)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_build(
    build: BuildWheel,
    env: Mapping[str, str],
    wheel_dir: str,
    config_settings: Mapping[str, Any] | None,
    metadata_directory: str | None,
) -> str:
    """maturin's build_wheel under `env`; a failed build raises instead of exiting."""
    with environment(env):
        try:
            return build(wheel_dir, config_settings, metadata_directory)
        except SystemExit as e:
            raise RuntimeError(f"maturin exited with {e.code}") from e


def extension_in(wheel: Path) -> Path:
    """Unpacks the wheel's `sctplab/_core` library beside it."""
    with zipfile.ZipFile(wheel) as z:
        names = [
            n
            for n in z.namelist()
            if Path(n).name.startswith("_core.") and n.endswith((".so", ".pyd"))
        ]
        if len(names) != 1:
            raise RuntimeError(f"{wheel.name}: expected one _core library, found {names}")
        return Path(z.extract(names[0], wheel.parent / "unpacked"))


def profile(build: BuildWheel, profdata: Path, config_settings: Mapping[str, Any] | None) -> Path:
    """Builds the instrumented extension, trains it and returns the merged profile."""
    root = pgo_dir()
    raw = root / "raw"
    env = with_rustflags(os.environ, [f"-Cprofile-generate={raw}"])
    env["CARGO_TARGET_DIR"] = str(root / "gen")
    say("PGO: building the instrumented extension")
    with tempfile.TemporaryDirectory() as tmp:
        wheel = Path(tmp) / run_build(build, env, tmp, config_settings, None)
        extension = extension_in(wheel)
        # Counters differ a little from one training to the next (hash-map seeds), and a
        # new profile rebuilds everything: train again only for a new extension or list.
        key = hashlib.sha256(extension.read_bytes() + TRAINING.read_bytes()).hexdigest()
        merged = root / "sctplab.profdata"
        stamp = root / "sctplab.profdata.key"
        if merged.is_file() and stamp.is_file() and stamp.read_text() == key:
            say("PGO: extension and training list unchanged, profile reused")
            return merged
        # Build scripts and proc macros of the instrumented build wrote counters too.
        shutil.rmtree(raw, ignore_errors=True)
        raw.mkdir(parents=True)
        say(f"PGO: training ({TRAINING.name})")
        start = time.monotonic()
        subprocess.run(
            [sys.executable, str(TRAIN_SCRIPT), str(extension), str(TRAINING)],
            env={**os.environ, "LLVM_PROFILE_FILE": str(raw / "train-%p.profraw")},
            check=True,
            timeout=TRAIN_TIMEOUT_S,
        )
        say(f"PGO: trained in {time.monotonic() - start:.1f} s")
    counters = sorted(raw.glob("*.profraw"))
    if not counters:
        raise RuntimeError("training wrote no profile")
    subprocess.run(
        [str(profdata), "merge", "-o", str(merged), *map(str, counters)],
        capture_output=True,
        check=True,
    )
    stamp.write_text(key)
    return merged


def build_wheel(
    build: BuildWheel,
    wheel_directory: str,
    config_settings: Mapping[str, Any] | None,
    metadata_directory: str | None,
) -> str:
    """maturin's build_wheel, profile-guided when possible, plain otherwise."""
    plain = dict(os.environ)
    try:
        if os.environ.get("SCTPLAB_PGO", "1").lower() in OFF_VALUES:
            raise PgoUnavailable("SCTPLAB_PGO=0")
        merged = profile(build, llvm_profdata(), config_settings)
    except PgoUnavailable as e:
        say(f"PGO off ({e}): plain release build")
        return run_build(build, plain, wheel_directory, config_settings, metadata_directory)
    except (OSError, RuntimeError, subprocess.SubprocessError) as e:
        say(f"PGO failed ({type(e).__name__}: {e}): plain release build")
        return run_build(build, plain, wheel_directory, config_settings, metadata_directory)
    env = with_rustflags(plain, [f"-Cprofile-use={merged}"])
    env["CARGO_TARGET_DIR"] = str(pgo_dir() / "use")
    say(f"PGO: building the extension with {merged}")
    try:
        return run_build(build, env, wheel_directory, config_settings, metadata_directory)
    except RuntimeError as e:
        say(f"PGO build failed ({e}): plain release build")
        return run_build(build, plain, wheel_directory, config_settings, metadata_directory)
