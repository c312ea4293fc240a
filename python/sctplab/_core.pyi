"""Typed stub of the Rust extension module (crates/sctplab-py)."""

from typing import NotRequired, TypedDict

__version__: str
__git_commit__: str
__git_dirty__: bool

class ScenarioError(ValueError):
    """A scenario file, dict or override is invalid."""

class UsageError(ValueError):
    """An option outside the scenario is invalid."""

class RunError(RuntimeError):
    """A run was stopped before its end: a livelock, simulated time at its maximum, a
    limit, its wall-clock timeout, or an internal error (a broken rule of the simulator)."""

class SeriesColumns(TypedDict):
    time_s: bytes
    entity: bytes
    variable: bytes
    value: bytes
    entity_names: list[str]
    variable_names: list[str]
    # Rows before those above are in the `series_spill` file, in whole chunks.
    spilled_rows: int
    spill_chunk_rows: int

class RawRun(TypedDict):
    name: str
    resolved_toml: str
    summary_json: str
    events: int
    sim_time_s: float
    wall_s: float
    series: SeriesColumns
    # Only with `catalog_metrics=True`: what `catalog_metrics(summary_json)` gives.
    metrics_json: NotRequired[str | None]

def resolve(
    text: str,
    *,
    is_json: bool = False,
    source: str = "<string>",
    default_name: str = "scenario",
    sets: list[tuple[str, str]] = ...,
) -> tuple[str, str]: ...
def catalog_metrics(summary_json: str) -> str | None:
    """The catalog's metrics column of a summary.json text (sctplab.store_rows.metrics_json),
    or None for a text the core never writes."""

def indent_json(value: object) -> str | None:
    """json.dumps(value, indent=2) (sctplab.store.indent_json), or None for a value left
    to json.dumps itself."""

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
    series_spill: str | None = None,
    series_disk_limit: int | None = None,
    catalog_metrics: bool = False,
    max_output: str | None = None,
    output_notes: bool = False,
    shortcuts: str = "all",
) -> RawRun: ...
def check_shortcuts(text: str) -> None: ...
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

class LiveResult(TypedDict):
    outcome: str
    line: str
    summary_json: str

def live(
    role: str,
    *,
    bind: str,
    udp_port: int,
    sctp_port: int,
    remote: str | None = None,
    remote_udp_port: int = 0,
    local_sctp_port: int | None = None,
    sets: list[tuple[str, str]] = ...,
    scenario_text: str | None = None,
    scenario_source: str = "<string>",
    flow_name: str | None = None,
    timeout: float | None = None,
    linger: float = 0.0,
    pcap: str | None = None,
    seed: int | None = None,
    reconfig: bool = False,
    reset_after: int | None = None,
    pr: str | None = None,
) -> LiveResult: ...
def live_relay(
    *,
    listen: str,
    listen_port: int,
    server: str,
    server_port: int,
    loss: float = 0.0,
    delay: float = 0.0,
    jitter: float = 0.0,
    reorder: float = 0.0,
    reorder_delay: float = 0.0,
    duplicate: float = 0.0,
    drop_chunks: list[tuple[int, int]] = ...,
    seed: int = 1,
    timeout: float | None = None,
) -> str: ...
