"""The papers' claims, checked on the full (not --quick) studies of seeds 000, 001 and 003.

Expected values and directions come from the papers' text and Table 2 of seed 000, never
from our output. Where a paper's claim does not hold in our model (seed 003's "almost
half", seed 001's 35 % saving), the test checks what does hold and the report says how
far we are; see README "Reproducing the seed studies". The three full studies take about
a minute on two cores (seed 004's full study is in test_reproduce_manet.py, marked slow).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import sctplab

Rows = dict[tuple[str, str, str, str], dict[str, str]]


def _study(out: Path, name: str) -> Rows:
    r = sctplab("reproduce", name, "--out", out / name)
    assert r.returncode == 0, r.stderr
    with (out / name / name / "data.csv").open() as f:
        return {(d["item"], d["series"], d["x"], d["metric"]): d for d in csv.DictReader(f)}


@pytest.fixture(scope="module")
def full_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("full")


@pytest.fixture(scope="module")
def full(full_dir: Path) -> dict[str, Rows]:
    return {s: _study(full_dir, s) for s in ("satellite", "multistreaming", "snoop")}


def _mean(row: dict[str, str]) -> float:
    return float(row["mean"])


def _ci(row: dict[str, str]) -> float:
    return float(row["ci95"]) if row["ci95"] else 0.0


LOSSES = ("0.008", "0.009", "0.01", "0.015", "0.02", "0.025", "0.03")


def test_seed000_sctp_share_above_tcp_at_every_loss_rate(full: dict[str, Rows]) -> None:
    # Table 2: SCTP's percentage throughput (eq. 1) is above 50 % at every loss
    # probability, so above TCP's; here with the 95 % interval clear of 50 %.
    sat = full["satellite"]
    for loss in LOSSES:
        sctp = sat[("table2", "sctp", loss, "pct_throughput")]
        tcp = sat[("table2", "tcp", loss, "pct_throughput")]
        assert _mean(sctp) - _ci(sctp) > 50.0, (loss, sctp)
        assert _mean(sctp) > _mean(tcp), loss
        assert float(sctp["paper"]) > 50.0  # the paper's own column says the same


def test_seed000_link_utilisation_near_table2(full: dict[str, Rows]) -> None:
    # Table 2, eq. 3: link utilisation per loss probability. "Near" = within one
    # percentage point of the printed value (the table prints one decimal; 20 seeds).
    sat = full["satellite"]
    for loss in LOSSES:
        row = sat[("table2", "both", loss, "link_utilization")]
        assert abs(_mean(row) - float(row["paper"])) <= 1.0, (loss, row)
    # ...and it falls as the loss probability grows, as the table's column does.
    util = [_mean(sat[("table2", "both", x, "link_utilization")]) for x in LOSSES]
    assert util == sorted(util, reverse=True)


def test_seed001_four_streams_beat_one_at_small_buffers_with_loss(full: dict[str, Rows]) -> None:
    # Sec. IV (Figs. 10-11): with loss, four streams give more goodput than one for small
    # receive buffers (head-of-line blocking); without loss the number of streams does
    # not matter.
    ms = full["multistreaming"]
    small = [str(b * 1024) for b in (4, 6, 8, 10, 12, 15)]
    for e in ("0.01", "0.03", "0.05"):
        for b in small:
            one = ms[("goodput_vs_buffer", f"s1_e{e}", b, "goodput_bps")]
            four = ms[("goodput_vs_buffer", f"s4_e{e}", b, "goodput_bps")]
            assert _mean(four) > _mean(one), (e, b)
        # Paired over seeds at B = 15 KiB: the gain's interval is clear of zero.
        gain = ms[("stream_gain", "s4", e, "percent")]
        assert _mean(gain) - _ci(gain) > 0.0, (e, gain)
    for b in small:
        assert _mean(ms[("goodput_vs_buffer", "s1_e0", b, "goodput_bps")]) == _mean(
            ms[("goodput_vs_buffer", "s4_e0", b, "goodput_bps")]
        )
    # "About 10% increase in throughput over one stream at 3% error rate" (B = 15K):
    # within five percentage points.
    gain3 = ms[("stream_gain", "s4", "0.03", "percent")]
    assert float(gain3["paper"]) == 10.0
    assert abs(_mean(gain3) - 10.0) <= 5.0, gain3


def test_seed001_four_streams_need_a_smaller_buffer(full: dict[str, Rows]) -> None:
    # Sec. IV (Fig. 13): "the buffer size required for multistreaming is significantly
    # lower than for single streams ... similar saving is also evident for other error
    # rates". The paper's "about 35 %" at 1 % is in data.csv's `paper` column; our
    # saving there is reported beside it (the report discusses the difference).
    ms = full["multistreaming"]
    for e in ("0.01", "0.03", "0.05"):
        one = _mean(ms[("optimal_buffer", "s1", e, "buffer_bytes")])
        four = _mean(ms[("optimal_buffer", "s4", e, "buffer_bytes")])
        assert four < one, e
        saving = ms[("buffer_saving", "s4", e, "percent")]
        assert _mean(saving) == pytest.approx(100 * (1 - four / one))
    assert float(ms[("buffer_saving", "s4", "0.01", "percent")]["paper"]) == 35.0


SIZES = [str(mb * 1_000_000) for mb in range(1, 11)]


def _times(full: dict[str, Rows], proto: str) -> list[dict[str, str]]:
    return [full["snoop"][("transfer_time", proto, x, "transfer_time_s")] for x in SIZES]


def test_seed003_orderings(full: dict[str, Rows]) -> None:
    # Sec. 4-5: SCTP transfers faster than TCP; TCP-snoop faster than plain SCTP;
    # SCTP-snoop faster than plain SCTP and than TCP-snoop. Each ordering on the total
    # time over the ten file sizes (what Figs. 4-6 compare), and the first two at every
    # size with the intervals apart (20 seeds).
    tot = {p: sum(_mean(r) for r in _times(full, p)) for p in ("tcp", "tcp-snoop", "sctp")}
    tot["sctp-snoop"] = sum(_mean(r) for r in _times(full, "sctp-snoop"))
    assert tot["sctp"] < tot["tcp"]
    assert tot["tcp-snoop"] < tot["sctp"]
    assert tot["sctp-snoop"] < tot["sctp"]
    assert tot["sctp-snoop"] < tot["tcp-snoop"]
    for a, b in zip(_times(full, "sctp"), _times(full, "tcp"), strict=True):
        assert _mean(a) + _ci(a) < _mean(b) - _ci(b), (a, b)
    for a, b in zip(_times(full, "tcp-snoop"), _times(full, "sctp"), strict=True):
        assert _mean(a) + _ci(a) < _mean(b) - _ci(b), (a, b)


def test_seed003_almost_half_is_reported_as_it_is(full: dict[str, Rows], full_dir: Path) -> None:
    # Sec. 4.2: SCTP's transfer time is "almost half" of TCP's. data.csv carries the
    # paper's 0.5 beside our ratio (paired by seed) for every file size; SCTP is faster
    # (ratio below one); and the report says "Matches" only if the ratio is near half.
    ratios = []
    for x in SIZES:
        row = full["snoop"][("time_ratio", "sctp_over_tcp", x, "ratio")]
        assert float(row["paper"]) == 0.5
        assert _mean(row) + _ci(row) < 1.0, row
        ratios.append(_mean(row))
    report = (full_dir / "snoop" / "report.md").read_text()
    line = next(ln for ln in report.splitlines() if ln.startswith("- **SCTP vs TCP**"))
    near_half = all(r <= 0.6 for r in ratios)
    assert ("Matches." in line) == near_half, line
