"""`sctplab.run(scenario, seed=1, set={...})` with a path, a TOML string or a dict."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import sctplab

TOML = """
duration = "2s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "1Mb"
delay = "10ms"
[[flows]]
name = "f"
type = "cbr"
from = "a"
to = "b"
rate = "400Kb"
packet_size = "500B"
"""


def test_path_string_and_dict_agree(example: Path, tmp_path: Path) -> None:
    by_path = sctplab.run(example, seed=2)
    text = example.read_text()
    by_text = sctplab.run(text, seed=2)
    by_dict = sctplab.run(tomllib.loads(text), seed=2)
    assert by_path.summary == by_text.summary == by_dict.summary
    assert by_path.summary["scenario"] == "example-cbr"


def test_set_overrides_values() -> None:
    base = sctplab.run(TOML)
    slow = sctplab.run(TOML, set={"links.ab.delay": "100ms", "links.ab.loss.rate": 1.0})
    assert base.summary["flows"]["f"]["delivered_bytes"] > 0
    assert slow.summary["flows"]["f"]["delivered_bytes"] == 0
    assert "100ms" in slow.scenario_toml


def test_results_as_dataframes(tmp_path: Path) -> None:
    r = sctplab.run(TOML, out=tmp_path / "r", series=["queue"])
    assert (tmp_path / "r" / "summary.json").is_file()
    links = r.links()
    assert "a->b" in links.index and "utilization" in links.columns
    # 400 kb/s of 500-byte payloads is 100 packets/s of 528 B on the wire: 422.4 kb/s,
    # i.e. 42.24% of the 1 Mb/s link.
    assert links.loc["a->b", "utilization"] == pytest.approx(0.4224, abs=1e-3)
    assert set(r.series["variable"]) == {"queue"}


def test_errors_are_exceptions() -> None:
    with pytest.raises(sctplab.ScenarioError, match=r"links\.ab\.delay"):
        sctplab.run(TOML.replace('"10ms"', '"ten"'))
    with pytest.raises(sctplab.UsageError):
        sctplab.run(TOML, pcap=True)


# --- issue 30: the `series` and `trace` arguments, what a result prints, dir() -------


def test_series_and_trace_take_a_comma_string_like_the_cli(tmp_path: Path) -> None:
    as_list = sctplab.run(TOML, series=["queue", "cwnd"])
    as_text = sctplab.run(TOML, series="queue, cwnd")
    assert as_text.series.equals(as_list.series)
    assert set(as_text.series["variable"].astype(str)) == {"queue"}
    r = sctplab.run(TOML, out=tmp_path / "r", trace="sends,acks")
    assert (tmp_path / "r" / "sends.csv").is_file() and (tmp_path / "r" / "acks.csv").is_file()
    assert r.out_dir == tmp_path / "r"
    # One kind, not three single letters.
    with pytest.raises(sctplab.UsageError) as e:
        sctplab.run(TOML, series="nope")
    assert '"nope"' in str(e.value) or "nope" in str(e.value)
    assert '"n"' not in str(e.value)


@pytest.mark.parametrize("value", [5, b"queue", [1, 2], [["queue"]]])
def test_series_of_another_type_is_a_type_error(value: object) -> None:
    with pytest.raises(TypeError, match="series"):
        sctplab.run(TOML, series=value)  # type: ignore[arg-type]
    # Any iterable of names will do.
    sctplab.run(TOML, series=(k for k in {"queue": 1}))


def test_a_result_prints_in_a_few_lines() -> None:
    r = sctplab.run(TOML, series="queue")
    assert len(repr(r)) < 2000
    assert not hasattr(r, "series_columns")
    assert len(r.series) > 0


def test_dir_lists_the_lazy_names_without_importing_them() -> None:
    import subprocess
    import sys

    code = (
        "import sys, sctplab; names = dir(sctplab); "
        "print(all(n in names for n in ('sweep', 'load', 'stats', 'plot', 'run')), "
        "any(m in sys.modules for m in ('sctplab.sweeps', 'sctplab.store', 'sctplab.plots')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False"]


# --- issue 33: the congestion-control keys pass through like any other ---------------


def test_congestion_control_keys_pass_through_a_dict(tmp_path: Path) -> None:
    scenario = tomllib.loads(TOML)
    scenario["flows"] = [
        {
            "name": "t",
            "type": "tcp",
            "variant": "sack",
            "from": "a",
            "to": "b",
            "congestion_control": "cubic",
            "hystart": True,
            "pacing": True,
        }
    ]
    r = sctplab.run(scenario, out=tmp_path / "r", series="cwnd,pacing_rate")
    assert r.summary["flows"]["t"]["delivered_bytes"] > 0
    assert set(r.series["variable"]) == {"cwnd", "pacing_rate"}
    with pytest.raises(sctplab.ScenarioError, match=r"flows\.t\.hystart"):
        sctplab.run(scenario, set={"flows.t.congestion_control": "bbr"})
    del scenario["flows"][0]["hystart"]
    bbr = sctplab.run(scenario, set={"flows.t.congestion_control": "bbr"})
    assert bbr.summary["flows"]["t"]["delivered_bytes"] > 0
