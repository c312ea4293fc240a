"""The CMT study's figures and tables (ToN 2006's style: goodput against the receive
buffer, one panel per path set-up; ours solid, ns-2.35's dashed in the same colour)."""

from __future__ import annotations

import math
from pathlib import Path

from sctplab.reproduce.cmt_data import ITEMS, Paths
from sctplab.reproduce.cmt_plan import BUFFER_SETUPS, LOSS_BUFFER, LOSS_ITEM, POLICIES
from sctplab.reproduce.common import Figure, Table, pyplot
from sctplab.tables import write_table

_COLOR = {
    "sp": "black",
    **{f"cmt-{p}": c for p, c in zip(POLICIES, ["C0", "C1", "C2", "C3", "C4"], strict=True)},
    "cmt-bs-nrsack": "C5",
    "cmt-bs-nrsack-unordered": "C6",
}


def _style(series: str) -> tuple[str, str]:
    """(colour, line style): ns-2.35's series dashed in the colour of ours."""
    if series.startswith("ns2-"):
        return _COLOR[series.removeprefix("ns2-")], "--"
    return _COLOR[series], "-"


def _plot(ax: object, p: Paths, item: str) -> None:
    xs = p.xs(item)
    for series in p.grid.series:
        color, ls = _style(series)
        st = [p.stat(item, series, x) for x in xs]
        ax.errorbar(  # type: ignore[attr-defined]
            xs,
            [m / 1e6 for m, _ in st],
            yerr=[ci / 1e6 for _, ci in st],
            color=color,
            linestyle=ls,
            marker="o" if ls == "-" else "x",
            markersize=4,
            capsize=2,
            label=series,
        )


def figures(out: Path, p: Paths) -> list[Figure]:
    plt = pyplot()
    fig, axes = plt.subplots(1, len(BUFFER_SETUPS), figsize=(15, 5.2), sharey=True)
    for ax, s in zip(axes, BUFFER_SETUPS, strict=True):
        _plot(ax, p, s.item)
        ax.set_xscale("log", base=2)
        ax.set_xticks(p.xs(s.item), [f"{int(b) // 1024}" for b in p.xs(s.item)])
        ax.set_xlabel("receive buffer (KiB)")
        ax.set_title(s.title)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("goodput (Mb/s)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=7, fontsize=8)
    fig.suptitle(
        "CMT over two 2 Mb/s paths: goodput vs receive buffer (ours solid, ns-2.35 dashed)"
    )
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    buf = out / "goodput_vs_buffer.png"
    fig.savefig(buf, dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    _plot(ax, p, LOSS_ITEM)
    ax.set_xlabel("loss probability on path B")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_title(f"Goodput vs loss on path B, receive buffer {LOSS_BUFFER // 1024} KiB")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="lower left")
    fig.tight_layout()
    loss = out / "goodput_vs_loss.png"
    fig.savefig(loss, dpi=110)
    plt.close(fig)
    return [
        Figure(
            buf,
            "Goodput of single path (`sp`), CMT with each retransmission policy and CMT with "
            "buffer splitting and NR-SACK against the receive buffer, ours beside ns-2.35's "
            "Agent/SCTP/CMT (dashed), mean and 95 % CI over seeds",
        ),
        Figure(
            loss,
            f"Goodput against the loss probability on path B ({LOSS_BUFFER // 1024} KiB "
            "receive buffer, equal delays), ours and ns-2.35's",
        ),
    ]


def _cell(p: Paths, item: str, series: str, x: float) -> str:
    m, ci = p.stat(item, series, x)
    if math.isnan(m):
        return "-"
    return f"{m / 1e6:.3f} ± {ci / 1e6:.3f}" if ci else f"{m / 1e6:.3f}"


def tables(out: Path, p: Paths) -> list[Table]:
    titles = {s.item: f"Goodput (Mb/s) vs receive buffer, {s.title}" for s in BUFFER_SETUPS}
    titles[LOSS_ITEM] = (
        f"Goodput (Mb/s) vs loss on path B, equal delays, {LOSS_BUFFER // 1024} KiB buffer"
    )
    result = []
    for item in ITEMS:
        xs = p.xs(item)
        head = [f"{x:g}" if item == LOSS_ITEM else f"{int(x) // 1024} KiB" for x in xs]
        body = [[s, *[_cell(p, item, s, x) for x in xs]] for s in p.grid.series]
        md = write_table(out, item, ["series", *head], body)
        result.append(Table(f"{titles[item]}; mean ± 95 % CI over {p.grid.seeds} seeds", md))
    return result
