"""What every study produces: tidy rows for data.csv, tables, figures and a discussion,
gathered into report.md."""

from __future__ import annotations

import csv
import tomllib
from dataclasses import dataclass, field
from importlib import resources
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


def scenarios_dir() -> Path:
    """The shipped scenarios (package data)."""
    return Path(str(resources.files("sctplab") / "scenarios"))


def load_scenario(relpath: str) -> dict[str, Any]:
    with (scenarios_dir() / relpath).open("rb") as f:
        return tomllib.load(f)


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


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def write_table(folder: Path, stem: str, header: list[str], rows: list[list[str]]) -> str:
    """Writes `<stem>.md` and `<stem>.csv`; returns the Markdown."""
    md = markdown_table(header, rows)
    (folder / f"{stem}.md").write_text(md + "\n")
    with (folder / f"{stem}.csv").open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    return md
