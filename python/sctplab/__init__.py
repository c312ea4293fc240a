"""sctplab: a discrete-event simulator for SCTP and TCP studies.

The simulation core is Rust (``sctplab._core``); this package is the front: scenario
input, run folders, the command line.
"""

from sctplab._core import ScenarioError, UsageError
from sctplab._core import __version__ as __version__
from sctplab.runner import RunResult, run

__all__ = ["RunResult", "ScenarioError", "UsageError", "__version__", "run"]
