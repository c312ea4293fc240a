"""The saturated-cell comparison (sctplab.validation.cell): ns-2.35, sctplab, Bianchi's model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sctplab.ns2 import oracle as ns2_oracle
from sctplab.validation import cell as validate_cell
from sctplab.validation.check import COLUMNS


def require_ns2() -> None:
    if ns2_oracle.ns2_binary() is None:
        if os.environ.get("CI"):
            pytest.fail("ns-2 is required in CI (scripts/test.sh installs Debian's ns2)")
        pytest.skip("ns-2 not installed")


def test_exchange_times_by_hand():
    # 2 Mb/s, PLCP 192 us at 1 Mb/s; DATA (1000 + 30 + 4 B) 192 + 1034 * 4 = 4328 us,
    # RTS 192 + 20 * 4 = 272 us, CTS = ACK = 192 + 14 * 4 = 248 us; SIFS 10, DIFS 50,
    # EIFS 10 + 50 + (24 + 14) * 8 = 364 us.
    # RTS/CTS: Ts = 272 + 10 + 248 + 10 + 4328 + 10 + 248 + 50 = 5176 us; Tc = 272 + 50
    # (Bianchi) or 272 + 364 + 50 = 686 us (ns-2). Basic: Ts = 4328 + 10 + 248 + 50 =
    # 4636 us; Tc = 4328 + 50 = 4378 us or 4328 + 364 + 50 = 4742 us.
    assert validate_cell.Phy().eifs == pytest.approx(364e-6)
    assert validate_cell.exchange_times(True) == pytest.approx((5176e-6, 322e-6, 686e-6))
    assert validate_cell.exchange_times(False) == pytest.approx((4636e-6, 4378e-6, 4742e-6))


def test_windows():
    # ns-2: random() % cw with cw 31, 63, 127, 255, 511, 1023, 1023 over 7 attempts.
    assert validate_cell.ns2_windows() == [31, 63, 127, 255, 511, 1023, 1023]
    w = validate_cell.paper_windows()
    assert w[:7] == [32, 64, 128, 256, 512, 1024, 1024]


@pytest.mark.parametrize("n", [5, 10, 20, 50])
def test_paper_tau_is_bianchis_eq7(n):
    # Bianchi (2000) eq. (7), W = 32, m = 5:
    # tau = 2 (1 - 2p) / ((1 - 2p)(W + 1) + p W (1 - (2p)^m)), p = 1 - (1 - tau)^(n - 1).
    tau = validate_cell._tau(validate_cell.paper_windows(), n)
    p = 1 - (1 - tau) ** (n - 1)
    w = 32
    eq7 = 2 * (1 - 2 * p) / ((1 - 2 * p) * (w + 1) + p * w * (1 - (2 * p) ** 5))
    assert tau == pytest.approx(eq7, rel=1e-9)


def test_models_ordering():
    # The extended model's collisions cost EIFS more than the paper's, so it lies below it,
    # more so with basic access (a collided DATA frame) and with more stations.
    for rts in (True, False):
        for n in (5, 10, 20, 50):
            assert validate_cell.extended_bps(n, rts) < validate_cell.bianchi_bps(n, rts)


def test_scenario_matches_the_script():
    sc = validate_cell.cell_scenario(50, False, 3.0, 10.0, "circle")
    assert len(sc["nodes"]) == 51
    assert len(sc["flows"]) == 50
    # 972 B of UDP payload + 8 + 20 = the 1000-byte packet ns-2's DumbAgent hands down.
    assert {f["packet_size"] for f in sc["flows"]} == {"972B"}
    assert {f["to"] for f in sc["flows"]} == {"s0"}
    assert sc["wireless"]["mac"]["rts_threshold"] == "3000B"
    assert sc["wireless"]["phy"]["capture_ratio"] == validate_cell.NO_CAPTURE
    assert (
        "capture_ratio"
        not in validate_cell.cell_scenario(5, True, 3.0, 10.0, "point")["wireless"]["phy"]
    )


@pytest.mark.parametrize("rts", [True, False])
def test_both_simulators_near_the_model(rts: bool, tmp_path: Path):
    # Five stations, 20 s: both within 3 % of the extended model (the Bianchi test's
    # tolerance); the full table is `python -m sctplab.validation.cell`.
    require_ns2()
    model = validate_cell.extended_bps(5, rts)
    theirs = validate_cell.ns2_bps(5, rts, 1, 3.0, 20.0, "circle", tmp_path)
    mine = validate_cell.ours_bps(5, rts, 1, 3.0, 20.0, "circle")
    assert theirs == pytest.approx(model, rel=0.03)
    assert mine == pytest.approx(model, rel=0.03)


def test_rows_of_validate_ns2(tmp_path: Path):
    # Two seeds of 3 s at n = 5: one row per access method, RTS/CTS first, with the
    # contract's columns; the tolerance is at least 2 % of ns-2's mean. A second call
    # with the same cache gives the same ns-2 column.
    require_ns2()
    cache = tmp_path / "cache"
    rows = validate_cell.checks((5,), 2, 3.0, cache, jobs=1)
    assert [r.scenario.split(", ")[2] for r in rows] == ["RTS/CTS", "basic"]
    for r in rows:
        assert r.metric == "cell_throughput_bps"
        assert len(r.cells()) == len(COLUMNS)
        assert r.tolerance >= 0.02 * r.ns2_mean
    assert len(list((cache / "cell").glob("*.json"))) == 4
    again = validate_cell.checks((5,), 2, 3.0, cache, jobs=1)
    assert [(r.ns2_mean, r.ns2_ci95) for r in again] == [(r.ns2_mean, r.ns2_ci95) for r in rows]
