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
