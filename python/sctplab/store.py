"""The results store: one immutable folder per run plus an SQLite catalog (docs/sweeps.md).

Layout of a store at ROOT:

    ROOT/catalog.sqlite       the catalog (WAL mode; -wal and -shm files beside it)
    ROOT/runs/<scenario>/<run_id>/
        summary.json run.json scenario.toml manifest.json
    ROOT/.tmp/                run folders being written (removed on the next start)
    ROOT/.lock                held (flock) by the one driver writing the store

Only the sweep driver writes; readers (`load`, `sctplab export`) open the catalog
read-only, which WAL allows while a sweep runs. A run is identified by its key:
(scenario content hash, canonical overrides JSON, seed, code version). The write order
makes a SIGKILL at any instant harmless: folder written under .tmp, renamed into runs/,
then the catalog row committed. A complete folder without its row is adopted (its row
made from its manifest.json) on the next start; nothing holding a finished run is ever
deleted. A run is "done" only once its row exists.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sctplab import _core
from sctplab.code_version import code_version as code_version
from sctplab.scenario_input import show_path
from sctplab.store_rows import (
    RunKey,
    canonical_json,
    catalog_row,
    metrics_json,
    now_text,
)

if TYPE_CHECKING:
    import pandas as pd

    from sctplab.executor import RunOutcome

DEFAULT_STORE = Path("store")
CATALOG = "catalog.sqlite"
RUNS = "runs"
TMP = ".tmp"
LOCK = ".lock"
SCHEMA_VERSION = 1

# `status` is 'ok' (folder present) or 'failed' (no folder; `error` says why). A failed
# run is not "done": the next sweep asking for it tries again and, on success, the row
# becomes 'ok'. An 'ok' row is never rewritten.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS scenarios (
    scenario_hash TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    toml TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    scenario_hash TEXT NOT NULL REFERENCES scenarios (scenario_hash),
    overrides TEXT NOT NULL,
    seed INTEGER NOT NULL,
    code_version TEXT NOT NULL,
    scenario TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error TEXT,
    path TEXT UNIQUE,
    wall_time_s REAL,
    events INTEGER,
    metrics TEXT,
    sctplab_version TEXT,
    git_commit TEXT,
    git_dirty INTEGER,
    host TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (scenario_hash, overrides, seed, code_version)
);
CREATE VIEW IF NOT EXISTS run_metrics AS
    SELECT r.run_id, r.scenario, r.overrides, r.seed, r.code_version,
           m.key AS metric, m.value AS value
    FROM runs AS r, json_each(r.metrics) AS m
    WHERE r.status = 'ok';
CREATE VIEW IF NOT EXISTS run_parameters AS
    SELECT r.run_id, p.key AS parameter, p.value AS value
    FROM runs AS r, json_each(r.overrides) AS p;
"""


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name) or "scenario"


def _not_a_catalog(root: Path, why: str) -> _core.UsageError:
    return _core.UsageError(f"{show_path(root / CATALOG)}: not a sctplab catalog ({one_line(why)})")


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def _connect(root: Path) -> sqlite3.Connection:
    try:
        return _connect_unchecked(root)
    except sqlite3.DatabaseError as e:
        raise _not_a_catalog(root, str(e)) from None


def _connect_unchecked(root: Path) -> sqlite3.Connection:
    # isolation_level=None: we open transactions ourselves, so a commit happens exactly
    # where the write order needs it.
    conn = sqlite3.connect(root / CATALOG, isolation_level=None, timeout=30)
    # Another program's database is not ours to add tables to.
    tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if tables and not {"meta", "runs", "scenarios"} <= tables:
        conn.close()
        raise _not_a_catalog(root, f"it has tables {', '.join(sorted(tables))}")
    conn.execute("PRAGMA journal_mode=WAL")
    # NORMAL in WAL mode: a commit survives the process being killed (not a power cut);
    # FULL would fsync every run.
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.executescript(_SCHEMA)
    conn.execute(
        "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)",
        (str(SCHEMA_VERSION),),
    )
    (version,) = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if int(version) != SCHEMA_VERSION:
        conn.close()
        raise _core.UsageError(
            f"{show_path(root)}: store schema {version}, this sctplab reads schema {SCHEMA_VERSION}"
        )
    return conn


