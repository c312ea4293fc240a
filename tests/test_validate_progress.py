"""`sctplab validate ns2` shows progress on stderr and ends with `N/M checks pass`; --quick
marks its MANET rows as smoke tests. The row groups are replaced by fakes, so this needs
neither ns-2 nor minutes."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sctplab.cli import cli
from sctplab.ns2 import oracle as ns2_oracle
from sctplab.validation import cmt as validate_cmt
from sctplab.validation import dsdv as validate_dsdv
from sctplab.validation import dsr as validate_dsr
from sctplab.validation import multihoming as validate_multihoming
from sctplab.validation import ns2 as validate
from sctplab.validation import red as validate_red
from sctplab.validation import satellite as validate_satellite
from sctplab.validation import timestamp as validate_timestamp
from sctplab.validation import wireless as validate_wireless


def _rows(*specs: tuple[str, bool]) -> list[validate.Check]:
    # ours = 1, ns-2 = 0: passes with tolerance 1, fails with 0.
    return [validate.Check(m, "fake", 0.0, None, 1.0, None, 1.0 if ok else 0.0) for m, ok in specs]


@pytest.fixture
def fake_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ns2_oracle, "ns2_binary", lambda: Path("/bin/true"))
    monkeypatch.setattr(validate, "deterministic", lambda tmp: _rows(("order", True)))
    monkeypatch.setattr(validate, "statistical", lambda tmp, s, d: _rows(("stat", True)))
    monkeypatch.setattr(validate, "snoop", lambda tmp, s: _rows(("snoop", True)))
    monkeypatch.setattr(validate_multihoming, "checks", lambda tmp: _rows(("mh", True)))
    monkeypatch.setattr(validate_cmt, "checks", lambda tmp, quick: _rows(("cmt", True)))
    monkeypatch.setattr(validate_timestamp, "checks", lambda tmp: _rows(("ts", True)))
    monkeypatch.setattr(
        validate_wireless,
        "wireless",
        lambda tmp, quick, cache, jobs: _rows(("chain", True), ("manet_tcp_goodput", True)),
    )
    monkeypatch.setattr(
        validate_dsdv,
        "checks",
        lambda tmp, quick, cache, jobs: _rows(("dsdv_routing_packets", True)),
    )
    monkeypatch.setattr(
        validate_dsr,
        "checks",
        lambda tmp, quick, cache, jobs: _rows(("dsr_routing_packets", True)),
    )
    monkeypatch.setattr(
        validate_satellite, "checks", lambda tmp, quick: _rows(("sat_route_changes", True))
    )
    monkeypatch.setattr(
        validate_red, "red", lambda seeds, duration: _rows(("red_mean_queue_packets", True))
    )


@pytest.mark.usefixtures("fake_groups")
def test_progress_and_last_line(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["validate", "ns2", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[-1] == "12/12 checks pass"
    err = r.stderr.splitlines()
    # A start and an end line per group of rows, numbered.
    assert len([x for x in err if "started" in x]) == 11
    assert err[0].startswith("sctplab validate ns2: [1/11] seed 002 send and forward order")
    assert any(
        x.startswith("sctplab validate ns2: [6/11] SCTP Timestamp") and "1/1" in x for x in err
    )
    assert any(
        x.startswith("sctplab validate ns2: [7/11] wireless") and "2/2 pass" in x for x in err
    )
    assert any(
        x.startswith("sctplab validate ns2: [8/11] wireless: DSDV") and "1/1" in x for x in err
    )
    assert any(
        x.startswith("sctplab validate ns2: [9/11] wireless: DSR") and "1/1" in x for x in err
    )
    assert any(x.startswith("sctplab validate ns2: [10/11] satellites") and "1/1" in x for x in err)
    assert err[-1].startswith("sctplab validate ns2: [11/11] RED") and "1/1" in err[-1]
    assert "smoke test" not in (tmp_path / "validation.md").read_text()


def test_a_failing_row_shows_in_the_count_and_the_exit_status(
    tmp_path: Path, fake_groups: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(validate, "snoop", lambda tmp, s: _rows(("snoop", False)))
    r = CliRunner().invoke(cli, ["validate", "ns2", "--out", str(tmp_path)])
    assert r.exit_code == 1
    assert r.stdout.splitlines()[-1] == "11/12 checks pass"


@pytest.mark.usefixtures("fake_groups")
def test_quick_marks_manet_rows_as_smoke_tests(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["validate", "ns2", "--quick", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    md = (tmp_path / "validation.md").read_text()
    assert "| manet_tcp_goodput | fake (smoke test: --quick) |" in md
    assert "| dsdv_routing_packets | fake (smoke test: --quick) |" in md
    assert "| chain | fake |" in md
    # The CSV keeps the contract's columns and values.
    assert "smoke" not in (tmp_path / "validation.csv").read_text()
    assert b"\r" not in (tmp_path / "validation.csv").read_bytes()
