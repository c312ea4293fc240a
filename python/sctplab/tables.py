"""Report tables: Markdown for the reports, with a CSV twin on disk."""

from __future__ import annotations

import csv
from pathlib import Path


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
