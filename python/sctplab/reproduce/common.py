"""What every study produces: tidy rows for data.csv, tables, figures and a discussion,
gathered into report.md."""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA_COLUMNS = ["item", "series", "x_name", "x", "metric", "mean", "ci95", "n", "paper"]


@dataclass
class Row:
    """One line of data.csv (CONTRACTS.md)."""

    item: str
    series: str
    x_name: str
    x: float | int | str
    metric: str
    mean: float
    ci95: float | None
    n: int
    paper: float | None = None


@dataclass
class Figure:
    path: Path
    caption: str


def pyplot() -> Any:
    """matplotlib's pyplot on the file-only backend (reproductions run headless)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, png: Path, caption: str, *, dpi: int) -> Figure:
    """Writes `fig` (laid out by the caller) to `png`, frees it and names it for report.md."""
    fig.savefig(png, dpi=dpi)
    pyplot().close(fig)
    return Figure(png, caption)


@dataclass
class Table:
    title: str
    markdown: str


@dataclass
class StudyResult:
    name: str
    title: str
    rows: list[Row] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    discussion: list[str] = field(default_factory=list)
    settings: list[str] = field(default_factory=list)


def write_data_csv(path: Path, rows: list[Row]) -> None:
    with path.open("w", newline="") as f:
        # LF like every other file we write (the csv module's default ends lines in CRLF).
        w = csv.writer(f, lineterminator="\n")
        w.writerow(DATA_COLUMNS)
        for r in rows:
            w.writerow(
                [
                    r.item,
                    r.series,
                    r.x_name,
                    r.x,
                    r.metric,
                    _num(r.mean),
                    "" if r.ci95 is None else _num(r.ci95),
                    r.n,
                    "" if r.paper is None else _num(r.paper),
                ]
            )


def _num(v: float) -> str:
    return f"{v:.6g}"
