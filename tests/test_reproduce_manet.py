"""Seed 004 (`sctplab reproduce manet`): the packet counting and statistics it relies on,
the progress and failure reporting of `sctplab reproduce`, and (slow) the paper's claims
that our full study reproduces."""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterable
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import sctplab

from sctplab import stats
from sctplab.cli import cli
from sctplab.reproduce import manet, manet_experiments, manet_mobility, pool, report
from sctplab.reproduce.common import Row, StudyResult
from sctplab.scenario_paths import load_scenario

# 700-byte DATA chunks (16-byte header included) in 1500-byte packets: 20 (IP) + 12
# (common header) + 2 x 700 = 1432 bytes, and a third chunk would not fit.
SCTP_CHUNKS_PER_PACKET = 2


def count_packets(rows: Iterable[tuple[str, str, str]], per_packet: int) -> tuple[int, int]:
    """(packets carrying new data, packets carrying none) from sends.csv rows of one flow
    (time_s, kind, dest), one row per DATA chunk or TCP segment: the trace's way of
    counting what summary.json's `retransmitted_packets` counts in the sender.

    Our SCTP sender never mixes new and retransmitted chunks in one packet and fills
    each packet with as many chunks as fit before starting the next, so the chunks of
    one kind sent back to back at the same instant to the same destination are
    ceil(k / per_packet) packets."""
    new = rtx = 0
    run_key: tuple[str, str, bool] | None = None
    k = 0

    def flush() -> None:
        nonlocal new, rtx
        if run_key is not None and k:
            n = -(-k // per_packet)
            if run_key[2]:
                new += n
            else:
                rtx += n

    for time_s, kind, dest in rows:
        key = (time_s, dest, kind == "new")
        if key != run_key:
            flush()
            run_key, k = key, 0
        k += 1
    flush()
    return new, rtx


def flow_sends(path: Path, flow: str) -> list[tuple[str, str, str]]:
    """(time_s, kind, dest) of `flow`'s rows of a sends.csv trace, in file order."""
    with path.open(newline="") as f:
        return [(r["time_s"], r["kind"], r["dest"]) for r in csv.DictReader(f) if r["flow"] == flow]


def test_count_packets_groups_chunks_into_packets() -> None:
    # SCTP, two 700-byte chunks per packet. Hand count:
    #   t=1, 4 new chunks to n1:wlan0      -> 2 packets (2 + 2)
    #   t=1, 3 retransmitted chunks        -> 2 packets (2 + 1): no new data
    #   t=2, 1 new chunk to wlan0          -> 1 packet
    #   t=2, 2 new chunks to wlan1         -> 1 packet (another destination)
    #   t=3, 1 retransmitted chunk         -> 1 packet
    rows = (
        [("1.0", "new", "n1:wlan0")] * 4
        + [("1.0", "fast_rtx", "n1:wlan0")] * 2
        + [("1.0", "rto_rtx", "n1:wlan0")]
        + [("2.0", "new", "n1:wlan0")]
        + [("2.0", "new", "n1:wlan1")] * 2
        + [("3.0", "rto_rtx", "n1:wlan1")]
    )
    assert count_packets(rows, 2) == (4, 3)
    # TCP: one segment per packet, so every row is a packet.
    assert count_packets(rows, 1) == (7, 4)


@pytest.mark.parametrize("transport", ["tcp", "sctp"])
def test_retransmitted_packets_match_the_sends_trace(transport: str, tmp_path: Path) -> None:
    # The sender's count of data packets without new data against the sends trace, on
    # a run with losses: 100 s of the seed-004 scenario at 20 m/s under 64 kb/s CBR.
    from sctplab.runner import run

    sets = {
        "mobility.max_speed": "20m/s",
        "flows.background.rate": "64Kb",
        "duration": "100s",
        "measure.end": "100s",
        "flows.transport.stop": "100s",
    }
    res = run(load_scenario(f"manet-{transport}.toml"), seed=3, set=sets, out=tmp_path,
              trace=["sends"])  # fmt: skip
    flow = res.summary["flows"]["transport"]
    per_packet = SCTP_CHUNKS_PER_PACKET if transport == "sctp" else 1
    new, rtx = count_packets(flow_sends(tmp_path / "sends.csv", "transport"), per_packet)
    assert rtx > 0
    assert flow["retransmitted_packets"] == rtx
    assert flow["data_packets_sent"] == new + rtx


def test_movement_stats_from_a_setdest_file() -> None:
    # n0 starts at (0, 0) and goes to (300, 0) at 10 m/s from t = 0, arriving at 30 s;
    # n1 stays at (0, 0). Over [0, 40] s: mean speed of the two nodes (300 m / 40 s + 0) / 2
    # = 3.75 m/s; n0 is within 250 m of n1 while 10 t <= 250, i.e. at the samples t = 0..25
    # of the 41 taken every second: 26/41.
    text = "\n".join(
        [
            "$node_(0) set X_ 0.0",
            "$node_(0) set Y_ 0.0",
            "$node_(1) set X_ 0.0",
            "$node_(1) set Y_ 0.0",
            '$ns_ at 0.0 "$node_(0) setdest 300.0 0.0 10.0"',
        ]
    )
    speed, near = manet_mobility.movement_stats(text, 0.0, 40.0)
    assert speed == pytest.approx(3.75)
    assert near == pytest.approx(26 / 41)


def test_stall_needs_a_full_window_and_drops() -> None:
    # A stall: chunks were dropped for want of room and the window left (436 bytes) is
    # smaller than one 700-byte chunk, so the hole-filling chunk can never be accepted.
    assert manet_experiments.stalled(
        {"flow": {"chunks_dropped_no_buffer": 188, "final_a_rwnd": 436}}
    )
    # Drops earlier in the run, but the buffer drained by the end: no stall.
    assert not manet_experiments.stalled(
        {"flow": {"chunks_dropped_no_buffer": 3, "final_a_rwnd": 65536}}
    )
    # A full window without drops (nothing arrived that did not fit), and TCP flows.
    assert not manet_experiments.stalled(
        {"flow": {"chunks_dropped_no_buffer": 0, "final_a_rwnd": 0}}
    )
    assert not manet_experiments.stalled({"flow": {"goodput_bps": 1.0}})


def test_scenarios_needed_for_significance() -> None:
    # Paired differences 0, 1, 2: mean 1, sample sd 1. The 95 % half-width
    # t(0.975, n-1) / sqrt(n) first drops below 1 at n = 7 (t(6) = 2.447, / sqrt 7 =
    # 0.925), not at n = 6 (t(5) = 2.571, / sqrt 6 = 1.050).
    assert stats.n_paired([0.0, 1.0, 2.0]) == 7
    # Two groups with means 0 and 1 and sd 1 each: per-group n with
    # t(0.975, 2n-2) * sqrt(2 / n) < 1 is n = 9 (t(16) = 2.120, * sqrt(2/9) = 0.999);
    # n = 8 gives t(14) = 2.145 * 0.5 = 1.072.
    assert stats.n_unpaired([-1.0, 0.0, 1.0], [0.0, 1.0, 2.0]) == 9
    assert stats.n_paired([1.0, -1.0]) is None  # no difference at all


def test_plan_covers_every_point_of_the_contract() -> None:
    keys = manet.plan(3)
    mobility = {(k.transport, k.case, k.speed) for k in keys if k.rate == manet.BASE_RATE}
    assert mobility == {
        (t, c, s) for t in ("tcp", "sctp") for c in manet.CASES for s in (1, 5, 10, 20)
    }
    load = {(k.transport, k.rate) for k in keys if k.case == "sh-mobile" and k.speed == 10}
    assert load == {(t, r) for t in ("tcp", "sctp") for r in (8, 16, 32, 64)}
    assert {k.seed for k in keys} == {1, 2, 3}
    assert len(keys) == len(set(keys)) == 3 * 2 * (3 * 4 + 3)


def test_run_points_heartbeat_and_failure(capsys: pytest.CaptureFixture[str]) -> None:
    s = load_scenario("example-cbr.toml")
    with pool.progress_label("demo", tty=False, heartbeat_s=0.0):
        out = pool.run_points([(s, {}, 1), (s, {}, 2)], jobs=2)
    assert [o["seed"] for o in out] == [1, 2]
    err = capsys.readouterr().err
    assert "sctplab reproduce: demo: 2/2 runs (0 failed)" in err
    with (
        pool.progress_label("demo", tty=False),
        pytest.raises(pool.RunFailed, match=r"links\.access\.delay=.*seed 3 failed"),
    ):
        pool.run_points([(s, {}, 1), (s, {"links.access.delay": "fast"}, 3)], jobs=2)


def _ok(out: Path, quick: bool) -> StudyResult:
    out.mkdir(parents=True, exist_ok=True)
    res = StudyResult("good", "A study that works")
    res.rows = [Row("i", "s", "x", 1, "m", 1.0, None, 1)]
    return res


def _broken(out: Path, quick: bool) -> StudyResult:
    raise pool.RunFailed("run duration=1s seed 1 failed: PanicException: boom")


def test_reproduce_reports_failed_studies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    reg = {"good": _ok, "bad": _broken}
    outcome = report.reproduce(["bad", "good"], tmp_path, registry=reg)
    assert [n for n, _ in outcome.ran] == ["good"]
    assert outcome.failed == [
        ("bad", "RunFailed: run duration=1s seed 1 failed: PanicException: boom")
    ]
    text = outcome.report.read_text()
    assert "## bad" in text and "Failed: RunFailed" in text and "## A study that works" in text
    err = capsys.readouterr().err
    assert "[1/2] bad: FAILED" in err and "[2/2] good: done" in err
    # The command names the failure and exits 1.
    monkeypatch.setattr(report, "studies", lambda: reg)
    r = CliRunner().invoke(cli, ["reproduce", "manet", "--out", str(tmp_path / "cli")])
    assert r.exit_code == 1
    assert "study manet failed: unknown study" in r.output


# ---- the full study (about 384 runs of 920 s): slow


def _data(out: Path) -> dict[tuple[str, str, str, str], tuple[float, float, int]]:
    with (out / "manet" / "data.csv").open() as f:
        return {
            (r["item"], r["series"], r["x"], r["metric"]): (
                float(r["mean"]),
                float(r["ci95"]) if r["ci95"] else 0.0,
                int(r["n"]),
            )
            for r in csv.DictReader(f)
        }


@pytest.mark.slow
def test_manet_full_study_claims(tmp_path: Path) -> None:
    # SCTPLAB_REPRO_DIR: an earlier full run's folder; its manet/runs.json is reused.
    out = Path(os.environ.get("SCTPLAB_REPRO_DIR", tmp_path / "repro"))
    r = sctplab("reproduce", "manet", "--out", out)
    assert r.returncode == 0, r.stderr
    d = _data(out)
    assert all(n == 12 for _, _, n in d.values())
    speeds = ("1", "5", "10", "20")
    # Paper Fig. 3 and sec. 3.1: SCTP's SACK bandwidth above TCP's everywhere and about
    # an order of magnitude above it: at least 10^0.5 times without multihoming at every
    # speed, and as the geometric mean over all 12 (case, speed) points. (Multihomed SCTP
    # stalls in many scenarios, which lowers its SACK bandwidth: see the report.)
    logs = []
    for case in manet.CASES:
        for sp in speeds:
            tcp = d[("mobility", f"tcp-{case}", sp, "sack_bytes_per_s")][0]
            sctp = d[("mobility", f"sctp-{case}", sp, "sack_bytes_per_s")][0]
            assert sctp > tcp, (case, sp, sctp, tcp)
            logs.append(math.log10(sctp / tcp))
            if case == "sh-mobile":
                assert sctp >= 10**0.5 * tcp, (sp, sctp, tcp)
    assert sum(logs) / len(logs) >= 0.5
    # Sec. 3.1, load: goodput and SACK bandwidth fall, connect time rises from the
    # lightest (8 kb/s) to the heaviest (64 kb/s) CBR load, for both transports.
    for t in ("tcp", "sctp"):
        s = f"{t}-sh-mobile"
        assert d[("load", s, "64", "goodput_bps")][0] < d[("load", s, "8", "goodput_bps")][0]
        assert (
            d[("load", s, "64", "sack_bytes_per_s")][0] < d[("load", s, "8", "sack_bytes_per_s")][0]
        )
        assert d[("load", s, "64", "connect_time_s")][0] > d[("load", s, "8", "connect_time_s")][0]
    # Sec. 3.2: multihoming does not improve SCTP when both NICs share one channel: at no
    # speed is mh-mobile's goodput above sh-mobile's by more than the two intervals.
    for sp in speeds:
        mh, mh_ci, _ = d[("mobility", "sctp-mh-mobile", sp, "goodput_bps")]
        sh, sh_ci, _ = d[("mobility", "sctp-sh-mobile", sp, "goodput_bps")]
        assert mh - sh <= mh_ci + sh_ci, (sp, mh, sh)
