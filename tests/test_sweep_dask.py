"""`sctplab sweep --scheduler`: a real Dask cluster (on loopback) gives the local results."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import sctplab
from test_sweep import RATE_GRID, catalog_rows, run_folders, tiny


def _files(store: Path) -> dict[str, bytes]:
    return {
        f"{folder.parent.name}/{folder.name}/{name}": (folder / name).read_bytes()
        for folder in run_folders(store)
        for name in ("summary.json", "scenario.toml")
    }


# No filterwarnings exemption: with the pinned dask/distributed this cluster's start and
# stop raise no warning, so the suite's `filterwarnings = error` stays in force here too.
def test_dask_cluster_matches_the_local_pool(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    scen = tiny(tmp_path)
    args = ["sweep", scen, "--grid", RATE_GRID, "--grid", 'links.ab.delay=["10ms","50ms"]']
    args += ["--seeds", "2"]

    local = tmp_path / "local"
    r = sctplab(*args, "--jobs", "2", "--store", local)
    assert r.returncode == 0, r.stderr

    # Loopback only: scheduler, workers and dashboard all on 127.0.0.1, random ports.
    with distributed.LocalCluster(
        processes=True,
        n_workers=2,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
    ) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        dask = tmp_path / "dask"
        r = sctplab(*args, "--scheduler", address, "--store", dask)
        assert r.returncode == 0, r.stderr
        assert f"on Dask cluster {address} (2 worker threads)" in r.stderr

    assert len(catalog_rows(dask)) == 8
    # Same keys, so the same folder names, and byte-identical summaries.
    files = _files(dask)
    assert len(files) == 16
    assert files == _files(local)
    conn = sqlite3.connect(dask / "catalog.sqlite")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
