"""The network animator (issue 41): `sctplab animate RUN_DIR` and `sctplab.animate(run_dir)`
turn a run's animation trace (`--trace anim`) into one self-contained web page that
plays the run (docs/animate.md).

`sctplab.animate` is this package and can be called: `sctplab.animate("runs/x-1")`
is `sctplab.animate.animate("runs/x-1")`.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

from sctplab._core import UsageError
from sctplab.animate.page import render
from sctplab.animate.trace import read


class Animation:
    """A run's page: `html` is its text, `save(path)` writes it, and a Jupyter notebook
    shows it inline (`_repr_html_`, in a sandboxed frame so the page's script and
    styles stay apart from the notebook's)."""

    def __init__(self, run_dir: Path, html: str) -> None:
        self.run_dir = run_dir
        self.html = html

    def save(self, path: str | os.PathLike[str]) -> Path:
        out = Path(path)
        try:
            out.write_text(self.html, encoding="utf-8")
        except OSError as e:
            raise UsageError(f"{out}: cannot write: {e.strerror or type(e).__name__}") from e
        return out

    def _repr_html_(self) -> str:
        import html

        return (
            '<iframe sandbox="allow-scripts" style="width:100%;height:760px;border:0" '
            f'srcdoc="{html.escape(self.html, quote=True)}"></iframe>'
        )

    def __repr__(self) -> str:
        return f"Animation({str(self.run_dir)!r}, {len(self.html)} characters)"


def animate(run_dir: str | os.PathLike[str]) -> Animation:
    """The page of the run in `run_dir` (run with `--trace anim`). A folder without the
    trace, or a trace of another version, raises `UsageError` with one line."""
    if not isinstance(run_dir, str | os.PathLike):
        raise TypeError(f"run_dir: expected a folder path, not {type(run_dir).__name__}")
    path = Path(run_dir)
    return Animation(path, render(read(path)))


class _CallableModule(types.ModuleType):
    # `sctplab.animate(run_dir)`: the package answers a call as its `animate` function.
    def __call__(self, run_dir: str | os.PathLike[str]) -> Animation:
        return animate(run_dir)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["Animation", "animate"]
