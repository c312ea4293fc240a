"""Turning what a user hands us (a path, a TOML string or a dict) into scenario text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sctplab._core import ScenarioError, UsageError


@dataclass(frozen=True)
class ScenarioText:
    text: str
    is_json: bool
    source: str
    default_name: str


def _looks_like_path(s: str) -> bool:
    return "\n" not in s and "=" not in s and s.strip() == s


def read_scenario(scenario: str | Path | Mapping[str, Any]) -> ScenarioText:
    """A path (str or Path) to a TOML file, a TOML document as a string, or a dict."""
    if isinstance(scenario, Mapping):
        try:
            text = json.dumps(scenario)
        except (TypeError, ValueError) as e:
            raise ScenarioError(f"<dict>: not representable as a scenario: {e}") from None
        name = str(scenario.get("name", "scenario"))
        return ScenarioText(text, True, "<dict>", name)
    if not isinstance(scenario, str | Path):
        raise UsageError(
            f"scenario: expected a path, TOML text or a dict, not {type(scenario).__name__}"
        )
    if isinstance(scenario, Path) or _looks_like_path(scenario):
        path = Path(scenario)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ScenarioError(f"{path}: no such scenario file") from None
        except (OSError, UnicodeDecodeError) as e:
            raise ScenarioError(f"{path}: cannot read scenario file: {e}") from None
        return ScenarioText(text, False, str(path), path.stem)
    return ScenarioText(scenario, False, "<string>", "scenario")


def overrides(sets: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """`{"flows.sctp1.variant": "original"}` -> `[("flows.sctp1.variant", '"original"')]`.

    Python values are written as TOML values, so strings keep their quotes and lists
    stay lists; a string that already is TOML (from the command line) passes unchanged
    through `parse_set`.
    """
    if not sets:
        return []
    if not isinstance(sets, Mapping):
        raise UsageError(
            f"set: expected a dict of dotted keys to values, e.g. "
            f'{{"links.bottleneck.delay": "250ms"}}, not {type(sets).__name__}'
        )
    for k in sets:
        if not isinstance(k, str):
            raise UsageError(
                f"set: key {k!r}: expected a dotted key such as links.bottleneck.delay"
            )
    return [(k, _toml_value(v)) for k, v in sets.items()]


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        inner = ", ".join(f"{json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items())
        return "{" + inner + "}"
    raise ScenarioError(f"--set: cannot express {v!r} as a TOML value")


def parse_set(item: str) -> tuple[str, str]:
    """`KEY=VALUE` from the command line; VALUE stays TOML text."""
    key, sep, value = item.partition("=")
    if not sep or not key.strip():
        raise ScenarioError(f"--set {item}: expected KEY=VALUE, e.g. links.bottleneck.delay=250ms")
    return key.strip(), value.strip()
