"""Checks of `sctplab.run`'s arguments and of its output folder, and who is blamed for a
movement file's errors: what runner.run does before the core runs (issues 29 and 30)."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sctplab import _core
from sctplab.scenario_input import ScenarioText, clip, show_path, show_value

MOBILITY_FILE_KEY = "mobility.file"


# The longest wall-clock limit (about 31 years): longer ones overflow the clocks they
# are compared with (time_t, the core's nanoseconds).
MAX_TIMEOUT_S = 1e9


def check_timeout(name: str, timeout: object) -> float | None:
    """A wall-clock limit in seconds: positive and finite, or None (no limit)."""
    if timeout is None:
        return None
    ok = isinstance(timeout, int | float) and not isinstance(timeout, bool)
    if ok and isinstance(timeout, int):
        ok = 0 < timeout <= MAX_TIMEOUT_S  # float() of a huge one overflows
    if not ok or not 0 < float(timeout) <= MAX_TIMEOUT_S:  # type: ignore[arg-type]
        raise _core.UsageError(
            f"{name} {show_value(timeout)}: expected a positive number of seconds of wall "
            f"time, at most {MAX_TIMEOUT_S:g}"
        )
    return float(timeout)  # type: ignore[arg-type]


@contextmanager
def file_blame(
    src: ScenarioText, user_sets: list[tuple[str, str]], sets: list[tuple[str, str]]
) -> Iterator[None]:
    """Core calls whose `sets` came from `movement_file_sets`: a `mobility.file` written in
    the scenario travels to the core as an override (its path made absolute), so the core
    blames its errors on a `--set` the user never gave. They are the file's."""
    try:
        yield
    except _core.ScenarioError as e:
        raise_blamed_on_file(e, src, user_sets, sets)
        raise


def raise_blamed_on_file(
    e: BaseException,
    src: ScenarioText,
    user_sets: list[tuple[str, str]],
    sets: list[tuple[str, str]],
) -> None:
    """Raises `e` blamed on the scenario file when the core blamed it on the override
    `movement_file_sets` made of the file's own `mobility.file`; else returns."""
    if not isinstance(e, _core.ScenarioError):
        return
    user_gave = any(k == MOBILITY_FILE_KEY for k, _ in user_sets)
    message = blamed_on_file(str(e), src.source, user_gave, sets)
    if message != str(e):
        raise _core.ScenarioError(message) from None


def blamed_on_file(
    message: str, source: str, user_gave: bool, sets: Iterable[tuple[str, str]]
) -> str:
    """`message` with the source `source` where the core named the `mobility.file`
    override that `movement_file_sets` made of the file's own key (the user gave none)."""
    if user_gave:
        return message
    made = next((v for k, v in sets if k == MOBILITY_FILE_KEY), None)
    if made is None:
        return message
    prefix = f"--set {MOBILITY_FILE_KEY}={clip(made)}: "
    return f"{source}: {message[len(prefix) :]}" if message.startswith(prefix) else message


def kinds(name: str, value: object) -> list[str]:
    """`trace=` and `series=`: a comma-separated string as on the command line
    (`"cwnd,rto"`) or an iterable of names (`["cwnd", "rto"]`)."""
    if isinstance(value, str):
        items: list[object] = list(value.split(","))
    else:
        try:
            items = list(itertools.islice(iter(value), MAX_KINDS + 1))  # type: ignore[call-overload]
        except TypeError:
            raise TypeError(
                f"{name}: expected a comma-separated string or a list of names, "
                f"not {type(value).__name__}"
            ) from None
        if len(items) > MAX_KINDS:
            raise _core.UsageError(f"{name}: more than {MAX_KINDS} names")
    names = []
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{name}: expected names (str), not {type(item).__name__}")
        if len(item) > MAX_KIND_LENGTH:  # no kind is named so; the message stays short
            raise _core.UsageError(f"{name}: {show_value(item)} is not a {name} kind")
        if item.strip():
            names.append(item.strip())
    return names


# More trace or series names than there are kinds (a runaway iterator is not a list).
MAX_KINDS = 1024
MAX_KIND_LENGTH = 100


def check_out_dir(out: object) -> Path | None:
    if out is None:
        return None
    if not isinstance(out, str | os.PathLike):
        raise TypeError(f"out: expected a folder path, not {type(out).__name__}")
    path = Path(out)
    if "\0" in str(path):
        raise _core.UsageError(f"out: {show_path(path)} is not a folder name (a NUL byte)")
    return path


def check_replace(out_dir: Path, resolved_toml: str, seed: int) -> None:
    """A run folder is replaced only by the run it holds (same resolved scenario and
    seed): a researcher comparing two `--set` values keeps both (issue 30). A folder
    without scenario.toml (new, or a run that never finished) is free."""
    try:
        old = (out_dir / "scenario.toml").read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return
    except (OSError, UnicodeDecodeError):
        old = None
    try:
        old_seed = json.loads((out_dir / "run.json").read_text(encoding="utf-8")).get("seed")
    except (OSError, ValueError, AttributeError, RecursionError):
        old_seed = None
    same = old is not None and _same_scenario(old, resolved_toml)
    if same and old_seed in (None, seed):
        return
    what = "another scenario" if not same else f"seed {old_seed}"
    raise _core.UsageError(
        f"{show_path(out_dir)}: holds the run of {what} (its scenario.toml or seed differs "
        "from this run's); choose another --out, or --force to replace it"
    )


def _same_scenario(folder_toml: str, resolved_toml: str) -> bool:
    """The folder's scenario.toml against this run's resolved scenario. They differ in
    one value by design: the folder names its copy of the movement file, the run the
    original. Both are compared by the file's name."""
    import tomllib

    try:
        docs = [tomllib.loads(folder_toml), tomllib.loads(resolved_toml)]
    except (ValueError, RecursionError):
        return False
    for doc in docs:
        mobility = doc.get("mobility")
        if isinstance(mobility, dict) and isinstance(mobility.get("file"), str):
            mobility["file"] = Path(mobility["file"]).name
    return docs[0] == docs[1]
