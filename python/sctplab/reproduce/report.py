"""Runs studies and writes DIR/report.md plus each study's folder (CONTRACTS.md)."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path

from sctplab.reproduce import studies
from sctplab.reproduce.common import StudyResult, write_data_csv

# Every study CONTRACTS.md names, in seed order, with what is still missing.
ALL_STUDIES = ["satellite", "multistreaming", "newreno", "snoop", "manet"]
PENDING = {
    "manet": "seed 004: needs 802.11, mobility and AODV (not yet planned in an issue)",
}


def _section(res: StudyResult, folder: Path, out: Path, seconds: float) -> list[str]:
    lines = [
        f"## {res.title}",
        "",
        f"Study `{res.name}`, folder `{folder.relative_to(out)}/`, {seconds:.1f} s.",
        "",
    ]
    if res.settings:
        lines += ["Settings:", ""] + [f"- {s}" for s in res.settings] + [""]
    for t in res.tables:
        lines += [f"**{t.title}**", "", t.markdown, ""]
    for fig in res.figures:
        rel = os.path.relpath(fig.path, out)
        lines += [f"![{fig.caption}]({rel})", "", f"*{fig.caption}*", ""]
    if res.discussion:
        lines += ["Where we match the paper and where we do not:", ""]
        lines += [f"- {d}" for d in res.discussion] + [""]
    return lines


def reproduce(names: list[str], out: Path, quick: bool = False) -> Path:
    """Runs `names` (study names or ["all"]) into `out`; returns the report path."""
    from sctplab.runner import code_version

    available = studies()
    wanted = ALL_STUDIES if names == ["all"] else names
    out.mkdir(parents=True, exist_ok=True)
    version = code_version()
    lines = [
        "# sctplab reproduction report",
        "",
        f"Generated {datetime.now(UTC).isoformat(timespec='seconds')} by sctplab "
        f"{version['sctplab_version']} (commit {version['git_commit']}"
        f"{', dirty tree' if version['git_dirty'] else ''})"
        f"{', --quick: fewer seeds and shorter runs' if quick else ''}.",
        "",
        "Each study's folder holds its figures (PNG), tables (Markdown and CSV) and "
        "`data.csv` (`item,series,x_name,x,metric,mean,ci95,n,paper`).",
        "",
    ]
    for name in wanted:
        if name not in available:
            lines += [f"## {name}", "", f"Not run: {PENDING.get(name, 'unknown study')}.", ""]
            continue
        folder = out / name
        t0 = time.monotonic()
        res = available[name](folder, quick)
        write_data_csv(folder / "data.csv", res.rows)
        lines += _section(res, folder, out, time.monotonic() - t0)
    report = out / "report.md"
    report.write_text("\n".join(lines) + "\n")
    return report
