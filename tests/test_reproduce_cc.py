"""The congestion-control items beyond the seeds (issue 33 item 5): `cc` in `sctplab
reproduce satellite` (Reno, CUBIC and BBR on seed 000's GEO path) and `cc` in `sctplab
reproduce manet` (TCP-SACK vs TCP-CUBIC vs SCTP-CUBIC on seed 004's network). Bounds come
from the scenarios' parameters by hand, not from our output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sctplab.reproduce import manet_cc, satellite_cc
from sctplab.reproduce.manet_study import QUICK_END_S, SPEEDS, Key, scenario, sets_for
from sctplab.reproduce.pool import run_points
from sctplab.scenario_paths import load_scenario

SEEDS = 2
DURATION_S = 60.0
LOSSES = [0.01, 0.03]
L2_BPS = 3e6
# Seed 000: a 64 KB receive window of 45 segments of 1448 bytes per round trip, and the
# round trip at least 2 x (2 + 250 + 2) ms of propagation: 1,026 kb/s per flow at most.
RWND_CAP_BPS = 45 * 1448 * 8 / 0.508
# Seed 004: 802.11 at 2 Mb/s is the most any flow's payload can get through one hop.
WIFI_BPS = 2e6


def _satellite(tmp_path: Path) -> satellite_cc.CcResult:
    base = load_scenario("satellite.toml")
    reno = run_points(
        [
            (base, {"duration": f"{DURATION_S}s", "links.l2.loss.rate": x}, s)
            for x in LOSSES
            for s in range(1, SEEDS + 1)
        ]
    )
    reno_runs = {x: reno[i * SEEDS : (i + 1) * SEEDS] for i, x in enumerate(LOSSES)}
    return satellite_cc.cc_experiment(base, LOSSES, SEEDS, DURATION_S, reno_runs, tmp_path)


def test_satellite_cc_names_counts_and_bounds(tmp_path: Path) -> None:
    res = _satellite(tmp_path)
    names = {(r.item, r.series, r.x_name, r.metric) for r in res.rows}
    flows = {
        ("cc", f"{t}-{cc}", "loss", m)
        for t in ("tcp", "sctp")
        for cc in ("reno", "cubic", "bbr")
        for m in ("goodput_bps", "pct_throughput")
    }
    both = {("cc", f"both-{cc}", "loss", "link_utilization") for cc in ("reno", "cubic", "bbr")}
    assert names == flows | both
    assert {r.x for r in res.rows} == set(LOSSES)
    assert all(r.n == SEEDS and r.paper is None for r in res.rows)
    by = {(r.series, r.x, r.metric): r.mean for r in res.rows}
    for x in LOSSES:
        for cc in ("reno", "cubic", "bbr"):
            tcp, sctp = by[(f"tcp-{cc}", x, "goodput_bps")], by[(f"sctp-{cc}", x, "goodput_bps")]
            assert 0 < tcp < RWND_CAP_BPS and 0 < sctp < RWND_CAP_BPS
            assert tcp + sctp < L2_BPS
            # Eq. 1's two shares add up to 100 %.
            shares = (
                by[(f"tcp-{cc}", x, "pct_throughput")] + by[(f"sctp-{cc}", x, "pct_throughput")]
            )
            assert abs(shares - 100) < 1e-9
            assert 0 < by[(f"both-{cc}", x, "link_utilization")] < 100
    assert (tmp_path / "cc.md").is_file() and (tmp_path / "cc.csv").is_file()
    assert res.figure.path.is_file()
    # The findings name the hand-computed cap and count loss rates out of the swept ones.
    text = res.discussion[0]
    assert "1026 kb/s" in text and f"of {len(LOSSES)} loss probabilities" in text


def test_satellite_cc_overrides_reach_both_flows() -> None:
    assert satellite_cc.overrides("reno") == {}
    for cc in ("cubic", "bbr"):
        assert satellite_cc.overrides(cc) == {
            "flows.tcp.congestion_control": cc,
            "flows.sctp.congestion_control": cc,
        }


def test_manet_cc_runs_cubic_series_at_every_speed() -> None:
    todo = manet_cc.todo(SEEDS, QUICK_END_S)
    assert len(todo) == SEEDS * 2 * len(SPEEDS)
    tags = {tag for tag, *_ in todo}
    assert tags == {
        ("cc", name, sp, s)
        for name in ("tcp-cubic", "sctp-cubic")
        for sp in SPEEDS
        for s in range(1, SEEDS + 1)
    }
    for (_, name, sp, seed), transport, sets, run_seed in todo:
        assert name.startswith(transport + "-") and run_seed == seed
        # The study's own point (`sh-mobile`, base CBR rate) plus the controller only.
        own = sets_for(Key(transport, "sh-mobile", sp, 16, seed), QUICK_END_S)
        assert sets == {**own, "flows.transport.congestion_control": "cubic"}


def test_manet_cc_one_run_is_bounded() -> None:
    from sctplab.reproduce.manet_runs import work

    end_s = 60.0
    for transport in ("tcp", "sctp"):
        sets: dict[str, Any] = {
            **sets_for(Key(transport, "sh-mobile", 10, 16, 1), end_s),
            "flows.transport.congestion_control": "cubic",
        }
        r = work((scenario(transport), sets, 1))
        assert 0 <= r["flow"]["goodput_bps"] < WIFI_BPS
        assert r["rtx_packets"] >= 0
