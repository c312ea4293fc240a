"""sctplab's PEP 517 backend: maturin's, with a profile-guided build of the wheel.

Everything but `build_wheel` is maturin's own hook: sdists and editable installs are
plain builds. See pgo.py for the profile-guided build and SCTPLAB_PGO=0 to turn it off.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import maturin
from maturin import (
    build_editable,
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

from sctplab_build import pgo

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
