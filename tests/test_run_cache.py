"""The reproduce studies' run cache: file format, dirty-tree policy, saves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sctplab.reproduce import run_cache
from sctplab.reproduce.pool import Point
from sctplab.reproduce.run_cache import RunCache


def _double(point: Point) -> dict[str, Any]:
    return {"twice": 2 * point[2]}


def _dirty(monkeypatch: pytest.MonkeyPatch, dirty: bool) -> None:
    import sctplab.code_version

    monkeypatch.setattr(sctplab.code_version, "build_info", lambda: {"git_dirty": dirty})


def test_runs_are_saved_as_one_json_object_and_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _dirty(monkeypatch, False)
    path = tmp_path / "study" / "runs.json"
    cache = RunCache.open(path)
    assert "a" not in cache
    cache.run([({}, {}, 3), ({}, {}, 5)], ["a", "b"], work=_double)
    assert json.loads(path.read_text()) == {"a": {"twice": 6}, "b": {"twice": 10}}
    assert not path.with_name("runs.json.tmp").exists()
    again = RunCache.open(path)
    assert again["b"] == {"twice": 10}


def test_a_dirty_build_keeps_only_what_it_is_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "runs.json"
    path.write_text(json.dumps({'["ns2", 1]': 1, '["ours", 1]': 2}))
    _dirty(monkeypatch, True)
    assert RunCache.open(path).entries == {}
    kept = RunCache.open(path, keep_when_dirty=lambda k: '"ns2"' in k)
    assert kept.entries == {'["ns2", 1]': 1}


def test_saves_at_most_once_a_period(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(run_cache.time, "monotonic", lambda: now[0])
    path = tmp_path / "runs.json"
    cache = RunCache(path, {})
    cache.arrived("a", {"x": 1})
    assert not path.exists()
    now[0] += run_cache.SAVE_EVERY_S + 1
    cache.arrived("b", {"x": 2})
    assert json.loads(path.read_text()) == {"a": {"x": 1}, "b": {"x": 2}}
    cache.arrived("c", {"x": 3})
    assert "c" not in json.loads(path.read_text())


def test_nothing_to_run_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    RunCache(path, {}).run([], [], work=_double)
    assert not path.exists()
