"""A study's run cache: one JSON object (cache key -> run result) in the study's folder,
kept per core build so an interrupted `sctplab reproduce` resumes where it stopped.

Results are saved as they arrive, at most `SAVE_EVERY_S` apart (a save rewrites the
whole file), and once more when the runs end or fail. Each save goes through a `.tmp`
file that replaces the cache, so an interruption mid-write never leaves a torn file.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sctplab.reproduce.pool import Point, Work, run_points

SAVE_EVERY_S = 60.0


class RunCache:
    """The results already in `path` plus those that arrive while running."""

    def __init__(self, path: Path, entries: dict[str, Any]) -> None:
        self.path = path
        self.entries = entries
        self._saved = time.monotonic()

    @classmethod
    def open(cls, path: Path, keep_when_dirty: Callable[[str], bool] | None = None) -> RunCache:
        """The cache at `path` (empty if there is none). A dirty tree's build is not
        identified by its commit, so then only the keys `keep_when_dirty` accepts are kept
        (none without it)."""
        from sctplab.code_version import build_info

        entries: dict[str, Any] = {}
        if path.is_file():
            if not build_info()["git_dirty"]:
                entries = json.loads(path.read_text())
            elif keep_when_dirty is not None:
                loaded: dict[str, Any] = json.loads(path.read_text())
                entries = {k: v for k, v in loaded.items() if keep_when_dirty(k)}
        return cls(path, entries)

    def __contains__(self, key: str) -> bool:
        return key in self.entries

    def __getitem__(self, key: str) -> Any:
        return self.entries[key]

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(self.entries))
        tmp.replace(self.path)
        self._saved = time.monotonic()

    def arrived(self, key: str, result: dict[str, Any]) -> None:
        """Keeps one new result, saving if the last save is `SAVE_EVERY_S` old."""
        self.entries[key] = result
        if time.monotonic() - self._saved > SAVE_EVERY_S:
            self.save()

    def run(self, points: list[Point], keys: list[str], work: Work) -> None:
        """Runs `points` (cache keys `keys`, in the same order) on the pool, keeping each
        result as it arrives; saves once more at the end, also when a run fails."""
        self._saved = time.monotonic()
        try:
            run_points(points, work=work, on_result=lambda j, r: self.arrived(keys[j], r))
        finally:
            if points:
                self.save()
