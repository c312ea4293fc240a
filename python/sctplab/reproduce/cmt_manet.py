"""Seed 004's multihomed MANET case with CMT (issue 35 item 7): does CMT help where plain
multihoming did not? The seed's SCTP flow (`scenarios/manet-sctp.toml`, 10 m/s, CBR
16 kb/s per flow) single-homed, multihomed (both endpoints with two 802.11 interfaces,
mobile or stationary) and multihomed with `cmt = true`, paired by movement scenario."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sctplab.reproduce.common import Figure, Row, Table, pyplot, save_figure
from sctplab.reproduce.manet_format import p_text
from sctplab.reproduce.manet_runs import Todo, run_cached
from sctplab.reproduce.manet_study import (
    BASE_RATE,
    FULL_END_S,
    LOAD_SPEED,
    QUICK_END_S,
    START_S,
    Key,
    sets_for,
)
from sctplab.reproduce.prose import join
from sctplab.stats import mean_ci, paired
from sctplab.tables import write_table

ITEM = "manet_cmt"
# data.csv series -> (seed 004's case, cmt).
SERIES: dict[str, tuple[str, bool]] = {
    "sctp-sh-mobile": ("sh-mobile", False),
    "sctp-mh-mobile": ("mh-mobile", False),
    "sctp-mh-mobile-cmt": ("mh-mobile", True),
    "sctp-mh-static": ("mh-static", False),
    "sctp-mh-static-cmt": ("mh-static", True),
}
METRICS = {
    "goodput_bps": "goodput (kb/s)",
    "retransmissions": "retransmitted data packets",
    "second_path_share": "share of bytes acked on n1:wlan1",
}
FULL_SEEDS = 12  # as seed 004
QUICK_SEEDS = 3


@dataclass
class Manet:
    seeds: int
    end_s: float
    runs: dict[Any, dict[str, Any]]
    reused: int

    def values(self, series: str, metric: str) -> list[float]:
        """One value per movement scenario, seeds in order (so the series pair up)."""
        return [_metric(self.runs[(series, s)], metric) for s in range(1, self.seeds + 1)]


def _metric(r: dict[str, Any], metric: str) -> float:
    f = r["flow"]
    if metric == "goodput_bps":
        return float(f["goodput_bps"])
    if metric == "retransmissions":
        return float(r["rtx_packets"])
    acked = {a: float(p["bytes_acked"]) for a, p in f["paths"].items()}
    total = sum(acked.values())
    # Single-homed flows have no second destination: nothing acked there.
    return acked.get("n1:wlan1", 0.0) / total if total else math.nan


def run(out: Path, quick: bool) -> Manet:
    seeds = QUICK_SEEDS if quick else FULL_SEEDS
    end_s = QUICK_END_S if quick else FULL_END_S
    todo: list[Todo] = []
    for seed in range(1, seeds + 1):
        for name, (case, cmt) in SERIES.items():
            sets = sets_for(Key("sctp", case, LOAD_SPEED, BASE_RATE, seed), end_s)
            if cmt:
                sets["flows.transport.cmt"] = True
            todo.append(((name, seed), "sctp", sets, seed))
    # The seed 004 study's run cache (`<DIR>/manet/runs.json`): the runs without CMT are
    # that study's own points (same overrides and seeds), so after `reproduce manet` (or
    # in `reproduce all`) only the CMT runs are new.
    manet_dir = out.parent / "manet"
    manet_dir.mkdir(parents=True, exist_ok=True)
    runs, reused = run_cached(manet_dir, todo)
    return Manet(seeds, end_s, runs, reused)


def settings(m: Manet) -> str:
    return (
        "MANET (item `manet_cmt`): seed 004's SCTP flow (`scenarios/manet-sctp.toml`: 46 "
        f"nodes in 1000 m x 300 m, random waypoint at up to {LOAD_SPEED} m/s, pause 0, AODV, "
        f"10 CBR flows of {BASE_RATE} kb/s, n0 -> n1 from {START_S:g} s to {m.end_s:g} s"
        + (", --quick; the seed: 920 s" if m.end_s != FULL_END_S else "")
        + "), single-homed (`sctp-sh-mobile`), with two 802.11 interfaces per endpoint on "
        "the one channel (`sctp-mh-mobile`; `sctp-mh-static`: the endpoints stay where they "
        "start) and the same with `cmt = true` (`-cmt`: ns-2.35's CMT defaults, RTX_CWND, "
        f"CMT-PF); {m.seeds} movement scenarios, the same movement and CBR pairs for every "
        "series of a scenario, so differences are paired. `second_path_share`: bytes acked "
        "on n1:wlan1 over both destinations' (summary.json `paths` `bytes_acked`)."
    )


def _ci(ci: float) -> float | None:
    return None if math.isnan(ci) else ci


def rows(m: Manet) -> list[Row]:
    out: list[Row] = []
    for name in SERIES:
        for metric in METRICS:
            mean, ci, n = mean_ci(m.values(name, metric))
            out.append(Row(ITEM, name, "max_speed", LOAD_SPEED, metric, mean, _ci(ci), n))
    return out


def _cell(xs: list[float], scale: float, digits: int) -> str:
    mean, ci, _ = mean_ci(xs)
    if math.isnan(mean):
        return "-"
    if math.isnan(ci):
        return f"{mean * scale:.{digits}f}"
    return f"{mean * scale:.{digits}f} ± {ci * scale:.{digits}f}"


def table(out: Path, m: Manet) -> Table:
    body = [
        [
            name,
            _cell(m.values(name, "goodput_bps"), 1e-3, 1),
            _cell(m.values(name, "retransmissions"), 1.0, 0),
            _cell(m.values(name, "second_path_share"), 1.0, 3),
        ]
        for name in SERIES
    ]
    md = write_table(out, "manet_cmt", ["series", *METRICS.values()], body)
    return Table(
        f"Seed 004's MANET ({LOAD_SPEED} m/s, CBR {BASE_RATE} kb/s per flow) with and "
        f"without CMT, {m.seeds} movement scenarios, mean ± 95 % CI",
        md,
    )


def figure(out: Path, m: Manet) -> Figure:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    stats = [mean_ci(m.values(name, "goodput_bps")) for name in SERIES]
    ax.bar(
        range(len(SERIES)),
        [s[0] / 1e3 for s in stats],
        yerr=[0 if math.isnan(s[1]) else s[1] / 1e3 for s in stats],
        capsize=4,
        color=["tab:gray", "tab:blue", "tab:red", "tab:cyan", "tab:orange"],
    )
    ax.set_xticks(range(len(SERIES)), list(SERIES), rotation=20, fontsize=8)
    ax.set_ylabel("goodput (kb/s)")
    ax.set_title(f"Seed 004's MANET at {LOAD_SPEED} m/s: SCTP with and without CMT (mean, 95% CI)")
    fig.tight_layout()
    png = out / "manet_cmt.png"
    return save_figure(
        fig,
        png,
        "Seed 004's MANET: goodput of single-homed, multihomed and multihomed CMT SCTP",
        dpi=120,
    )


def _diff(m: Manet, a: str, b: str) -> tuple[str, float, float]:
    d = paired(m.values(a, "goodput_bps"), m.values(b, "goodput_bps"))
    ci = "" if math.isnan(d.ci) else f" ± {d.ci / 1e3:.1f}"
    return f"{a} - {b} {d.mean / 1e3:+.1f}{ci} kb/s ({p_text(d.p)})", d.mean, d.p


def discussion(m: Manet) -> str:
    """The paired answers, each worded from its test (p < 0.05 or not)."""

    def verdict(text: str, mean: float, p: float) -> str:
        if p >= 0.05:
            return f"{text}: no difference at the 5 % level"
        return f"{text}: {'higher' if mean > 0 else 'lower'} at the 5 % level"

    plain = [_diff(m, f"sctp-{c}", "sctp-sh-mobile") for c in ("mh-mobile", "mh-static")]
    cmt = [_diff(m, f"sctp-{c}-cmt", f"sctp-{c}") for c in ("mh-mobile", "mh-static")]
    helped = [t for t, mean, p in cmt if p < 0.05 and mean > 0]
    plain_helped = [t for t, mean, p in plain if p < 0.05 and mean > 0]
    share = {
        name: mean_ci(m.values(name, "second_path_share"))[0]
        for name in SERIES
        if name.startswith("sctp-mh")
    }
    answer = (
        "CMT helps where plain multihoming did not"
        if helped and not plain_helped
        else (
            "CMT helps, and so did plain multihoming"
            if helped
            else "CMT does not help" + ("" if plain_helped else ", as plain multihoming did not")
        )
    )
    return (
        f"**Seed 004's MANET with CMT** ({m.seeds} movement scenarios, differences paired by "
        "scenario). Plain multihoming against single-homed: "
        + join(verdict(*x) for x in plain)
        + ". CMT against plain multihoming: "
        + join(verdict(*x) for x in cmt)
        + f". So, by these tests: {answer}. Share of the bytes acked on n1:wlan1: "
        + join(f"{k} {v:.3f}" for k, v in share.items())
        + "."
        + (
            " The scenario's two NICs per endpoint are on the one shared 802.11 channel "
            "(docs/models/wireless.md), so CMT's second destination adds frames on the "
            "same medium as the first's, not a second medium."
            if not helped
            else ""
        )
    )
