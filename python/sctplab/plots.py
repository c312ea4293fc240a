"""Plots of one run folder (`sctplab plot RUN_DIR`), from whatever files it has.

- `cwnd.png`: cwnd and ssthresh over time per flow, from series.parquet.
- `sequence.png`: packet number over time per flow, from sends.csv (new transmissions,
  fast and timeout retransmissions marked apart) with acks.csv's cumulative ack.
- `throughput.png`: throughput in 0.1 s bins, from trace.tr (IP bytes arriving at each
  flow's receiver) or else from sends.csv (payload bytes sent).
- `paths.png` (multihomed SCTP): per flow, the sending rate to each destination from
  sends.csv's `dest` column (new data and retransmissions apart, 1 s bins), with the
  run's `[[faults]]` marked and, when series.parquet has them (`--series state`), each
  destination's state (active, potentially failed, inactive) in a strip under the rates.

Figures are drawn on matplotlib's Agg canvas directly, never through pyplot, so calling
`sctplab.plot` from a notebook leaves the user's backend and figures alone.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sctplab._core import UsageError
from sctplab.scenario_input import show_path

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

BIN_S = 0.1

# Units of the sampled windows per flow type (docs/scenario.md: TCP windows are reported
# in segments, SCTP's in chunk bytes as in ns-2). Types not listed get an axis without a
# unit rather than a guess.
WINDOW_UNITS = {"tcp": "segments", "sctp": "bytes", "quic": "bytes"}

_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(B|KB|KiB|MB|MiB)\s*$")
_SIZE_FACTOR = {"B": 1, "KB": 1000, "KiB": 1024, "MB": 10**6, "MiB": 2**20}


@dataclass
class PlotResult:
    """PNG files written, and one note per plot that could not be drawn."""

    written: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


@dataclass
class _Run:
    dir: Path
    name: str
    nodes: list[str]
    flows: list[dict[str, Any]]
    faults: list[dict[str, Any]] = field(default_factory=list)

    def flow(self, name: str) -> dict[str, Any]:
        for f in self.flows:
            if f.get("name") == name:
                return f
        return {}

    def payload_bytes(self, flow: str) -> int | None:
        f = self.flow(flow)
        size = f.get("segment_size") if f.get("type") == "tcp" else f.get("packet_size")
        if not isinstance(size, str):
            return None
        m = _SIZE.match(size)
        return round(float(m.group(1)) * _SIZE_FACTOR[m.group(2)]) if m else None


def _read_run(run_dir: Path) -> _Run:
    try:
        is_run = run_dir.is_dir() and (run_dir / "summary.json").is_file()
    except OSError:  # a name too long, a loop of links
        is_run = False
    if not is_run:
        raise UsageError(f"{show_path(run_dir)}: not a run folder (no summary.json)")
    try:
        summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as e:
        raise UsageError(f"{run_dir / 'summary.json'}: unreadable ({e})") from None
    if not isinstance(summary, dict):
        raise UsageError(f"{run_dir / 'summary.json'}: unreadable (not a JSON object)")
    name = str(summary.get("scenario", run_dir.name))
    nodes: list[str] = []
    flows: list[dict[str, Any]] = []
    faults: list[dict[str, Any]] = []
    scen = run_dir / "scenario.toml"
    if scen.is_file():
        try:
            doc = tomllib.loads(scen.read_text(encoding="utf-8"))
            nodes = [str(n.get("name")) for n in doc.get("nodes", [])]
            flows = [dict(f) for f in doc.get("flows", [])]
            faults = [dict(f) for f in doc.get("faults", [])]
        except (OSError, ValueError, AttributeError, TypeError, RecursionError):
            pass  # names and sizes are niceties; the plots fall back to what the files say
    if not flows:
        flows = [{"name": n} for n in summary.get("flows", {})]
    return _Run(run_dir, name, nodes, flows, faults)


def _save(fig: Figure, path: Path) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=120)
    return path


def _flow_axes(n: int, title: str, height: float = 2.6) -> tuple[Figure, list[Any]]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 1.2 + height * n), layout="constrained")
    axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
    fig.suptitle(title)
    return fig, list(axes)


def _plot_cwnd(run: _Run) -> Path | str:
    path = run.dir / "series.parquet"
    if not path.is_file():
        return "cwnd.png skipped: no series.parquet (run with --series cwnd,ssthresh)"
    import pandas as pd

    series = pd.read_parquet(path)
    s = series[series["variable"].astype(str).isin(["cwnd", "ssthresh"])]
    if s.empty:
        return "cwnd.png skipped: series.parquet has no cwnd or ssthresh (--series cwnd,ssthresh)"
    s = s.assign(entity=s["entity"].astype(str), variable=s["variable"].astype(str))
    # Per-destination entities ("flow@node:iface") belong to paths.png.
    s = s[~s["entity"].str.contains("@", regex=False)]
    if s.empty:
        return "cwnd.png skipped: series.parquet has no per-flow cwnd or ssthresh"
    entities = list(dict.fromkeys(s["entity"]))
    fig, axes = _flow_axes(len(entities), f"Congestion window and ssthresh: {run.name}")
    for ax, entity in zip(axes, entities, strict=True):
        one = s[s["entity"] == entity]
        cwnd = one[one["variable"] == "cwnd"]
        ssth = one[one["variable"] == "ssthresh"]
        if not cwnd.empty:
            ax.step(cwnd["time_s"], cwnd["value"], where="post", lw=1.0, label="cwnd")
        if not ssth.empty:
            ax.step(ssth["time_s"], ssth["value"], where="post", lw=1.0, ls="--", label="ssthresh")
        # An "infinite" initial ssthresh would flatten cwnd to the axis: keep cwnd readable.
        if not cwnd.empty and not ssth.empty and ssth["value"].max() > 4 * cwnd["value"].max():
            ax.set_ylim(0, 1.5 * float(cwnd["value"].max()))
        unit = WINDOW_UNITS.get(str(run.flow(entity).get("type", "")))
        ax.set_ylabel(f"window ({unit})" if unit else "window")
        ax.set_title(entity, loc="left", fontsize="medium")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper right", fontsize="small")
    axes[-1].set_xlabel("time (s)")
    return _save(fig, run.dir / "cwnd.png")


_KINDS = {
    # kind: (label, plot style); retransmissions drawn larger and on top of new sends.
    "new": ("new", {"marker": ".", "ms": 2.5, "color": "C0", "zorder": 2}),
    "fast_rtx": ("fast retransmission", {"marker": "x", "ms": 7, "color": "C3", "zorder": 4}),
    "rto_rtx": (
        "timeout retransmission",
        {"marker": "o", "ms": 7, "mfc": "none", "mec": "C1", "mew": 1.5, "zorder": 4},
    ),
}


def _plot_sequence(run: _Run) -> Path | str:
    path = run.dir / "sends.csv"
    if not path.is_file():
        return "sequence.png skipped: no sends.csv (run with --trace sends,acks)"
    import pandas as pd

    sends = pd.read_csv(path)
    if sends.empty:
        return "sequence.png skipped: sends.csv has no rows"
    acks_path = run.dir / "acks.csv"
    acks = pd.read_csv(acks_path) if acks_path.is_file() else None
    flows = list(dict.fromkeys(sends["flow"].astype(str)))
    fig, axes = _flow_axes(len(flows), f"Sequence plot: {run.name}", height=3.2)
    for ax, flow in zip(axes, flows, strict=True):
        one = sends[sends["flow"].astype(str) == flow]
        for kind, (label, style) in _KINDS.items():
            k = one[one["kind"] == kind]
            if not k.empty:
                ax.plot(k["time_s"], k["seq"], ls="none", label=f"{label} ({len(k)})", **style)
        if acks is not None:
            a = acks[acks["flow"].astype(str) == flow]
            if not a.empty:
                ax.step(
                    a["time_s"],
                    a["cum_ack"],
                    where="post",
                    color="C2",
                    lw=0.9,
                    alpha=0.8,
                    label="cumulative ack",
                    zorder=1,
                )
        ax.set_ylabel("packet number")
        ax.set_title(flow, loc="left", fontsize="medium")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", fontsize="small", markerscale=1.0)
    axes[-1].set_xlabel("time (s)")
    return _save(fig, run.dir / "sequence.png")


def _bins(times: pd.Series, weights: pd.Series, end: float) -> tuple[Any, Any]:
    """Sums of `weights` per 0.1 s bin, [k * 0.1, (k + 1) * 0.1).

    Binned on integer nanoseconds: CBR packets fall exactly on bin edges, and float
    edges (0.1 * 3 = 0.30000000000000004) would move them to the neighbouring bin.
    """
    import numpy as np

    bin_ns = round(BIN_S * 1e9)
    idx = np.rint(times.to_numpy(dtype="float64") * 1e9).astype("int64") // bin_ns
    nbins = max(int(np.ceil(end / BIN_S - 1e-9)), int(idx.max()) + 1 if len(idx) else 1)
    totals = np.bincount(idx, weights=weights.to_numpy(dtype="float64"), minlength=nbins)
    edges = np.arange(nbins + 1) * BIN_S
    return edges, totals


def _trace_receptions(run: _Run) -> pd.DataFrame | None:
    """Packets arriving at their destination node, from trace.tr: time_s, flow, bytes."""
    import pandas as pd

    path = run.dir / "trace.tr"
    # ns-2 columns: event time from to type size flags fid src dst seq id.
    tr = pd.read_csv(
        path,
        sep=" ",
        header=None,
        usecols=[0, 1, 3, 5, 7, 9],
        names=["ev", "time_s", "to", "size", "fid", "dst"],
        dtype={"ev": str, "dst": str},
    )
    r = tr[tr["ev"] == "r"]
    if r.empty:
        return None
    # dst is "node.port": a packet has reached its receiver when the hop's far end is
    # that node (acks travel the other way and end at the sender, so they drop out).
    dst_node = r["dst"].str.split(".", n=1).str[0].astype("int64")
    arrived = r[r["to"].astype("int64") == dst_node]
    names = [str(f.get("name")) for f in run.flows]
    flow = arrived["fid"].map(lambda i: names[i] if 0 <= i < len(names) else f"flow {i}")
    return pd.DataFrame(
        {"time_s": arrived["time_s"], "flow": flow, "bytes": arrived["size"].astype("float64")}
    )


def _plot_throughput(run: _Run, sim_time: float) -> Path | str:
    import pandas as pd

    trace, sends = run.dir / "trace.tr", run.dir / "sends.csv"
    if trace.is_file():
        data = _trace_receptions(run)
        if data is None or data.empty:
            return "throughput.png skipped: trace.tr has no packet arriving at a receiver"
        scale, ylabel = 8 / BIN_S / 1e6, "throughput (Mb/s)"
        title = "Throughput at each receiver (trace.tr: IP bytes per 0.1 s)"
    elif sends.is_file():
        df = pd.read_csv(sends)
        if df.empty:
            return "throughput.png skipped: sends.csv has no rows"
        flows = list(dict.fromkeys(df["flow"].astype(str)))
        sizes = {f: run.payload_bytes(f) for f in flows}
        if all(s is not None for s in sizes.values()):
            weight = df["flow"].astype(str).map(sizes).astype("float64")
            scale, ylabel = 8 / BIN_S / 1e6, "sending rate (Mb/s)"
            title = "Sending rate per flow (sends.csv: payload bytes per 0.1 s, rtx included)"
        else:
            # Without a payload size we can still count packets honestly.
            weight = pd.Series(1.0, index=df.index)
            # (SCTP rows are DATA chunks, whose size depends on fragmentation.)
            scale, ylabel = 1 / BIN_S, "sending rate (sends.csv rows/s)"
            title = "Sending rate per flow (sends.csv: transmissions per 0.1 s, rtx included)"
        data = pd.DataFrame(
            {"time_s": df["time_s"], "flow": df["flow"].astype(str), "bytes": weight}
        )
    else:
        return "throughput.png skipped: no trace.tr or sends.csv (run with --trace ns2 or sends)"
    end = max(sim_time, float(data["time_s"].max()))
    flows = list(dict.fromkeys(data["flow"]))
    # One panel per flow: with long round-trip times a flow's 0.1 s bins swing between
    # zero and line rate, and two such curves on one axis cannot be told apart.
    fig, axes = _flow_axes(len(flows), f"{title}\n{run.name}", height=2.2)
    for i, (ax, flow) in enumerate(zip(axes, flows, strict=True)):
        one = data[data["flow"] == flow]
        edges, totals = _bins(one["time_s"], one["bytes"], end)
        ax.stairs(totals * scale, edges, fill=True, alpha=0.35, color=f"C{i}")
        ax.stairs(totals * scale, edges, lw=0.8, color=f"C{i}")
        ax.set_title(str(flow), loc="left", fontsize="medium")
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    return _save(fig, run.dir / "throughput.png")


PATH_BIN_S = 1.0


def _fault_time(at: object) -> float | None:
    """Seconds of a `[[faults]] at` value ("20s", "1500ms", ...)."""
    m = re.match(r"^\s*([0-9]*\.?[0-9]+)\s*(ns|us|ms|s)\s*$", str(at))
    if not m:
        return None
    return float(m.group(1)) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[m.group(2)]


def _plot_paths(run: _Run, sim_time: float) -> Path | str | None:
    """Per-destination sending rate of multihomed flows; None when no flow has two."""
    path = run.dir / "sends.csv"
    if not path.is_file():
        return None
    import pandas as pd

    sends = pd.read_csv(path)
    if sends.empty or "dest" not in sends.columns:
        return None
    sends = sends.assign(flow=sends["flow"].astype(str), dest=sends["dest"].astype(str))
    flows = [
        f for f in dict.fromkeys(sends["flow"]) if sends[sends["flow"] == f]["dest"].nunique() > 1
    ]
    if not flows:
        return None
    series = None
    spath = run.dir / "series.parquet"
    if spath.is_file():
        s = pd.read_parquet(spath)
        s = s[s["variable"].astype(str) == "state"]
        series = s.assign(entity=s["entity"].astype(str)) if not s.empty else None
    end = max(sim_time, float(sends["time_s"].max()))
    title = f"Sending rate per destination (sends.csv, {PATH_BIN_S:g} s bins): {run.name}"
    if series is None:
        fig, axes = _flow_axes(len(flows), title, 3.0)
        strips: list[Any] = [None] * len(flows)
    else:
        # Path state gets its own strip under each flow's rates: it is a category, not a
        # rate, and drawn on the rate axis it hid the curves.
        from matplotlib.figure import Figure

        fig = Figure(figsize=(9, 1.2 + 4.0 * len(flows)), layout="constrained")
        grid = fig.subplots(
            2 * len(flows), 1, sharex=True, squeeze=False, height_ratios=[3, 1] * len(flows)
        )[:, 0]
        fig.suptitle(title)
        axes, strips = list(grid[0::2]), list(grid[1::2])
    for ax, strip, flow in zip(axes, strips, flows, strict=True):
        one = sends[sends["flow"] == flow]
        # An SCTP row is one DATA chunk, a whole message unless messages are fragmented.
        m = _SIZE.match(str(run.flow(flow).get("message_size", "1448B")))
        size = round(float(m.group(1)) * _SIZE_FACTOR[m.group(2)]) if m else None
        unit = "Mb/s" if size else "chunks/s"
        scale = (size * 8 / 1e6 if size else 1.0) / PATH_BIN_S
        nbins = int(end / PATH_BIN_S) + 1
        edges = [i * PATH_BIN_S for i in range(nbins + 1)]
        dests = list(dict.fromkeys(one["dest"]))
        for i, dest in enumerate(dests):
            d = one[one["dest"] == dest]
            for kind, ls in (("new", "-"), ("rtx", ":")):
                k = d[d["kind"] == "new"] if kind == "new" else d[d["kind"] != "new"]
                if k.empty:
                    continue
                idx = (k["time_s"] // PATH_BIN_S).astype("int64").clip(upper=nbins - 1)
                counts = idx.value_counts().reindex(range(nbins), fill_value=0).to_numpy()
                label = f"{dest} {'new data' if kind == 'new' else 'retransmissions'} ({len(k)})"
                ax.stairs(counts * scale, edges, color=f"C{i}", ls=ls, lw=1.0, label=label)
            st = None if series is None else series[series["entity"] == f"{flow}@{dest}"]
            if strip is not None and st is not None and not st.empty:
                _state_strip(strip, i, st["time_s"].tolist(), st["value"].tolist(), end)
        if strip is not None:
            _state_legend(strip, dests)
        for f in run.faults:
            t = _fault_time(f.get("at"))
            if t is not None:
                ax.axvline(t, color="k", lw=0.8, ls="--")
                label = f.get("action", "") + (f" {f['link']}" if f.get("link") else "")
                ax.annotate(
                    str(label),
                    (t, 1.0),
                    xycoords=("data", "axes fraction"),
                    fontsize="small",
                    rotation=90,
                    va="top",
                    ha="right",
                )
        ax.set_ylabel(f"sending rate ({unit})")
        ax.set_ylim(bottom=0)
        ax.set_title(flow, loc="left", fontsize="medium")
        ax.grid(alpha=0.3)
        # Beside the panel, so it covers no curve.
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    (strips[-1] if strips[-1] is not None else axes[-1]).set_xlabel("time (s)")
    return _save(fig, run.dir / "paths.png")


# series.parquet's `state` values (1 active, 0.5 potentially failed, 0 inactive).
_STATES = [
    (1.0, "active", "tab:green"),
    (0.5, "potentially failed", "tab:orange"),
    (0.0, "inactive", "tab:red"),
]


def _state_strip(ax: Any, row: int, times: list[float], values: list[float], end: float) -> None:
    """One destination's state as coloured spans on row `row` of the strip."""
    bounds = [*times[1:], end]
    spans: dict[str, list[tuple[float, float]]] = {}
    for t, b, v in zip(times, bounds, values, strict=True):
        color = min(_STATES, key=lambda st: abs(st[0] - v))[2]
        spans.setdefault(color, []).append((t, max(b - t, 0.0)))
    for color, xs in spans.items():
        ax.broken_barh(xs, (row - 0.35, 0.7), facecolors=color)


