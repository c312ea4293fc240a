"""One run: call the Rust core, write the run folder (CONTRACTS.md), return the results."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sctplab import _core
from sctplab.code_version import build_info
from sctplab.run_args import (
    MOBILITY_FILE_KEY,
    check_out_dir,
    check_replace,
    check_timeout,
    file_blame,
    kinds,
    raise_blamed_on_file,
)
from sctplab.scenario_input import (
    ScenarioText,
    clip,
    overrides,
    read_scenario,
    show_path,
    show_value,
)

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

# numpy, pandas and pyarrow are imported where they are used: together they take longer
# to import than most runs take to simulate, and the CLI needs them only for series.


@dataclass
class RunResult:
    """What `run` returns. `summary` is summary.json as a dict."""

    summary: dict[str, Any]
    scenario_toml: str
    out_dir: Path | None
    wall_s: float
    events: int
    # The series as the core handed it over (raw column bytes, megabytes on long runs):
    # private, read through `series`.
    _series_columns: _core.SeriesColumns = field(repr=False)
    # series.parquet, when the run streamed its series there (too long to hand back).
    series_file: Path | None = field(default=None, repr=False)

    @property
    def series(self) -> pd.DataFrame:
        """Sampled variables, long form: time_s, entity, variable, value."""
        if self.series_file is not None:
            import pyarrow.parquet as pq

            streamed: pd.DataFrame = pq.read_table(self.series_file).to_pandas()
            return streamed
        df: pd.DataFrame = _series_table(self._series_columns).to_pandas()
        return df

    def flows(self) -> pd.DataFrame:
        """One row per flow with its summary metrics."""
        import pandas as pd

        return pd.DataFrame.from_dict(self.summary["flows"], orient="index")

    def links(self) -> pd.DataFrame:
        """One row per link direction with its summary metrics."""
        import pandas as pd

        return pd.DataFrame.from_dict(self.summary["links"], orient="index")


def _series_table(cols: _core.SeriesColumns) -> pa.Table:
    import numpy as np

    return _columns_table(
        np.frombuffer(cols["time_s"], dtype="<f8"),
        np.frombuffer(cols["entity"], dtype="<u4"),
        np.frombuffer(cols["variable"], dtype="<u4"),
        np.frombuffer(cols["value"], dtype="<f8"),
        cols,
    )


def _columns_table(
    time_s: Any, entity_u32: Any, variable_u32: Any, value: Any, cols: _core.SeriesColumns
) -> pa.Table:
    import numpy as np
    import pyarrow as pa

    entity = entity_u32.astype(np.int32)
    variable = variable_u32.astype(np.int32)
    return pa.table(
        {
            "time_s": pa.array(time_s, pa.float64()),
            "entity": pa.DictionaryArray.from_arrays(
                pa.array(entity, pa.int32()), pa.array(cols["entity_names"], pa.string())
            ),
            "variable": pa.DictionaryArray.from_arrays(
                pa.array(variable, pa.int32()), pa.array(cols["variable_names"], pa.string())
            ),
            "value": pa.array(value, pa.float64()),
        }
    )


SERIES_SPILL = ".series.spill"


def _write_series(cols: _core.SeriesColumns, spill: Path, dest: Path) -> None:
    """series.parquet from the spilled chunks (each one row group) and the rows the run
    handed back (the last row group), one chunk in memory at a time. The chunks are
    pyarrow's default row-group length, so the file is the one `pq.write_table` makes of
    the whole table: a run that spilled and one that did not write the same bytes."""
    import numpy as np
    import pyarrow.parquet as pq

    rest = _series_table(cols)
    chunk, spilled = cols["spill_chunk_rows"], cols["spilled_rows"]
    if spilled == 0:
        pq.write_table(rest, dest)
        return
    with pq.ParquetWriter(dest, rest.schema) as writer, spill.open("rb") as f:
        for _ in range(spilled // chunk):
            time_s = np.fromfile(f, dtype="<f8", count=chunk)
            entity = np.fromfile(f, dtype="<u4", count=chunk)
            variable = np.fromfile(f, dtype="<u4", count=chunk)
            value = np.fromfile(f, dtype="<f8", count=chunk)
            if len(value) != chunk:
                raise _core.RunError(f"{spill}: spill file shorter than the run wrote")
            writer.write_table(_columns_table(time_s, entity, variable, value, cols))
        writer.write_table(rest)


def _run_json(
    raw: _core.RawRun, seed: int, sets: list[tuple[str, str]], shortcuts: str = "all"
) -> dict[str, Any]:
    wall = raw["wall_s"]
    # Recorded when not the default: `events` in summary.json depends on it.
    return {
        **({"shortcuts": shortcuts} if shortcuts != "all" else {}),
        "complete": True,
        "wall_time_s": wall,
        "events_per_s": raw["events"] / wall if wall > 0 else None,
        **build_info(),
        "seed": seed,
        "overrides": dict(sets),
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "host": dict(_host()),
    }


@lru_cache(maxsize=1)
def _host() -> dict[str, Any]:
    """run.json's `host`: the same for every run of a process (a sweep worker runs
    thousands; os.cpu_count alone costs some 40 us)."""
    import platform

    return {
        "hostname": _hostname(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
    }


def _hostname() -> str:
    """The host's name as `socket.gethostname()` gives it, without importing socket
    (which costs about a tenth of a short `sctplab run`): gethostname(2) is the kernel's
    node name that uname(2) reports too, on Linux (glibc implements it with uname) and
    macOS (both read kern.hostname)."""
    uname = getattr(os, "uname", None)
    if uname is None:
        import socket

        return socket.gethostname()
    name: str = uname().nodename
    return name


def _incomplete_run_json(
    status: str, seed: int, sets: list[tuple[str, str]], error: str | None
) -> dict[str, Any]:
    """run.json of a run folder whose run has not finished (`running`), was interrupted
    (`interrupted`) or failed (`failed`): no summary.json, whatever traces were written."""
    return {
        "complete": False,
        "status": status,
        "error": error,
        **build_info(),
        "seed": seed,
        "overrides": dict(sets),
        "stopped_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def check_seed(seed: object) -> int:
    """A run seed: an integer in 0..2^64-1 (the core's u64)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise _core.UsageError(
            f"--seed {show_value(seed)}: expected an integer from 0 to {MAX_SEED}"
        )
    return seed


