"""The results store: load/export round trips, the catalog's views, crash cleanup, lock."""

from __future__ import annotations

import fcntl
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from conftest import sctplab
from test_sweep import UTILIZATION, catalog_rows, run_folders, tiny

import sctplab as api

GRIDS = ["--grid", 'flows.f.rate=["400Kb","200Kb"]', "--grid", "links.ab.loss.drops=[[3],[3,5]]"]


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store"
    r = sctplab("sweep", tiny(tmp_path), *GRIDS, "--seeds", "2", "--jobs", "2", "--store", path)
    assert r.returncode == 0, r.stderr
    return path


def _from_folders(store: Path) -> dict[tuple[str, str, int], dict]:
    """What the run folders themselves say, independently of the catalog."""
    out: dict[tuple[str, str, int], dict] = {}
    for folder in run_folders(store):
        manifest = json.loads((folder / "manifest.json").read_text())
        summary = json.loads((folder / "summary.json").read_text())
        params = manifest["parameters"]
        key = (params["flows.f.rate"], json.dumps(params["links.ab.loss.drops"]), manifest["seed"])
        out[key] = {"summary": summary, "manifest": manifest}
    return out


def test_load_has_one_column_per_parameter_and_metric(store: Path) -> None:
    df = api.load(store)
    assert len(df) == 8
    assert df.attrs["parameters"] == ["flows.f.rate", "links.ab.loss.drops"]
    for col in [
        "flows.f.rate",
        "links.ab.loss.drops",
        "seed",
        "flows.f.goodput_bps",
        "flows.f.delivered_bytes",
        "links.a->b.utilization",
        "links.b->a.tx_packets",
        "sim_time_s",
        "events",
        "wall_time_s",
        "code_version",
        "git_commit",
    ]:
        assert col in df.columns, col
    # Lists are parameters too; they come back as their canonical JSON text.
    assert set(df["links.ab.loss.drops"]) == {"[3]", "[3,5]"}
    truth = _from_folders(store)
    for _, row in df.iterrows():
        drops = json.dumps(json.loads(row["links.ab.loss.drops"]))
        ref = truth[(row["flows.f.rate"], drops, row["seed"])]
        summary = ref["summary"]
        assert row["flows.f.delivered_bytes"] == summary["flows"]["f"]["delivered_bytes"]
        assert row["links.a->b.utilization"] == pytest.approx(UTILIZATION[row["flows.f.rate"]])
        assert row["code_version"] == ref["manifest"]["code_version"]
        assert Path(row["run_dir"], "summary.json").is_file()


def test_aggregate_over_seeds_of_a_loaded_store(store: Path) -> None:
    # Utilisation does not depend on the seed here (see test_sweep.TINY): every point
    # has mean = the hand value, half-width 0, n = 2 seeds.
    out = api.stats.aggregate(api.load(store), metrics=["links.a->b.utilization"])
    assert len(out) == 4
    assert list(out.columns[:2]) == ["flows.f.rate", "links.ab.loss.drops"]
    for row in out.itertuples():
        assert row.mean == pytest.approx(UTILIZATION[row[1]])
        assert row.ci95 == pytest.approx(0.0, abs=1e-12)
        assert row.n == 2


def test_export_csv_and_parquet_round_trip(store: Path, tmp_path: Path) -> None:
    csv, parquet = tmp_path / "runs.csv", tmp_path / "runs.parquet"
    r = sctplab("export", "--store", store, "--format", "csv", "--out", csv)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"8 run(s) -> {csv}"
    r = sctplab("export", "--store", store, "--format", "parquet", "--out", parquet)
    assert r.returncode == 0, r.stderr

    loaded = api.load(store, failed=True)
    from_csv = pd.read_csv(csv)
    from_parquet = pd.read_parquet(parquet)
    assert list(from_csv.columns) == list(loaded.columns) == list(from_parquet.columns)
    key = ["flows.f.rate", "links.ab.loss.drops", "seed"]
    for other in (from_csv, from_parquet):
        a = loaded.sort_values(key).reset_index(drop=True)
        b = other.sort_values(key).reset_index(drop=True)
        for col in ["run_id", *key, "code_version", "flows.f.delivered_bytes", "events"]:
            assert list(a[col]) == list(b[col]), col
        for col in ["links.a->b.utilization", "flows.f.goodput_bps", "wall_time_s"]:
            assert list(b[col]) == pytest.approx(list(a[col]), rel=1e-12), col

    # Default output file: inside the store.
    r = sctplab("export", "--store", store, "--format", "csv")
    assert r.returncode == 0 and (store / "export.csv").is_file()


