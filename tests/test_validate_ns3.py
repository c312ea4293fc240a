"""`sctplab validate ns3`: sctplab's TCP against the project's ns-3.37 program.

The NewReno rows in --quick form and the corrected-BBR check run ns-3 for real (the
programs are compiled once into the module's build cache, 8.4 s of CPU, then 10 + 2
ns-3 runs and 10 of ours: about 26 s of CPU in all, measured with /usr/bin/time; the
wall time depends on the machine's load); the progress and exit-status tests replace
the rows with fakes and need neither ns-3 nor a compiler."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from sctplab.cli import cli
from sctplab.ns3 import oracle as ns3_oracle
from sctplab.scenario_paths import load_scenario
from sctplab.validation import check as validate
from sctplab.validation import ns3 as validate_ns3_cmd
from sctplab.validation import ns3_aqm as validate_ns3_aqm
from sctplab.validation import ns3_tcp as validate_ns3


def _require_ns3() -> None:
    why = ns3_oracle.missing()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"ns-3 is required in CI (scripts/test.sh installs it): {why}")
        pytest.skip(why)


def test_newreno_rows_quick_agree_with_ns3(tmp_path: Path, ns3_cache: Path) -> None:
    result = validate_ns3_cmd.validate_ns3(
        tmp_path, quick=True, build_cache=ns3_cache, only=("newreno",)
    )
    with (tmp_path / "validation.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == validate_ns3.COLUMNS
    # stalled runs, goodput and mean cwnd at 0.1 % and 1 % loss.
    assert [(r["metric"], r["scenario"].split(",")[1].strip()) for r in rows] == [
        ("stalled_runs", "loss 0.001"),
        ("goodput_bps", "loss 0.001"),
        ("cwnd_mean", "loss 0.001"),
        ("stalled_runs", "loss 0.01"),
        ("goodput_bps", "loss 0.01"),
        ("cwnd_mean", "loss 0.01"),
    ]
    assert all(r["pass"] == "yes" for r in rows), rows
    assert [r["ns3_mean"] for r in rows if r["metric"] == "stalled_runs"] == ["0", "0"]
    assert result.last_line == "6/6 checks pass"
    # Mathis et al.'s 1.22 / sqrt(p) segments bounds the window from above at 1 % loss
    # (no timeouts in the formula): both simulators must sit below it, and not far below.
    for r in rows[5:]:
        assert 0.7 * 12.2 < float(r["ns3_mean"]) < 12.2 * 1.1
    # The validation reused the module's compiled programs.
    again = ns3_oracle.build(ns3_cache)
    assert again.cached and again.compile_s == 0.0
    assert "reused from the build cache" in (tmp_path / "validation.md").read_text()
    assert (tmp_path / "validation.md").read_text().startswith("# sctplab against ns-3.37")


@pytest.fixture(scope="module")
def ns3_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One build cache for the module's tests: the programs are compiled once."""
    _require_ns3()
    cache = tmp_path_factory.mktemp("ns3-build")
    ns3_oracle.build(cache)
    return cache


def test_corrected_bbr_keeps_the_bottleneck_busy_under_random_loss(ns3_cache: Path) -> None:
    """BBR v1 does not take random loss below its tolerance as congestion: at 1 % loss it
    should keep sending at the bottleneck's rate (Cardwell et al., ACM Queue 2016), about
    10 Mb/s x 1460 / 1502 = 9.72 Mb/s of payload on ns-3's link. ns-3.37's TcpBbr as
    shipped stalls after timeouts (issues #735, #1026); the corrected one must not."""
    args = validate_ns3.ns3_args(
        load_scenario(validate_ns3.SCENARIO), validate_ns3.Plan(2, 40.0, 10.0), 0.01
    )
    binary = ns3_oracle.build(ns3_cache).binary
    for seed in (1, 2):
        fixed = ns3_oracle.run(binary, "dumbbell", {**args, "cc": "bbr-fixed", "seed": seed})
        assert fixed["goodput_bps"] > 0.9 * 9.72e6, fixed
        assert fixed["loss_drops"] > 0


def test_ns3_arguments_come_from_the_scenario() -> None:
    args = validate_ns3.ns3_args(
        load_scenario(validate_ns3.SCENARIO), validate_ns3.plan(True), 0.01
    )
    assert args["bottleneckRate"] == "10Mbps" and args["bottleneckDelay"] == "23ms"
    assert args["queue"] == 42 and args["segment"] == 1460 and args["initialCwnd"] == 10
    assert args["sack"] is True and args["minRto"] == 1.0 and args["delAckCount"] == 1
    assert args["loss"] == 0.01 and args["sample"] == 0.01
    # 2 x (1 + 23 + 1) ms: the 50 ms base RTT the docs promise.
    assert args["accessDelay"] == "1ms"


@pytest.fixture
def fake_rows(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(ns3_oracle, "missing", lambda: None)
    monkeypatch.setattr(
        ns3_oracle, "build", lambda cache: ns3_oracle.Build(tmp_path / "x", 0.0, True)
    )

    def rows(binary: Path, ctrl: validate_ns3.Controller, p: validate_ns3.Plan) -> list:
        ok = ctrl.name != "bbr"
        return [validate.Check("goodput_bps", ctrl.name, 1.0, None, 1.0 if ok else 2.0, None, 0.1)]

    monkeypatch.setattr(validate_ns3, "rows", rows)
    monkeypatch.setattr(
        validate_ns3_aqm,
        "rows",
        lambda binary, p: [validate.Check("aqm_drops", "codel", 5.0, 1.0, 5.5, 1.0, 2.0)],
    )


@pytest.mark.usefixtures("fake_rows")
def test_progress_last_line_and_exit_status(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["validate", "ns3", "--out", str(tmp_path / "v")])
    assert r.exit_code == 1  # the fake BBR row fails
    assert r.stdout.splitlines()[-1] == "3/4 checks pass"
    err = r.stderr.splitlines()
    assert err[0].startswith("sctplab validate ns3: building the ns-3 programs")
    assert err[1] == "sctplab validate ns3: ns-3 programs reused from the build cache"
    assert len([x for x in err if "started" in x]) == 4
    assert err[2].startswith("sctplab validate ns3: [1/4] NewReno")
    assert err[-3].startswith("sctplab validate ns3: [3/4] BBR") and "0/1 pass" in err[-3]
    assert err[-1].startswith("sctplab validate ns3: [4/4] AQM") and "1/1 pass" in err[-1]
    with (tmp_path / "v" / "validation.csv").open() as f:
        assert next(csv.reader(f)) == validate_ns3.COLUMNS


def test_missing_ns3_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sctplab import cli as cli_module

    monkeypatch.setattr(ns3_oracle, "missing", lambda: "ns-3 is not installed (test)")
    monkeypatch.setattr("sys.argv", ["sctplab", "validate", "ns3", "--out", str(tmp_path)])
    with pytest.raises(SystemExit) as e:
        cli_module.main()
    assert e.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "sctplab: error: ns-3 is not installed (test)"
    ]
