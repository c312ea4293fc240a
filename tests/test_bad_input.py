"""Bad input: one line naming file, key path and what was expected; exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import sctplab

BASE = """
duration = "5s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "island"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "1Mb"
delay = "10ms"
[[flows]]
name = "f1"
type = "cbr"
from = "a"
to = "b"
rate = "100Kb"
"""

WIRELESS = """
duration = "5s"
[wireless]
width = "1000m"
height = "300m"
[[nodes]]
name = "a"
wlan = 1
x = "10m"
y = "10m"
[[nodes]]
name = "b"
wlan = 1
x = "200m"
y = "10m"
[[flows]]
name = "f1"
type = "cbr"
from = "a"
to = "b"
rate = "100Kb"
"""

CASES = {
    # name: (scenario text, extra args, substrings the one line must contain)
    "malformed_toml": (BASE + "[[links]\n", [], ["bad.toml", "invalid TOML"]),
    "unknown_key": (
        BASE.replace('delay = "10ms"', 'delay = "10ms"\ndelya = "1ms"'),
        [],
        ["bad.toml", "links.ab", "unknown field `delya`"],
    ),
    "wrong_unit": (
        BASE.replace('delay = "10ms"', 'delay = "10Mb"'),
        [],
        ["bad.toml", "links.ab.delay", "unknown unit", '"250ms"'],
    ),
    "missing_unit": (
        BASE.replace('bandwidth = "1Mb"', "bandwidth = 1000000"),
        [],
        ["bad.toml", "links.ab.bandwidth", '"10Mb"'],
    ),
    "negative_value": (
        BASE.replace('delay = "10ms"', 'delay = "-10ms"'),
        [],
        ["bad.toml", "links.ab.delay", "negative"],
    ),
    "probability_out_of_range": (
        BASE + "[links.loss]\nrate = 1.5\n",
        [],
        ["bad.toml", "links.ab.loss.rate", "probability"],
    ),
    "snoop_on_unknown_node": (
        BASE + '[[snoop]]\nname = "s"\nnode = "bs"\nmobile = "b"\n',
        [],
        ["bad.toml", "snoop.s.node", 'unknown node "bs"'],
    ),
    "snoop_mobile_not_linked": (
        BASE + '[[snoop]]\nname = "s"\nnode = "a"\nmobile = "island"\n',
        [],
        ["bad.toml", "snoop.s.mobile", "not linked"],
    ),
    "snoop_timer_bounds": (
        BASE + '[[snoop]]\nname = "s"\nnode = "a"\nmobile = "b"\ntimer_min = "2s"\n',
        [],
        ["bad.toml", "snoop.s.timer_max", "timer_min"],
    ),
    "snoop_zero_dupack_thresh": (
        BASE + '[[snoop]]\nname = "s"\nnode = "a"\nmobile = "b"\ndupack_thresh = 0\n',
        [],
        ["bad.toml", "snoop.s.dupack_thresh", "at least 1"],
    ),
    "link_to_unknown_node": (
        BASE.replace('b = "b"', 'b = "c"'),
        [],
        ["bad.toml", "links.ab.b", 'unknown node "c"'],
    ),
    "disconnected_flow": (
        BASE.replace('to = "b"', 'to = "island"'),
        [],
        ["bad.toml", "flows.f1", "no path"],
    ),
    "drop_list_on_missing_flow": (
        BASE + '[links.loss]\ndrops = [3]\nflow = "f9"\n',
        [],
        ["bad.toml", "links.ab.loss.flow", 'unknown flow "f9"'],
    ),
    "bad_set_path": (
        BASE,
        ["--set", "links.nosuch.delay=5ms"],
        ["--set links.nosuch.delay=5ms", 'no entry named "nosuch" in links'],
    ),
    "bad_set_value": (
        BASE,
        ["--set", "links.ab.queue=-3"],
        ["links.ab.queue"],
    ),
    "unknown_flow_type": (
        BASE.replace('type = "cbr"', 'type = "dccp"'),
        [],
        ["bad.toml", "flows.f1.type", 'unknown flow type "dccp"'],
    ),
    "duplicate_name": (
        BASE.replace('name = "island"', 'name = "a"'),
        [],
        ["bad.toml", "nodes.a", "duplicate name"],
    ),
    "parallel_links": (
        BASE.replace(
            "[[flows]]",
            '[[links]]\nname = "ab2"\na = "b"\nb = "a"\n'
            'bandwidth = "1Mb"\ndelay = "1ms"\n[[flows]]',
        ),
        [],
        ["bad.toml", "links.ab2.b", 'already joined by link "ab"'],
    ),
    "window_after_run": (
        BASE + '[measure]\nstart = "9s"\n',
        [],
        ["bad.toml", "measure.start", "earlier than duration"],
    ),
    "tcp_bad_variant": (
        BASE.replace('type = "cbr"', 'type = "tcp"\nvariant = "vegas"').replace(
            'rate = "100Kb"\n', ""
        ),
        [],
        ["bad.toml", "flows.f1.variant", "unknown variant `vegas`"],
    ),
    "tcp_too_many_sack_blocks": (
        BASE.replace('type = "cbr"', 'type = "tcp"\nvariant = "sack"\nmax_sack_blocks = 9').replace(
            'rate = "100Kb"\n', ""
        ),
        [],
        ["bad.toml", "flows.f1.max_sack_blocks", "at most 4"],
    ),
    "tcp_unknown_congestion_control": (
        BASE.replace(
            'type = "cbr"', 'type = "tcp"\nvariant = "sack"\ncongestion_control = "vegas"'
        ).replace('rate = "100Kb"\n', ""),
        [],
        ["bad.toml", "flows.f1.congestion_control", "unknown variant `vegas`", "cubic"],
    ),
    "tcp_hystart_without_cubic": (
        BASE.replace('type = "cbr"', 'type = "tcp"\nvariant = "sack"\nhystart = false').replace(
            'rate = "100Kb"\n', ""
        ),
        [],
        ["bad.toml", "flows.f1.hystart", "cubic"],
    ),
    "tcp_bbr_without_pacing": (
        BASE.replace(
            'type = "cbr"',
            'type = "tcp"\nvariant = "sack"\ncongestion_control = "bbr"\npacing = false',
        ).replace('rate = "100Kb"\n', ""),
        [],
        ["bad.toml", "flows.f1.pacing", "bbr"],
    ),
    "wireless_node_outside_area": (
        WIRELESS.replace('x = "200m"', 'x = "1200m"'),
        [],
        ["bad.toml", "nodes.b.x", "outside the area"],
    ),
    "wireless_without_table": (
        WIRELESS.replace('[wireless]\nwidth = "1000m"\nheight = "300m"\n', ""),
        [],
        ["bad.toml", "nodes.a.wlan", "[wireless]"],
    ),
    "negative_speed": (
        WIRELESS.replace('x = "10m"\ny = "10m"\n', "")
        .replace('x = "200m"\ny = "10m"\n', "")
        .replace(
            "[[nodes]]",
            '[mobility]\nmodel = "random_waypoint"\nmax_speed = "-5m/s"\n[[nodes]]',
            1,
        ),
        [],
        ["bad.toml", "mobility.max_speed", "negative"],
    ),
    "speed_without_unit": (
        WIRELESS + '[mobility]\nmodel = "random_waypoint"\nmax_speed = "5"\n',
        [],
        ["bad.toml", "mobility.max_speed", "unit"],
    ),
    "wireless_without_duration": (
        WIRELESS.replace('duration = "5s"', "").replace(
            'rate = "100Kb"', 'rate = "100Kb"\nstop = "1s"'
        ),
        [],
        ["bad.toml", "duration", "[wireless]"],
    ),
    "sctp_primary_not_an_interface": (
        BASE.replace(
            'type = "cbr"', 'type = "sctp"\nvariant = "rfc9260"\nprimary = "b:eth3"'
        ).replace('rate = "100Kb"\n', ""),
        [],
        ["bad.toml", "flows.f1.primary", "no interface", "eth0"],
    ),
    "aqm_unknown_discipline": (
        BASE.replace('delay = "10ms"', 'delay = "10ms"\naqm = { kind = "blue" }'),
        [],
        ["bad.toml", "links.ab.aqm.kind", '"blue"', "fq_codel"],
    ),
    "aqm_negative_target": (
        BASE.replace('delay = "10ms"', 'delay = "10ms"\naqm = { kind = "codel", target = "-5ms" }'),
        [],
        ["bad.toml", "links.ab.aqm.target", "negative"],
    ),
    "aqm_unknown_key": (
        BASE.replace('delay = "10ms"', 'delay = "10ms"\naqm = { kind = "pie", tagret = "5ms" }'),
        [],
        ["bad.toml", "links.ab.aqm.tagret", "unknown field", "target"],
    ),
    "aqm_red_threshold_above_queue": (
        BASE.replace(
            'delay = "10ms"', 'delay = "10ms"\nqueue = 20\naqm = { kind = "red", maxthresh = 30 }'
        ),
        [],
        ["bad.toml", "links.ab.aqm.maxthresh", "queue limit (20 packets)"],
    ),
    "ecn_on_a_udp_flow": (
        BASE.replace('rate = "100Kb"', 'rate = "100Kb"\necn = true'),
        [],
        ["bad.toml", "flows.f1.ecn", "tcp and sctp"],
    ),
    "sctp_bbr_without_pacing": (
        BASE.replace(
            'type = "cbr"',
            'type = "sctp"\nvariant = "rfc9260"\ncongestion_control = "bbr"\npacing = false',
        ).replace('rate = "100Kb"\n', ""),
        [],
        ["bad.toml", "flows.f1.pacing", "bbr"],
    ),
    "sctp_hystart_without_cubic": (
        BASE.replace('type = "cbr"', 'type = "sctp"\nvariant = "rfc9260"\nhystart = true').replace(
            'rate = "100Kb"\n', ""
        ),
        [],
        ["bad.toml", "flows.f1.hystart", "cubic"],
    ),
    "sctp_unknown_congestion_control": (
        BASE.replace(
            'type = "cbr"', 'type = "sctp"\nvariant = "rfc9260"\ncongestion_control = "vegas"'
        ).replace('rate = "100Kb"\n', ""),
        [],
        ["bad.toml", "flows.f1.congestion_control", "unknown variant `vegas`", "cubic"],
    ),
    "sctp_cmt_single_homed_receiver": (
        BASE.replace('type = "cbr"', 'type = "sctp"\nvariant = "ns2"\ncmt = true').replace(
            'rate = "100Kb"\n', ""
        ),
        [],
        ["bad.toml", "flows.f1.cmt", "multihomed receiver", '"b" has one interface'],
    ),
    "sctp_cmt_unknown_rtx_policy": (
        BASE.replace(
            'type = "cbr"', 'type = "sctp"\nvariant = "ns2"\ncmt = true\ncmt_rtx_policy = "random"'
        ).replace('rate = "100Kb"\n', ""),
        [],
        ["bad.toml", "flows.f1.cmt_rtx_policy", "unknown variant `random`", "lossrate"],
    ),
    "sctp_cmt_key_without_cmt": (
        BASE.replace('type = "cbr"', 'type = "sctp"\nvariant = "ns2"\ncmt_sfr = false').replace(
            'rate = "100Kb"\n', ""
        ),
        [],
        ["bad.toml", "flows.f1.cmt_sfr", "needs cmt = true"],
    ),
    "sctp_coupled_cc_without_cmt": (
        BASE.replace('type = "cbr"', 'type = "sctp"\nvariant = "ns2"\ncoupled_cc = "lia"').replace(
            'rate = "100Kb"\n', ""
        ),
        [],
        ["bad.toml", "flows.f1.coupled_cc", "needs cmt = true"],
    ),
    "sctp_coupled_cc_unknown_name": (
        BASE.replace(
            'type = "cbr"', 'type = "sctp"\nvariant = "ns2"\ncoupled_cc = "balia"'
        ).replace('rate = "100Kb"\n', ""),
        [],
        ["bad.toml", "flows.f1.coupled_cc", "unknown variant `balia`", "olia"],
    ),
    "interleaving_on_a_tcp_flow": (
        BASE.replace('type = "cbr"', 'type = "tcp"\ninterleaving = true').replace(
            'rate = "100Kb"\n', ""
        ),
        [],
        ["bad.toml", "flows.f1.interleaving", "unknown field"],
    ),
    "interleaving_not_a_bool": (
        BASE.replace(
            'type = "cbr"', 'type = "sctp"\nvariant = "rfc9260"\ninterleaving = "yes"'
        ).replace('rate = "100Kb"\n', ""),
        [],
        ["bad.toml", "flows.f1.interleaving", "expected a boolean"],
    ),
    "timestamp_on_a_tcp_flow": (
        BASE.replace('type = "cbr"', 'type = "tcp"\ntimestamp = true').replace(
            'rate = "100Kb"\n', ""
        ),
        [],
        ["bad.toml", "flows.f1.timestamp", "unknown field"],
    ),
    "timestamp_not_a_bool": (
        BASE.replace('type = "cbr"', 'type = "sctp"\nvariant = "ns2"\ntimestamp = 1').replace(
            'rate = "100Kb"\n', ""
        ),
        [],
        ["bad.toml", "flows.f1.timestamp", "expected a boolean"],
    ),
    "unknown_trace_kind": (BASE, ["--trace", "tcpdump"], ["--trace", '"tcpdump"', "ns2"]),
    "unknown_series_variable": (BASE, ["--series", "temperature"], ["--series", "cwnd"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_gives_one_line_and_status_2(case: str, tmp_path: Path) -> None:
    text, args, expected = CASES[case]
    path = tmp_path / "bad.toml"
    path.write_text(text)
    r = sctplab("run", path, "--out", tmp_path / "out", *args, cwd=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr
    for s in expected:
        assert s in lines[0], (s, lines[0])
    assert not (tmp_path / "out" / "summary.json").exists()


def test_missing_file(tmp_path: Path) -> None:
    r = sctplab("run", tmp_path / "nope.toml")
    assert r.returncode == 2
    assert r.stderr.strip() == f"sctplab: error: {tmp_path / 'nope.toml'}: no such scenario file"


def test_unknown_option_is_one_line() -> None:
    r = sctplab("run", "x.toml", "--frobnicate")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1
    assert "--frobnicate" in r.stderr


def test_bad_movement_file_names_file_and_line(tmp_path: Path) -> None:
    scenario = tmp_path / "bad.toml"
    scenario.write_text(
        WIRELESS.replace('x = "10m"\ny = "10m"\n', "").replace('x = "200m"\ny = "10m"\n', "")
        + '[mobility]\nfile = "moves.tcl"\n'
    )
    moves = tmp_path / "moves.tcl"
    for body, expected in [
        # $node_(2) does not exist: the scenario has two nodes.
        ("$node_(0) set X_ 1.0\n$node_(0) set Y_ 1.0\n$node_(2) set X_ 5.0\n", "line 3"),
        ("$node_(0) set X_ 1.0\n$node_(0) set Y_ one\n", "line 2"),
    ]:
        moves.write_text(body)
        r = sctplab("run", scenario, "--out", tmp_path / "out", cwd=tmp_path)
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, r.stderr
        assert "mobility.file" in lines[0] and "moves.tcl" in lines[0], lines[0]
        assert expected in lines[0], lines[0]


def test_toml_syntax_error_names_line_column_and_key(tmp_path: Path) -> None:
    scen = tmp_path / "dup.toml"
    scen.write_text(BASE.replace('name = "island"', 'name = "island"\nname = "again"'))
    r = sctplab("run", scen)
    assert r.returncode == 2
    # `name = "again"` is line 9 of BASE's text (line 1 is empty).
    assert r.stderr.strip() == f"sctplab: error: {scen}:9:1: invalid TOML: duplicate key `name`"


def test_a_bad_set_value_is_blamed_on_the_override(tmp_path: Path) -> None:
    scen = tmp_path / "ok.toml"
    scen.write_text(BASE)
    r = sctplab("run", scen, "--set", "links.ab.delay=10Mb")
    assert r.returncode == 2
    line = r.stderr.strip()
    assert line.startswith("sctplab: error: --set links.ab.delay=10Mb: links.ab.delay: "), line
    assert str(scen) not in line