@dataclass
class Cleanup:
    """What a sweep found on opening its store. `adopted`: complete run folders the
    catalog lacked (the driver was killed between the folder's rename and its row's
    commit, or the catalog was deleted), recorded from their manifest.json. `kept`: folders
    under runs/ that the catalog does not know and that do not describe themselves as one
    of its runs; they are left where they are, never deleted."""

    adopted: int
    kept: int
    missing_rows_dropped: int


class StoreWriter:
    """The driver's handle on a store: the only code that writes folders or rows."""

    def __init__(self, root: Path, conn: sqlite3.Connection) -> None:
        self.root = root
        self.conn = conn
        # The root as a string to join with "/": "" for "/" (os.path.join's result).
        self._root = str(root).rstrip("/")
        # Scenario folders under runs/ known to exist (one mkdir each, not one per run).
        self._made: set[str] = set()
        # Per scenario name, its folder name under runs/.
        self._folders: dict[str, str] = {}

    def cleanup(self) -> Cleanup:
        """Put right what a killed driver left: temp folders (never renamed into runs/,
        so never a finished run) are removed; run folders whose catalog row was never
        committed are adopted (a finished run is never deleted); rows whose folder has
        gone are dropped so those runs are computed again."""
        shutil.rmtree(self.root / TMP, ignore_errors=True)
        (self.root / TMP).mkdir()
        runs = self.root / RUNS
        runs.mkdir(exist_ok=True)
        on_disk = {
            f"{RUNS}/{s.name}/{r.name}"
            for s in runs.iterdir()
            if s.is_dir()
            for r in s.iterdir()
            if r.is_dir()
        }
        in_catalog = {p for (p,) in self.conn.execute("SELECT path FROM runs WHERE status = 'ok'")}
        orphans = sorted(on_disk - in_catalog)
        from sctplab.store_adopt import adoptable_row

        adopted = [row for rel in orphans if (row := adoptable_row(self.root, rel)) is not None]
        if adopted:
            self._upsert_rows(adopted)
            in_catalog = {
                p for (p,) in self.conn.execute("SELECT path FROM runs WHERE status = 'ok'")
            }
        kept = len(on_disk - in_catalog)
        missing = in_catalog - on_disk
        if missing:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany("DELETE FROM runs WHERE path = ?", [(p,) for p in missing])
            self.conn.execute("COMMIT")
        return Cleanup(len(adopted), kept, len(missing))

    def add_scenario(self, digest: str, name: str, toml: str) -> None:
        self.conn.execute(
            "INSERT OR IGNORE INTO scenarios (scenario_hash, name, toml) VALUES (?, ?, ?)",
            (digest, name, toml),
        )

    def done(self, digest: str, version: str) -> set[tuple[str, int]]:
        """(overrides, seed) of the runs of this scenario and code version already stored."""
        rows = self.conn.execute(
            "SELECT overrides, seed FROM runs "
            "WHERE scenario_hash = ? AND code_version = ? AND status = 'ok'",
            (digest, version),
        )
        return {(o, int(s)) for o, s in rows}

    def record_ok(
        self, key: RunKey, scenario: str, params: Mapping[str, Any], outcome: RunOutcome
    ) -> Path:
        """Write the run folder, then its row: the order that makes a SIGKILL safe."""
        row, final = self._write_folder(key, scenario, params, outcome)
        self._upsert_rows([row])
        return Path(final)

    def record_failed(
        self, key: RunKey, scenario: str, error: str, run_json: Mapping[str, Any] | None = None
    ) -> None:
        self._upsert_rows(
            [catalog_row(key, scenario, "failed", error, None, None, None, None, run_json)]
        )

    def record_many(self, items: Sequence[Recorded]) -> None:
        """Several runs at once: every ok run's folder first, then all the rows in one
        transaction (a SIGKILL in between leaves orphan folders, removed on the next
        start, and no row without its folder)."""
        rows = []
        for key, scenario, params, outcome in items:
            if outcome.ok:
                rows.append(self._write_folder(key, scenario, params, outcome)[0])
            else:
                error = outcome.error or "failed"
                row = catalog_row(
                    key, scenario, "failed", error, None, None, None, None, outcome.run_json
                )
                rows.append(row)
        self._upsert_rows(rows)

    def _write_folder(
        self, key: RunKey, scenario: str, params: Mapping[str, Any], outcome: RunOutcome
    ) -> tuple[tuple[Any, ...], str]:
        assert outcome.summary_json is not None and outcome.resolved_toml is not None
        run_id = key.run_id
        folder = self._folders.get(scenario)
        if folder is None:
            folder = self._folders[scenario] = _safe_name(scenario)
        rel = f"{RUNS}/{folder}/{run_id}"
        # Plain strings and os calls, not pathlib, open() or os.path.join (pure Python,
        # six calls per run): this runs once per run in the one driver process, and on
        # runs of a few ms it was a large part of it.
        root = self._root
        parent = f"{root}/{RUNS}/{folder}"
        final = f"{parent}/{run_id}"
        tmp = f"{root}/{TMP}/{run_id}"
        try:
            os.mkdir(tmp)
        except FileExistsError:
            # Left by a write of the same run that failed earlier in this process.
            shutil.rmtree(tmp, ignore_errors=True)
            os.mkdir(tmp)
        created = now_text()
        run_json = outcome.run_json
        manifest = {
            "run_id": run_id,
            "scenario": scenario,
            "scenario_hash": key.scenario_hash,
            "parameters": dict(params),
            "overrides": [list(s) for s in outcome.sets],
            "seed": key.seed,
            "code_version": key.code_version,
            "sctplab_version": run_json.get("sctplab_version"),
            "git_commit": run_json.get("git_commit"),
            "git_dirty": run_json.get("git_dirty"),
            "wall_time_s": outcome.wall_s,
            "events": outcome.events,
            "status": "ok",
            "created_at": created,
            "store_schema": SCHEMA_VERSION,
        }
        # summary.json exactly as the core wrote it, so it is byte-identical to `sctplab run`.
        _write(f"{tmp}/summary.json", outcome.summary_json)
        _write(f"{tmp}/scenario.toml", outcome.resolved_toml)
        _write(f"{tmp}/run.json", indent_json(run_json) + "\n")
        _write(f"{tmp}/manifest.json", indent_json(manifest) + "\n")
        if parent not in self._made:
            os.makedirs(parent, exist_ok=True)
            self._made.add(parent)
        try:
            os.rename(tmp, final)
        except OSError:
            # Only a folder cleanup could not adopt can be here (the store is locked):
            # it is moved aside, not deleted.
            os.rename(final, f"{final}.kept-{time.time_ns()}")
            os.rename(tmp, final)
        metrics = outcome.metrics_json or metrics_json(outcome.summary_json)
        row = catalog_row(
            key, scenario, "ok", None, rel, outcome.wall_s, outcome.events, metrics, run_json,
            created,
        )  # fmt: skip
        return row, final

    def _upsert_rows(self, rows: Sequence[tuple[Any, ...]]) -> None:
        if not rows:
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            # A failed row may become ok (or stay failed with the newer error); an ok row
            # is final.
            self.conn.executemany(
                """
                INSERT INTO runs (run_id, scenario_hash, overrides, seed, code_version,
                    scenario, status, error, path, wall_time_s, events, metrics,
                    sctplab_version, git_commit, git_dirty, host, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (run_id) DO UPDATE SET
                    status = excluded.status, error = excluded.error, path = excluded.path,
                    wall_time_s = excluded.wall_time_s, events = excluded.events,
                    metrics = excluded.metrics, sctplab_version = excluded.sctplab_version,
                    git_commit = excluded.git_commit, git_dirty = excluded.git_dirty,
                    host = excluded.host, created_at = excluded.created_at
                WHERE runs.status = 'failed'
                """,
                rows,
            )
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")


