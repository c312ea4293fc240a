"""Adopting run folders the catalog lacks (store.StoreWriter.cleanup): a sweep killed
between a folder's rename and its row's commit, or a catalog deleted, leaves complete
run folders without rows. Each one describes itself (manifest.json, run.json,
summary.json), so its row is made again rather than the run being deleted and computed
anew (docs/sweeps.md, "Resuming")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sctplab.store_rows import RunKey, canonical_json, catalog_row, metrics_json


def adoptable_row(root: Path, rel: str) -> tuple[Any, ...] | None:
    """The catalog row of the run folder `rel` from its own files, or None when it is
    not a complete run folder of this store: its manifest.json must name the run
    whose key hashes to the folder's name, beside a summary.json."""
    folder = root / rel
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        summary_json = (folder / "summary.json").read_text(encoding="utf-8")
        run_json = json.loads((folder / "run.json").read_text(encoding="utf-8"))
        seed = manifest["seed"]
        key = RunKey(
            str(manifest["scenario_hash"]),
            canonical_json(manifest["parameters"]),
            seed,
            str(manifest["code_version"]),
        )
        if (
            type(seed) is not int
            or manifest.get("status") != "ok"
            or key.run_id != folder.name
            or manifest.get("run_id") != folder.name
            or not isinstance(run_json, dict)
        ):
            return None
        metrics = metrics_json(summary_json)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None
    wall, events = manifest.get("wall_time_s"), manifest.get("events")
    created = manifest.get("created_at")
    return catalog_row(
        key,
        str(manifest.get("scenario") or folder.parent.name),
        "ok",
        None,
        rel,
        wall if isinstance(wall, int | float) else None,
        events if type(events) is int else None,
        metrics,
        run_json,
        created if isinstance(created, str) else None,
    )