MAX_SEED = 2**64 - 1


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


# Where a run folder keeps the inputs it was run from besides scenario.toml.
MOVEMENT_COPY_DIR = "inputs"


def _copy_movement_file(path: Path, out_dir: Path) -> None:
    """The run folder's own copy of its movement file, made before the run (a run that
    fails keeps what it ran from), in a folder of its own: beside the run's files under
    its own name, a movement file called trace.tr, summary.json, scenario.toml, run.json
    or pcap would replace one of them or collide with it."""
    import shutil

    copy = out_dir / MOVEMENT_COPY_DIR / path.name
    if copy.resolve() == path:
        return  # rerun into the folder it came from
    try:
        copy.parent.mkdir(exist_ok=True)
        shutil.copyfile(path, copy)
    except OSError as e:
        raise _core.UsageError(f"mobility.file {str(path)!r}: cannot copy it to {copy}: {e}") from e


def _max_output(value: object) -> str | None:
    """`max_output` as the core takes it: a size with its unit (`"500MB"`); an int is
    bytes. The core checks the text and names what it expected."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return f"{value}B"
    raise _core.UsageError(
        f"--max-output {value!r}: expected a size such as 500MB or 2GiB, or bytes as an int"
    )


def movement_file_sets(
    src: ScenarioText, sets: list[tuple[str, str]]
) -> tuple[list[tuple[str, str]], Path | None]:
    """Makes `[mobility] file` absolute and returns it with the overrides.

    A path given with `--set mobility.file=PATH` is relative to the working directory; a
    path written in a scenario file is relative to that file's folder (so a run folder's
    scenario.toml finds the movement file copied beside it); text and dicts use the
    working directory.
    """
    given = [v for k, v in sets if k == MOBILITY_FILE_KEY]
    if given:
        import tomllib

        try:
            raw = tomllib.loads(f"v = {given[-1]}")["v"]
        except (tomllib.TOMLDecodeError, RecursionError):
            raw = given[-1]  # as the core reads it: text that is not TOML is a string
        base = Path.cwd()
        shown = f"--set {MOBILITY_FILE_KEY}={clip(given[-1])}"
    else:
        # The core's parser (depth-limited, linear) rather than tomllib, which takes
        # minutes on hostile nesting; a text that does not parse is reported by the core
        # with its position.
        if src.is_json:
            try:
                doc = json.loads(src.text)
            except (ValueError, RecursionError):
                return sets, None
            mob = doc.get("mobility") if isinstance(doc, dict) else None
            raw = mob.get("file") if isinstance(mob, dict) else None
        else:
            raw = _core.mobility_file(src.text)
        is_file = src.source not in ("<string>", "<dict>")
        base = Path(src.source).resolve().parent if is_file else Path.cwd()
        shown = src.source
    if not isinstance(raw, str):
        return sets, None
    if "\0" in raw:
        raise _core.ScenarioError(
            f"{show_path(shown)}: {MOBILITY_FILE_KEY}: {show_path(repr(raw))} is not a file "
            "name (it contains a NUL byte)"
        )
    path = Path(raw) if Path(raw).is_absolute() else (base / raw).resolve()
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        mode = None  # the core names the file it cannot read
    except OSError as e:  # a name too long, a loop of links: the core would echo it whole
        raise _core.ScenarioError(
            f"{show_path(shown)}: {MOBILITY_FILE_KEY}: {show_path(path)}: "
            f"{e.strerror or type(e).__name__}"
        ) from None
    if mode is not None and not stat.S_ISREG(mode):
        # A FIFO would block the read forever (Ctrl-C included), /dev/zero never ends.
        raise _core.ScenarioError(
            f"{show_path(shown)}: {MOBILITY_FILE_KEY}: {show_path(path)}: not a regular file (a "
            "movement file is read whole)"
        )
    rest = [(k, v) for k, v in sets if k != MOBILITY_FILE_KEY]
    return [*rest, (MOBILITY_FILE_KEY, json.dumps(str(path)))], path


def movement(
    scenario: str | Path | Mapping[str, Any],
    seed: int = 1,
    set: Mapping[str, Any] | None = None,
    *,
    raw_sets: list[tuple[str, str]] | None = None,
) -> str:
    """The movement of a wireless scenario's nodes with `seed`, as an ns-2 setdest file
    (random waypoint drawn as `sctplab run` draws it), so ns-2 can replay it."""
    check_seed(seed)
    src = read_scenario(scenario)
    user_sets = (raw_sets or []) + overrides(set)
    sets, _ = movement_file_sets(src, user_sets)
    with file_blame(src, user_sets, sets):
        return _core.movement(
            src.text,
            is_json=src.is_json,
            source=src.source,
            default_name=src.default_name,
            sets=sets,
            seed=seed,
        )


def run(
    scenario: str | Path | Mapping[str, Any],
    seed: int = 1,
    set: Mapping[str, Any] | None = None,
    *,
    out: str | Path | None = None,
    pcap: bool = False,
    trace: str | Iterable[str] = (),
    series: str | Iterable[str] = (),
    progress: bool = False,
    timeout: float | None = None,
    force: bool = False,
    raw_sets: list[tuple[str, str]] | None = None,
    max_output: str | int | None = None,
    output_notes: bool = True,
    shortcuts: str = "all",
) -> RunResult:
    """Run one scenario.

    `scenario` is a path to a TOML file, a TOML document or a dict; `set` overrides
    values by dotted key (`{"links.bottleneck.delay": "250ms"}`). With `out`, the run
    folder of CONTRACTS.md is written there (summary.json, run.json, scenario.toml and
    whatever `pcap`, `trace` and `series` ask for); traces and pcap need `out`.

    `timeout` (seconds of wall time) stops a run that takes longer with `RunError`, as
    do a livelock and simulated time at its maximum. Ctrl-C raises KeyboardInterrupt
    within a fraction of a second. A run folder whose run did not finish has no
    summary.json, and its run.json says `"complete": false` with the reason.

    `trace` and `series` take a comma-separated string (`"cwnd,rto"`) or a list. A folder
    `out` that holds the run of another scenario or seed is not replaced without
    `force=True` (UsageError); the same run replaces its own folder.

    `shortcuts` is a checking tool (docs/architecture.md): `"all"` (the default),
    `"none"` (every MAC timer and reception an event, the plain model) or a comma list
    of the wireless shortcuts to take; summary.json is the same with any of them but
    for `events`.

    `max_output` (a size such as `"500MB"`, or bytes as an int) stops a run whose pcap
    and trace files pass it with `UsageError`; the files written so far are kept. With
    `output_notes`, a line on stderr says when those files pass 100 MB, 1 GB, ... and
    what they will hold at the end of the run at that rate.
    """
    check_seed(seed)
    timeout = check_timeout("timeout", timeout)
    cap = _max_output(max_output)
    _core.check_shortcuts(shortcuts)
    src = read_scenario(scenario)
    user_sets = (raw_sets or []) + overrides(set)
    sets, movement_path = movement_file_sets(src, user_sets)
    out_dir = check_out_dir(out)
    trace_list = kinds("trace", trace)
    series_list = kinds("series", series)
    if out_dir is None and (pcap or trace_list):
        raise _core.UsageError("pcap and traces need an output folder (out=...)")
    spill: Path | None = None
    free = 0
    series_file: Path | None = None
    if out_dir is not None:
        # Checked before the folder is touched: bad input leaves no folder behind.
        with file_blame(src, user_sets, sets):
            _, resolved = _core.resolve(
                src.text,
                is_json=src.is_json,
                source=src.source,
                default_name=src.default_name,
                sets=sets,
            )
        if not force:
            check_replace(out_dir, resolved, seed)
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
            # Until the run ends, the folder must not look complete: summary.json marks a
            # complete folder, so a stale one from an earlier run goes first.
            (out_dir / "summary.json").unlink(missing_ok=True)
            if movement_path is not None:
                _copy_movement_file(movement_path, out_dir)
            _write_atomic(
                out_dir / "run.json",
                json.dumps(_incomplete_run_json("running", seed, sets, None), indent=2) + "\n",
            )
        except OSError as e:
            where = show_path(out_dir)
            why = e.strerror or type(e).__name__
            raise _core.UsageError(f"{where}: cannot write the run folder: {why}") from None
        if series_list:
            # Long series go to disk in chunks as the run goes; the disk is their limit.
            import shutil

            spill = out_dir / SERIES_SPILL
            spill.unlink(missing_ok=True)
            free = shutil.disk_usage(out_dir).free
    try:
        raw = _core.run(
            src.text,
            is_json=src.is_json,
            source=src.source,
            default_name=src.default_name,
            sets=sets,
            seed=seed,
            out_dir=str(out_dir) if out_dir is not None else None,
            pcap=pcap,
            traces=trace_list,
            series=series_list,
            progress=progress,
            timeout_s=timeout,
            series_spill=str(spill) if spill is not None else None,
            series_disk_limit=free if spill is not None else None,
            max_output=cap,
            output_notes=output_notes,
            shortcuts=shortcuts,
        )
    except BaseException as e:
        if spill is not None:
            spill.unlink(missing_ok=True)
        if out_dir is not None:
            status = "interrupted" if isinstance(e, KeyboardInterrupt) else "failed"
            error = " ".join(str(e).split()) or type(e).__name__
            _write_atomic(
                out_dir / "run.json",
                json.dumps(_incomplete_run_json(status, seed, sets, error), indent=2) + "\n",
            )
        raise_blamed_on_file(e, src, user_sets, sets)
        raise
    if out_dir is not None:
        resolved = raw["resolved_toml"]
        if movement_path is not None:
            # scenario.toml names the copy relative to itself.
            name = f"{MOVEMENT_COPY_DIR}/{movement_path.name}"
            resolved = resolved.replace(json.dumps(str(movement_path)), json.dumps(name))
        _write_atomic(out_dir / "scenario.toml", resolved)
        run_json = _run_json(raw, seed, sets, shortcuts)
        _write_atomic(out_dir / "run.json", json.dumps(run_json, indent=2) + "\n")
        if series_list and spill is not None:
            try:
                _write_series(raw["series"], spill, out_dir / "series.parquet")
            finally:
                spill.unlink(missing_ok=True)
            if raw["series"]["spilled_rows"]:
                series_file = out_dir / "series.parquet"
        # summary.json last: its presence marks a complete run folder.
        _write_atomic(out_dir / "summary.json", raw["summary_json"])
    return RunResult(
        summary=json.loads(raw["summary_json"]),
        scenario_toml=raw["resolved_toml"],
        out_dir=out_dir,
        wall_s=raw["wall_s"],
        events=raw["events"],
        _series_columns=raw["series"],
        series_file=series_file,
    )
