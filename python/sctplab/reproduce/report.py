"""Runs studies and writes DIR/report.md plus each study's folder (CONTRACTS.md)."""

from __future__ import annotations

import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sctplab.reproduce import Reproducer, studies
from sctplab.reproduce.common import StudyResult, write_data_csv
from sctplab.reproduce.pool import progress_label

# Every study CONTRACTS.md names, in seed order.
ALL_STUDIES = ["satellite", "multistreaming", "newreno", "snoop", "manet"]


@dataclass
class Outcome:
    """What `reproduce` did: the report, the studies that ran (with their wall time) and
    those that failed (with the reason)."""

    report: Path
    ran: list[tuple[str, float]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


def _say(line: str) -> None:
    print(f"sctplab reproduce: {line}", file=sys.stderr, flush=True)


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


def reproduce(
    names: list[str],
    out: Path,
    quick: bool = False,
    registry: dict[str, Reproducer] | None = None,
) -> Outcome:
    """Runs `names` (study names or ["all"]) into `out`. A study that fails is reported
    (in report.md and on stderr) and the others still run."""
    from sctplab.runner import code_version

    available = studies() if registry is None else registry
    wanted = ALL_STUDIES if names == ["all"] else names
    out.mkdir(parents=True, exist_ok=True)
    version = code_version()
    outcome = Outcome(out / "report.md")
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
    for i, name in enumerate(wanted, 1):
        _say(f"[{i}/{len(wanted)}] {name}: started")
        folder = out / name
        t0 = time.monotonic()
        if name not in available:
            reason = "unknown study"
            outcome.failed.append((name, reason))
            lines += [f"## {name}", "", f"Not run: {reason}.", ""]
            _say(f"[{i}/{len(wanted)}] {name}: not run: {reason}")
            continue
        try:
            with progress_label(f"[{i}/{len(wanted)}] {name}"):
                res = available[name](folder, quick)
            write_data_csv(folder / "data.csv", res.rows)
        except Exception as e:
            reason = " ".join(f"{type(e).__name__}: {e}".split())
            outcome.failed.append((name, reason))
            lines += [f"## {name}", "", f"Failed: {reason}", ""]
            _say(
                f"[{i}/{len(wanted)}] {name}: FAILED after {time.monotonic() - t0:.0f} s: {reason}"
            )
            if os.environ.get("SCTPLAB_DEBUG"):
                traceback.print_exc()
            continue
        seconds = time.monotonic() - t0
        outcome.ran.append((name, seconds))
        lines += _section(res, folder, out, seconds)
        _say(f"[{i}/{len(wanted)}] {name}: done in {seconds:.0f} s")
    outcome.report.write_text("\n".join(lines) + "\n")
    return outcome