# (key, scenario name, parameters, outcome): one run for StoreWriter.record_many.
Recorded = tuple[RunKey, str, Mapping[str, Any], "RunOutcome"]


def _write(path: str, text: str) -> None:
    # os.open/os.write: three system calls, where open() in text mode adds a stat, an
    # isatty ioctl and seeks, per file, four files per run.
    data = text.encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def indent_json(value: Any) -> str:
    """`json.dumps(value, indent=2)`: the driver writes run.json and manifest.json with
    it for every run. Made by the one writer, `_core.indent_json` (crates/sctplab-py/src/
    indent_json.rs: json's pure-Python encoder, which an indent selects, was a tenth of
    the driver's time per run); a value it does not take (a subclass of a JSON type, a
    key that is not a str, a lone surrogate, deep nesting) goes to json.dumps itself."""
    text = _core.indent_json(value)
    return text if text is not None else json.dumps(value, indent=2)


@contextmanager
def open_store(root: str | Path) -> Iterator[StoreWriter]:
    """Open (creating if needed) a store for writing: lock it, clean up after any killed
    driver, and close it on exit."""
    import fcntl

    path = _store_path(root)
    try:
        path.mkdir(parents=True, exist_ok=True)
        lock = (path / LOCK).open("a+")
    except OSError as e:
        why = e.strerror or type(e).__name__
        raise _core.UsageError(f"{show_path(path)}: cannot use as a store: {why}") from None
    try:
        try:
            # flock dies with the process, so a SIGKILLed driver never leaves it held.
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _core.UsageError(
                f"{show_path(path)}: store in use by another sweep (one driver per store)"
            ) from None
        conn = _connect(path)
        try:
            yield StoreWriter(path, conn)
        finally:
            conn.close()
    finally:
        lock.close()