def test_export_and_load_reject_a_folder_that_is_not_a_store(tmp_path: Path) -> None:
    r = sctplab("export", "--store", tmp_path, "--format", "csv")
    assert r.returncode == 2
    assert (
        r.stderr.strip() == f"sctplab: error: {tmp_path}: not a sctplab store (no catalog.sqlite)"
    )
    r = sctplab("export", "--store", tmp_path, "--format", "xlsx")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    with pytest.raises(api.UsageError, match="not a sctplab store"):
        api.load(tmp_path)


def test_catalog_views_flatten_metrics_and_parameters(store: Path) -> None:
    conn = sqlite3.connect(store / "catalog.sqlite")
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        rows = conn.execute(
            "SELECT json_extract(r.overrides, '$.\"flows.f.rate\"') AS rate, avg(m.value), "
            "count(*) FROM run_metrics AS m JOIN runs AS r USING (run_id) "
            "WHERE m.metric = 'links.a->b.utilization' GROUP BY rate ORDER BY rate"
        ).fetchall()
        params = conn.execute(
            "SELECT DISTINCT parameter FROM run_parameters ORDER BY parameter"
        ).fetchall()
        # The key is unique: a second row for the same run cannot exist.
        row = conn.execute(
            "SELECT scenario_hash, overrides, seed, code_version FROM runs LIMIT 1"
        ).fetchone()
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(
                "INSERT INTO runs (run_id, scenario_hash, overrides, seed, code_version, "
                "scenario, status, created_at) VALUES ('x', ?, ?, ?, ?, 'tiny', 'ok', 'now')",
                row,
            )
    finally:
        conn.close()
    assert [(r, n) for r, _, n in rows] == [("200Kb", 4), ("400Kb", 4)]
    assert [u for _, u, _ in rows] == pytest.approx([0.2112, 0.4224])
    assert params == [("flows.f.rate",), ("links.ab.loss.drops",)]


def test_restart_cleans_what_a_killed_driver_left(store: Path, tmp_path: Path) -> None:
    """A temp folder is removed; a folder under runs/ the catalog does not know and
    that is not one of its runs (this copy's manifest names another run) is kept, never
    deleted; a row whose folder has gone is dropped and its run computed again."""
    folders = run_folders(store)
    stranger = folders[0].parent / "0123456789abcdef"
    shutil.copytree(folders[0], stranger)
    (store / ".tmp" / "fedcba9876543210").mkdir(parents=True)
    lost = folders[1]
    shutil.rmtree(lost)

    r = sctplab("sweep", tiny(tmp_path), *GRIDS, "--seeds", "2", "--store", store)
    assert r.returncode == 0, r.stderr
    assert "8 run(s), 7 already in" in r.stderr
    assert (
        "kept 1 folder(s) under runs/ the catalog does not know, "
        "dropped 1 row(s) whose folder was gone" in r.stderr
    ), r.stderr
    assert (stranger / "summary.json").is_file()
    assert list((store / ".tmp").iterdir()) == []
    assert lost.is_dir()  # same key, same folder name, written again
    assert len(catalog_rows(store)) == 8


