"""Typed stub of the Rust extension module (crates/sctplab-py)."""

from typing import TypedDict

__version__: str
__git_commit__: str
__git_dirty__: bool

class ScenarioError(ValueError):
    """A scenario file, dict or override is invalid."""

class UsageError(ValueError):
    """An option outside the scenario is invalid."""

class RunError(RuntimeError):
    """A run was stopped before its end: a livelock, simulated time at its maximum, a
    limit, or its wall-clock timeout."""

class SeriesColumns(TypedDict):
    time_s: bytes
    entity: bytes
    variable: bytes
    value: bytes
    entity_names: list[str]
    variable_names: list[str]

class RawRun(TypedDict):
    name: str
    resolved_toml: str
    summary_json: str
    events: int
    sim_time_s: float
    wall_s: float
    series: SeriesColumns

def resolve(
    text: str,
    *,
    is_json: bool = False,
    source: str = "<string>",
    default_name: str = "scenario",
    sets: list[tuple[str, str]] = ...,
) -> tuple[str, str]: ...
def run(
    text: str,
    *,
    is_json: bool = False,
    source: str = "<string>",
    default_name: str = "scenario",
    sets: list[tuple[str, str]] = ...,
    seed: int = 1,
    out_dir: str | None = None,
    pcap: bool = False,
    traces: list[str] = ...,
    series: list[str] = ...,
    progress: bool = False,
    timeout_s: float | None = None,
) -> RawRun: ...
def movement(
    text: str,
    *,
    is_json: bool = False,
    source: str = "<string>",
    default_name: str = "scenario",
    sets: list[tuple[str, str]] = ...,
    seed: int = 1,
) -> str: ...
def mobility_file(text: str) -> str | None: ...
