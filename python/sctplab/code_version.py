"""The name of the code that computes runs, as the store keys them (`code_version`), and
the build facts run.json records (`build_info`).

A module of its own so that sweep workers, which need it for every result, do not
import the store (sqlite3, hashlib) at start-up.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from sctplab import _core


@lru_cache(maxsize=1)
def code_version() -> str:
    """`<version>+<commit>`, plus a hash of the extension when the tree was dirty.

    The commit alone does not name the code that ran when the build had uncommitted
    changes, and caching results under it would hand back numbers from other code; the
    extension's own bytes do name it (the worker runs nothing but `_core`).
    """
    commit = _core.__git_commit__
    version = f"{_core.__version__}+{commit[:12]}"
    if _core.__git_dirty__ or commit == "unknown":
        import hashlib

        digest = hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:12]
        version += f".dirty.{digest}"
    return version


def build_info() -> dict[str, Any]:
    """run.json's `sctplab_version`, `git_commit` and `git_dirty`: the build's own words,
    which `code_version` condenses into one key."""
    return {
        "sctplab_version": _core.__version__,
        "git_commit": _core.__git_commit__,
        "git_dirty": _core.__git_dirty__,
    }
