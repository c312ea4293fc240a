"""Where the shipped scenarios are (package data) and how to read one, for the
reproductions, the validations and the tests alike."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any


def scenarios_dir() -> Path:
    """The shipped scenarios (package data)."""
    return Path(str(resources.files("sctplab") / "scenarios"))


def load_scenario(relpath: str) -> dict[str, Any]:
    with (scenarios_dir() / relpath).open("rb") as f:
        return tomllib.load(f)
