"""Turning what a user hands us (a path, a TOML string or a dict) into scenario text."""

from __future__ import annotations

import json
import os
import stat
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
        except (TypeError, ValueError, RecursionError) as e:
            why = "nested too deeply" if isinstance(e, RecursionError) else one_line(str(e))
            raise ScenarioError(f"<dict>: not representable as a scenario: {why}") from None
        name = str(scenario.get("name", "scenario"))
        return ScenarioText(text, True, "<dict>", name)
    if not isinstance(scenario, str | Path):
        raise UsageError(
            f"scenario: expected a path, TOML text or a dict, not {type(scenario).__name__}"
        )
    if isinstance(scenario, Path) or _looks_like_path(scenario):
        path = Path(scenario)
        text = read_text_file(path, str(path), "scenario file", MAX_SCENARIO_BYTES)
        return ScenarioText(text, False, str(path), path.stem)
    return ScenarioText(scenario, False, "<string>", "scenario")


# Larger than any scenario needs (the shipped ones are a few KB; a constellation listed
# satellite by satellite is well under 1 MB), small enough to read into memory.
MAX_SCENARIO_BYTES = 64 * 1024 * 1024


def one_line(text: str) -> str:
    return " ".join(text.split())


def read_text_file(path: Path, shown: str, what: str, limit: int) -> str:
    """A regular file's UTF-8 text, or a one-line ScenarioError naming `shown`: a FIFO
    would block forever (and a read does not see Ctrl-C), a device such as /dev/zero
    never ends, and a name with a NUL byte is no file name at all."""
    if "\0" in str(path):
        raise ScenarioError(f"{show_path(shown)}: not a file name (it contains a NUL byte)")
    try:
        # stat before open: opening a FIFO for reading blocks until a writer comes.
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise ScenarioError(f"{show_path(shown)}: not a regular file (a {what} is read whole)")
        if st.st_size > limit:
            raise ScenarioError(
                f"{show_path(shown)}: {st.st_size} bytes; a {what} may have at most {limit}"
            )
        with path.open("rb") as f:
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise ScenarioError(f"{show_path(shown)}: no such {what}") from None
    except OSError as e:
        # strerror, not str(e): that repeats the name, which may be megabytes long.
        why = e.strerror or type(e).__name__
        raise ScenarioError(f"{show_path(shown)}: cannot read {what}: {why}") from None
    if len(data) > limit:
        raise ScenarioError(f"{show_path(shown)}: a {what} may have at most {limit} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{show_path(shown)}: cannot read {what}: {e}") from None


def clip(text: str, shown: int = 60) -> str:
    """A name or value as messages show it (the core's `clip`): whole if short, else its
    start and its length."""
    if len(text) <= shown:
        return text
    return f"{text[:shown]}... ({len(text)} characters)"


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
    out = []
    for k, v in sets.items():
        try:
            out.append((k, toml_value(v)))
        except NotToml as e:
            raise ScenarioError(f"--set {clip(k)}: {e}") from None
    return out


class NotToml(ValueError):
    """A Python value that has no TOML spelling; the caller names the key."""


# How deep a value given from Python may nest (lists in lists, tables in tables): far
# more than any scenario key takes, and far from Python's recursion limit.
MAX_VALUE_DEPTH = 32


def toml_value(v: Any, depth: int = 0) -> str:
    if depth > MAX_VALUE_DEPTH:
        raise NotToml(f"a value nested more than {MAX_VALUE_DEPTH} levels deep")
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        if not -(2**63) <= v < 2**63:
            shown = show_value(v) if v.bit_length() < 1000 else f"a {v.bit_length()}-bit integer"
            raise NotToml(f"{shown} is outside TOML's integer range (64-bit signed)")
        return str(int(v))
    if isinstance(v, float):
        return repr(float(v))
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(toml_value(x, depth + 1) for x in v) + "]"
    if isinstance(v, Mapping):
        inner = ", ".join(
            f"{json.dumps(str(k))} = {toml_value(x, depth + 1)}" for k, x in v.items()
        )
        return "{" + inner + "}"
    if v is None:
        raise NotToml("not a TOML value (TOML has no null; leave the key out instead)")
    raise NotToml(f"cannot express {show_value(v)} ({type(v).__name__}) as a TOML value")


def show_value(v: Any) -> str:
    """A short one-line text for any value, whatever it holds (repr can be huge, recurse
    or fail: a deep dict, an integer of 5000 digits)."""
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 200:
        return f"<a {v.bit_length()}-bit integer>"
    try:
        text = repr(v)
    except Exception:  # RecursionError, or a user's object with a broken __repr__
        text = f"<{type(v).__name__}>"
    return clip(text)


def show_path(p: str | Path) -> str:
    """A path as messages show it: as is, or quoted when it holds a line break or
    another control character (a message is one line)."""
    text = str(p)
    if any(ord(c) < 32 for c in text):
        text = repr(text)
    return clip(text, PATH_SHOWN)


# File names are shown whole up to this many characters (longer ones are clipped).
PATH_SHOWN = 1000


def parse_set(item: str) -> tuple[str, str]:
    """`KEY=VALUE` from the command line; VALUE stays TOML text."""
    key, sep, value = item.partition("=")
    if not sep or not key.strip():
        raise ScenarioError(f"--set {item}: expected KEY=VALUE, e.g. links.bottleneck.delay=250ms")
    return key.strip(), value.strip()