# ----------------------------------------------------------------------------- reading


def _store_path(root: str | Path) -> Path:
    path = Path(root)
    if "\0" in str(path):
        raise _core.UsageError(f"store: {show_path(path)}: not a folder name (a NUL byte)")
    return path


def _open_read_only(root: Path) -> sqlite3.Connection:
    catalog = root / CATALOG
    try:
        is_catalog = catalog.is_file()
    except OSError:  # a name too long, a loop of links
        is_catalog = False
    if not is_catalog:
        raise _core.UsageError(f"{show_path(root)}: not a sctplab store (no {CATALOG})")
    return sqlite3.connect(f"{catalog.resolve().as_uri()}?mode=ro", uri=True)


def _json_field(root: Path, run_id: str, column: str, text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise _core.UsageError(
            f"{root / CATALOG}: run {run_id}: `{column}` is not valid JSON; the catalog "
            "was edited or damaged (delete that row to run it again)"
        ) from None


_COLUMNS = (
    "run_id, scenario, overrides, seed, status, error, path, wall_time_s, metrics, "
    "code_version, sctplab_version, git_commit, git_dirty, host, created_at, scenario_hash"
)


def _param_column(values: Sequence[Any]) -> list[Any]:
    """Parameter values as one column: plain scalars stay; lists, tables and columns that
    mix kinds become their canonical JSON text, so grouping, CSV and Parquet all work."""
    present = [v for v in values if v is not None]
    kinds = {
        "bool" if isinstance(v, bool) else "num" if isinstance(v, int | float) else type(v).__name__
        for v in present
    }
    if len(kinds) <= 1 and kinds <= {"bool", "num", "str"}:
        return list(values)
    return [None if v is None else canonical_json(v) for v in values]


def load_rows(
    root: str | Path, *, failed: bool = False, only: Collection[str] | None = None
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """Catalog rows as flat dicts, plus the parameter and metric column names.

    `only`: keep just these run ids (the columns then are those of these runs).
    """
    path = _store_path(root)
    conn = _open_read_only(path)
    try:
        where = "" if failed else " WHERE status = 'ok'"
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM runs{where} "
            "ORDER BY scenario, scenario_hash, code_version, overrides, seed"
        ).fetchall()
    except sqlite3.DatabaseError as e:
        # Not a database, an empty file, another program's database, a damaged one.
        raise _not_a_catalog(path, str(e)) from None
    finally:
        conn.close()
    if only is not None:
        keep = set(only)
        rows = [r for r in rows if r[0] in keep]
    params_seen: dict[str, None] = {}
    metrics_seen: dict[str, None] = {}
    parsed: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for row in rows:
        params = _json_field(path, row[0], "overrides", row[2])
        metrics = _json_field(path, row[0], "metrics", row[8]) if row[8] else {}
        if not isinstance(params, dict) or not isinstance(metrics, dict):
            raise _core.UsageError(
                f"{path / CATALOG}: run {row[0]}: overrides and metrics must be JSON objects"
            )
        params_seen.update(dict.fromkeys(params))
        metrics_seen.update(dict.fromkeys(metrics))
        parsed.append((params, metrics))
    param_names = list(params_seen)
    # A summary key can echo a scenario key the grid also sets (`flows.tcp1.variant`):
    # the parameter keeps the plain name, the summary's value gets a `summary.` prefix.
    metric_names = sorted(metrics_seen)
    metric_cols = {m: f"summary.{m}" if m in params_seen else m for m in metric_names}
    param_cols = {name: _param_column([p.get(name) for p, _ in parsed]) for name in param_names}
    records: list[dict[str, Any]] = []
    for i, (row, (_, metrics)) in enumerate(zip(rows, parsed, strict=True)):
        rec: dict[str, Any] = {"run_id": row[0], "scenario": row[1]}
        for name in param_names:
            rec[name] = param_cols[name][i]
        rec["seed"] = row[3]
        rec["status"] = row[4]
        rec["error"] = row[5]
        for name in metric_names:
            rec[metric_cols[name]] = metrics.get(name)
        rec["wall_time_s"] = row[7]
        rec["code_version"] = row[9]
        rec["sctplab_version"] = row[10]
        rec["git_commit"] = row[11]
        rec["git_dirty"] = None if row[12] is None else bool(row[12])
        host = _json_field(path, row[0], "host", row[13]) if row[13] else None
        rec["host"] = host.get("hostname") if isinstance(host, dict) else None
        rec["created_at"] = row[14]
        rec["run_dir"] = str((path / row[6]).resolve()) if row[6] else None
        rec["scenario_hash"] = row[15]
        records.append(rec)
    return records, param_names, [metric_cols[m] for m in metric_names]


def load(
    store: str | Path = DEFAULT_STORE,
    *,
    failed: bool = False,
    only: Collection[str] | None = None,
) -> pd.DataFrame:
    """The runs of a store as a pandas DataFrame, one row per run.

    Columns: `run_id`, `scenario`, one per parameter (the grid keys, e.g.
    `links.bottleneck.loss.rate`), `seed`, `status`, `error`, one per metric
    (`flows.tcp1.goodput_bps`, `links.r1->k1.utilization`, `sim_time_s`, `events`),
    `wall_time_s`, `code_version`, `sctplab_version`, `git_commit`, `git_dirty`, `host`,
    `created_at`, `run_dir`, `scenario_hash`. A metric named like a parameter (the
    summary echoing `flows.tcp1.variant`) is `summary.<name>`. Failed runs (no metrics)
    only with `failed=True`; `only` keeps the given run ids. `df.attrs["parameters"]`
    and `df.attrs["metrics"]` list those columns.
    """
    import pandas as pd

    records, params, metrics = load_rows(store, failed=failed, only=only)
    columns = [
        "run_id",
        "scenario",
        *params,
        "seed",
        "status",
        "error",
        *metrics,
        "wall_time_s",
        "code_version",
        "sctplab_version",
        "git_commit",
        "git_dirty",
        "host",
        "created_at",
        "run_dir",
        "scenario_hash",
    ]
    df = pd.DataFrame.from_records(records, columns=columns)
    df.attrs["parameters"] = params
    df.attrs["metrics"] = metrics
    return df


def export(
    store: str | Path, fmt: str, out: str | Path | None = None, *, failed: bool = True
) -> tuple[Path, int]:
    """Write `load(store)` as CSV or Parquet; returns the file and the number of runs."""
    if fmt not in ("csv", "parquet"):
        raise _core.UsageError(f"--format {fmt}: expected csv or parquet")
    root = _store_path(store)
    df = load(root, failed=failed)
    target = Path(out) if out is not None else root / f"export.{fmt}"
    if "\0" in str(target):
        raise _core.UsageError(f"--out {show_path(target)}: not a file name (a NUL byte)")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "csv":
            df.to_csv(target, index=False)
        else:
            _parquet_safe(df).to_parquet(target, index=False)
    except OSError as e:
        # A full disk (/dev/full), a folder in the way, no permission: the output given.
        why = e.strerror or type(e).__name__
        raise _core.UsageError(f"--out {show_path(target)}: cannot write: {why}") from None
    return target, len(df)


def _parquet_safe(df: pd.DataFrame) -> pd.DataFrame:
    """Parquet needs one type per column; a store holding several scenarios can mix
    kinds in one column (a number in one, a string in another): write those as text."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype != object:
            continue
        kinds = {type(v) for v in out[col] if v is not None and v == v}
        if len(kinds) > 1 and not kinds <= {int, float}:
            out[col] = [None if v is None or v != v else str(v) for v in out[col]]
    out.attrs = dict(df.attrs)
    return out