def test_one_driver_per_store(store: Path, tmp_path: Path) -> None:
    with (store / ".lock").open("a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        r = sctplab("sweep", tiny(tmp_path), "--seeds", "1", "--store", store)
    assert r.returncode == 2
    assert "store in use by another sweep" in r.stderr
    # Readers need no lock.
    assert len(api.load(store)) == 8


def test_indent_json_is_json_dumps_with_indent() -> None:
    # The driver's fast writer of run.json and manifest.json against json.dumps(indent=2).
    from collections import OrderedDict

    from sctplab.store import indent_json

    values: list[object] = [
        {},
        [],
        (),
        {"a": {}, "b": [], "c": [[]], "d": [{}]},
        {"complete": True, "wall_time_s": 0.00577663, "events_per_s": None, "seed": 2**64 - 1},
        {"overrides": {"duration": '"10s"', "flows.f.rate": "[1, 2]"}, "host": {"cpus": 2}},
        {"text": 'quote " backslash \\ newline \n tab \t é ü 中 \x00 \u2028', "é": "x"},
        {"floats": [1.0, -0.0, 1e300, 5e-324, float("inf"), float("-inf"), 0.1 + 0.2]},
        {"keys": {7: "int", 2.5: "float", True: "bool", None: "none"}},
        [1, [2, [3, {"x": (4, 5)}]], "s", False],
        {"sub": OrderedDict([("z", 1), ("a", [OrderedDict()])])},
        "plain",
        17,
        None,
    ]
    for v in values:
        assert indent_json(v) == json.dumps(v, indent=2), v
    nan = {"x": float("nan")}
    assert indent_json(nan) == json.dumps(nan, indent=2)


def test_indent_json_in_the_binding_is_json_dumps_on_random_values() -> None:
    # _core.indent_json against json.dumps(indent=2) on random nests of every JSON type:
    # floats from random bits (subnormals, huge, ties of the shortest repr), integers
    # past 64 bits, strings with every kind of escape; and the values it leaves to Python.
    import random
    import struct
    from collections import OrderedDict

    from sctplab import _core
    from sctplab.store import indent_json

    rng = random.Random(14)
    chars = ["a", "Z", " ", "~", '"', "\\", "\n", "\x00", "\x1f", "\x7f", "é", "\u2028", "中", "😀"]

    def scalar() -> object:
        kind = rng.randrange(7)
        if kind == 0:
            return struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if kind == 1:
            return rng.choice([0.1, 1e16, 1e-5, 123456789012345680.0, -0.0, 5e-324, 0.3])
        if kind == 2:
            return rng.choice([0, -1, 2**63 - 1, -(2**63), 2**63, -(2**64) - 7, 10**30])
        if kind == 3:
            return rng.randrange(-(10**6), 10**6)
        if kind == 4:
            return "".join(rng.choice(chars) for _ in range(rng.randrange(6)))
        return rng.choice([None, True, False])

    def value(depth: int) -> object:
        if depth > 3 or rng.random() < 0.4:
            return scalar()
        n = rng.randrange(4)
        if rng.random() < 0.5:
            return {str(scalar()): value(depth + 1) for _ in range(n)}
        items = [value(depth + 1) for _ in range(n)]
        return tuple(items) if rng.random() < 0.2 else items

    for _ in range(3000):
        v = value(0)
        assert _core.indent_json(v) == json.dumps(v, indent=2), v
    # Left to Python: subclasses, non-str keys, lone surrogates, deep nests, cycles.
    deep: list[object] = []
    for _ in range(100):
        deep = [deep]
    cycle: list[object] = []
    cycle.append(cycle)
    for left in (
        OrderedDict(a=1),
        {"x": [OrderedDict()]},
        {1: "int key"},
        {"s": "\ud800"},
        {"\udfff": 1},
        deep,
        cycle,
        {"x": 1 + 2j},
    ):
        assert _core.indent_json(left) is None, left
    assert indent_json(deep) == json.dumps(deep, indent=2)


def test_run_ids_of_a_point_are_the_keys_run_ids() -> None:
    # plan()'s per-point id maker against RunKey.run_id (the key text hashed whole), on
    # overrides with escapes and non-ASCII text, big seeds, and a bool seed (not an int
    # for json: left to run_id). The first one also against a hash made here by hand.
    import hashlib

    from sctplab.store_rows import RunKey, canonical_json

    text = '["' + "a" * 64 + '","{}",1,"0.1.0+abc"]'
    assert (
        RunKey("a" * 64, "{}", 1, "0.1.0+abc").run_id
        == (hashlib.sha256(text.encode()).hexdigest()[:16])
    )
    points = [{}, {"links.r1.loss.rate": 0.01}, {"name": 'q"\\ é 中 \n'}, {"x": [1, {"y": None}]}]
    for point in points:
        overrides = canonical_json(point)
        make = RunKey.of_point("f" * 64, overrides, "0.1.0+abc.dirty.0123")
        for seed in (1, 2, 17, 2**64 - 1, True):
            made = make(seed)
            plain = RunKey("f" * 64, overrides, seed, "0.1.0+abc.dirty.0123")
            assert made == plain
            assert made.run_id == plain.run_id, (point, seed)


def test_the_drivers_timestamps_are_datetime_isoformat() -> None:
    # store_rows.now_text against datetime.now(UTC).isoformat(timespec="microseconds"): the same
    # form, and a time between two readings of it, across second boundaries.
    import time
    from datetime import UTC, datetime

    from sctplab import store_rows

    form = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00")
    seconds = set()
    end = time.monotonic() + 1.2
    while time.monotonic() < end:
        before = datetime.now(UTC)
        text = store_rows.now_text()
        after = datetime.now(UTC)
        assert form.fullmatch(text), text
        assert len(text) == len(before.isoformat(timespec="microseconds"))
        assert before <= datetime.fromisoformat(text) <= after, (before, text, after)
        seconds.add(text[:19])
        time.sleep(0.01)
    assert len(seconds) >= 2
