"""sctplab's PEP 517 backend: maturin's, with a profile-guided build of the wheel.

Every hook is maturin's, and sdists and editable installs are plain builds, but
`build_wheel` is profile-guided: see pgo.py, and SCTPLAB_PGO=0 to turn it off.
The first hooks pip calls for a wheel or an editable install (requirements, metadata:
the latter runs cargo) check the Rust toolchain first (toolchain.py), so a too-old
rustc gives one line, not a cargo or compiler error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import maturin
from maturin import build_editable, build_sdist, get_requires_for_build_sdist

from sctplab_build import pgo, toolchain

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]


def build_wheel(
    wheel_directory: str,
    config_settings: Mapping[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    return pgo.build_wheel(
        maturin.build_wheel, wheel_directory, config_settings, metadata_directory
    )


def get_requires_for_build_wheel(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    toolchain.check()
    return list(maturin.get_requires_for_build_wheel(config_settings))


def get_requires_for_build_editable(
    config_settings: Mapping[str, Any] | None = None,
) -> list[str]:
    toolchain.check()
    return list(maturin.get_requires_for_build_editable(config_settings))


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: Mapping[str, Any] | None = None
) -> str:
    toolchain.check()
    return str(maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings))


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: Mapping[str, Any] | None = None
) -> str:
    toolchain.check()
    return str(maturin.prepare_metadata_for_build_editable(metadata_directory, config_settings))
