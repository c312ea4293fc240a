"""Runs studies and writes DIR/report.md plus each study's folder (CONTRACTS.md).

Each study's section (its settings, tables, figure captions, discussion, when and by
which build it ran) is kept in its own folder as `section.json`, beside `data.csv` and
the figures it names, and report.md is assembled from every study folder under DIR. So
`sctplab reproduce manet` after `sctplab reproduce all` replaces the MANET section and
keeps the other four."""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sctplab.reproduce import Reproducer, studies
from sctplab.reproduce.common import StudyResult, write_data_csv
from sctplab.reproduce.pool import default_jobs, progress_label
from sctplab.reproduce.prose import VERDICT_RULE

# Every study CONTRACTS.md names, in seed order.
ALL_STUDIES = [
    "satellite",
    "multistreaming",
    "newreno",
    "snoop",
    "manet",
    "messaging",
    "routing",
    "leo",
    "transports",
    "cmt",
]
# Studies `reproduce all` runs at their --quick size: their full plan alone takes longer
# than the 15 minutes on two cores `all` has (routing: 3,015 s of CPU for 630 runs of
# 900 s and seed 004's 72, measured in session 21, about 25 minutes of two idle cores;
# docs/routing.md), or more than what is left of them (cmt: see docs/cmt.md for its
# costs). Their sections say `--quick`;
# `sctplab reproduce routing` (`cmt`) runs the full plan.
ALL_AT_QUICK_SIZE = {"routing", "cmt"}
SECTION_FILE = "section.json"


