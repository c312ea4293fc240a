"""sctplab: a discrete-event simulator for SCTP and TCP studies.

The simulation core is Rust (``sctplab._core``); this package is the front: scenario
input, run folders, the command line, sweeps, the results store, statistics and plots.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sctplab._core import RunError, ScenarioError, UsageError
from sctplab._core import __version__ as __version__
from sctplab.runner import RunResult, movement, run

if TYPE_CHECKING:
    from sctplab import stats as stats
    from sctplab.plots import PlotResult, plot
    from sctplab.store import load
    from sctplab.sweeps import sweep

# Loaded on first use: the CLI imports this package at start-up, and `sctplab run` needs
# none of the sweep, store or plotting code.
_LAZY = {
    "sweep": ("sctplab.sweeps", "sweep"),
    "load": ("sctplab.store", "load"),
    "plot": ("sctplab.plots", "plot"),
    "PlotResult": ("sctplab.plots", "PlotResult"),
    "stats": ("sctplab.stats", None),
    # A package that can be called: `sctplab.animate(run_dir)` (sctplab/animate).
    "animate": ("sctplab.animate", None),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'sctplab' has no attribute {name!r}")
    module_name, attr = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    # The lazy names too, without importing them (`import sctplab` stays light).
    return sorted({*globals(), *_LAZY})


__all__ = [
    "PlotResult",
    "RunError",
    "RunResult",
    "ScenarioError",
    "UsageError",
    "__version__",
    "animate",
    "load",
    "movement",
    "plot",
    "run",
    "stats",
    "sweep",
]
