"""sctplab: a discrete-event simulator for SCTP and TCP studies.

The simulation core is Rust (``sctplab._core``); this package is the front: scenario
input, run folders, the command line, sweeps, the results store, statistics and plots.
"""

from sctplab import stats as stats
from sctplab._core import ScenarioError, UsageError
from sctplab._core import __version__ as __version__
from sctplab.plots import PlotResult, plot
from sctplab.runner import RunResult, run
from sctplab.store import load
from sctplab.sweeps import sweep

__all__ = [
    "PlotResult",
    "RunResult",
    "ScenarioError",
    "UsageError",
    "__version__",
    "load",
    "plot",
    "run",
    "stats",
    "sweep",
]