@dataclass
class Outcome:
    """What `reproduce` did: the report, the studies that ran (with their wall time) and
    those that failed (with the reason)."""

    report: Path
    ran: list[tuple[str, float]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


def _say(line: str) -> None:
    print(f"sctplab reproduce: {line}", file=sys.stderr, flush=True)


def _build(quick: bool) -> dict[str, Any]:
    from sctplab.code_version import build_info

    v = build_info()
    return {
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "version": v["sctplab_version"],
        "commit": v["git_commit"],
        "dirty": bool(v["git_dirty"]),
        "quick": quick,
    }


def _save_section(folder: Path, section: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / (SECTION_FILE + ".tmp")
    tmp.write_text(json.dumps(section, indent=1) + "\n")
    tmp.replace(folder / SECTION_FILE)


def _section_of(
    name: str, res: StudyResult, folder: Path, seconds: float, quick: bool
) -> dict[str, Any]:
    return {
        "name": name,
        "title": res.title,
        "seconds": round(seconds, 1),
        **_build(quick),
        "settings": res.settings,
        "tables": [{"title": t.title, "markdown": t.markdown} for t in res.tables],
        # Figures relative to the study's folder, so the folder can move with them.
        "figures": [
            {"path": os.path.relpath(f.path, folder), "caption": f.caption} for f in res.figures
        ],
        "discussion": res.discussion,
    }


def _when(s: dict[str, Any]) -> str:
    dirty = ", dirty tree" if s.get("dirty") else ""
    quick = ", `--quick`: fewer seeds and shorter runs" if s.get("quick") else ""
    return f"run {s['generated']} by sctplab {s['version']} (commit {s['commit']}{dirty}){quick}"


def _markdown(s: dict[str, Any]) -> list[str]:
    name = s["name"]
    if "failed" in s:
        return [f"## {s.get('title', name)}", "", f"Failed: {s['failed']} ({_when(s)}).", ""]
    lines = [
        f"## {s['title']}",
        "",
        f"Study `{name}`, folder `{name}/`, {s['seconds']:.1f} s, {_when(s)}.",
        "",
    ]
    if s["settings"]:
        lines += ["Settings:", ""] + [f"- {x}" for x in s["settings"]] + [""]
    for t in s["tables"]:
        lines += [f"**{t['title']}**", "", t["markdown"], ""]
    for fig in s["figures"]:
        rel = Path(name, fig["path"]).as_posix()
        lines += [f"![{fig['caption']}]({rel})", "", f"*{fig['caption']}*", ""]
    if s["discussion"]:
        lines += ["Where we match the paper and where we do not:", ""]
        lines += [f"- {d}" for d in s["discussion"]] + [""]
    return lines


def _read_section(folder: Path) -> dict[str, Any] | None:
    path = folder / SECTION_FILE
    if not path.is_file():
        return None
    try:
        s = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        return {
            "name": folder.name,
            "generated": "?",
            "version": "?",
            "commit": "?",
            "failed": f"{path} is unreadable ({e}); run the study again",
        }
    return s if isinstance(s, dict) else None


def write_report(out: Path) -> Path:
    """report.md from every study section under `out`: the contract's studies in seed
    order, then any other study folder with a section, by name."""
    names = [n for n in ALL_STUDIES if (out / n / SECTION_FILE).is_file()]
    names += sorted(
        p.parent.name for p in out.glob(f"*/{SECTION_FILE}") if p.parent.name not in ALL_STUDIES
    )
    sections = [s for n in names if (s := _read_section(out / n)) is not None]
    b = _build(False)
    lines = [
        "# sctplab reproduction report",
        "",
        f"Assembled {b['generated']} from the {len(sections)} studies whose results are in "
        "this folder; each section says when and by which build its study ran. Each "
        "study's folder holds its figures (PNG), tables (Markdown and CSV), `data.csv` "
        "(`item,series,x_name,x,metric,mean,ci95,n,paper`) and `section.json` (this "
        "report's section).",
        "",
    ]
    lines += [VERDICT_RULE, ""]
    if any(s.get("quick") for s in sections):
        lines += [
            "Sections marked `--quick` ran fewer seeds and shorter runs than the papers: "
            "a first look, not a reproduction.",
            "",
        ]
    for s in sections:
        lines += _markdown(s)
    report = out / "report.md"
    report.write_text("\n".join(lines) + "\n")
    return report


def reproduce(
    names: list[str],
    out: Path,
    quick: bool = False,
    registry: dict[str, Reproducer] | None = None,
    jobs: int | None = None,
) -> Outcome:
    """Runs `names` (study names or ["all"]) into `out` on `jobs` processes (default one
    per core). A study that fails is reported (in report.md and on stderr) and the others
    still run; report.md then gathers every study in `out`, this run's and earlier ones'."""
    available = studies() if registry is None else registry
    wanted = ALL_STUDIES if names == ["all"] else names
    out.mkdir(parents=True, exist_ok=True)
    outcome = Outcome(out / "report.md")
    for i, name in enumerate(wanted, 1):
        _say(f"[{i}/{len(wanted)}] {name}: started")
        folder = out / name
        study_quick = quick or (names == ["all"] and name in ALL_AT_QUICK_SIZE)
        t0 = time.monotonic()
        if name not in available:
            reason = "unknown study"
            outcome.failed.append((name, reason))
            _say(f"[{i}/{len(wanted)}] {name}: not run: {reason}")
            continue
        try:
            with progress_label(f"[{i}/{len(wanted)}] {name}"), default_jobs(jobs):
                res = available[name](folder, study_quick)
            write_data_csv(folder / "data.csv", res.rows)
        except Exception as e:
            reason = " ".join(f"{type(e).__name__}: {e}".split())
            outcome.failed.append((name, reason))
            # The folder may hold this failed run's partial output: its section says so.
            _save_section(folder, {"name": name, **_build(study_quick), "failed": reason})
            _say(
                f"[{i}/{len(wanted)}] {name}: FAILED after {time.monotonic() - t0:.0f} s: {reason}"
            )
            if os.environ.get("SCTPLAB_DEBUG"):
                traceback.print_exc()
            continue
        seconds = time.monotonic() - t0
        outcome.ran.append((name, seconds))
        _save_section(folder, _section_of(name, res, folder, seconds, study_quick))
        _say(f"[{i}/{len(wanted)}] {name}: done in {seconds:.0f} s")
    write_report(out)
    return outcome