def _state_legend(ax: Any, dests: list[str]) -> None:
    from matplotlib.patches import Patch

    ax.set_yticks(range(len(dests)), dests, fontsize="small")
    ax.set_ylim(-0.6, len(dests) - 0.4)
    ax.invert_yaxis()
    ax.set_ylabel("path state", fontsize="small")
    ax.legend(
        handles=[Patch(color=c, label=name) for _, name, c in _STATES],
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        fontsize="small",
    )


_T = TypeVar("_T")


def _guarded(run: _Run, files: list[str], draw: Callable[[], _T]) -> _T:
    """Runs one plot; a file that is not what sctplab writes (truncated, edited, another
    program's) is one line naming it, not a traceback."""
    try:
        return draw()
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, OSError) as e:
        present = [f for f in files if (run.dir / f).is_file()]
        named = " or ".join(str(run.dir / f) for f in present) or str(run.dir)
        why = " ".join(f"{type(e).__name__}: {e}".split())[:200]
        raise UsageError(f"{named}: unreadable or not as sctplab writes it ({why})") from None


def plot(run_dir: str | Path) -> PlotResult:
    """Draw the PNGs a run folder's files allow, into the folder; see the module doc.

    Raises UsageError when `run_dir` is not a run folder (no summary.json).
    """
    run = _read_run(Path(run_dir))
    summary = json.loads((run.dir / "summary.json").read_text(encoding="utf-8"))
    try:
        sim_time = float(summary.get("sim_time_s") or 0.0)
    except (TypeError, ValueError):
        raise UsageError(f"{run.dir / 'summary.json'}: sim_time_s is not a number") from None
    result = PlotResult()
    made_all = [
        _guarded(run, ["series.parquet"], lambda: _plot_cwnd(run)),
        _guarded(run, ["sends.csv", "acks.csv"], lambda: _plot_sequence(run)),
        _guarded(run, ["sends.csv", "trace.tr"], lambda: _plot_throughput(run, sim_time)),
    ]
    paths = _guarded(run, ["sends.csv"], lambda: _plot_paths(run, sim_time))
    if paths is not None:
        made_all.append(paths)
    for made in made_all:
        if isinstance(made, Path):
            result.written.append(made)
        else:
            result.skipped.append(made)
    return result
