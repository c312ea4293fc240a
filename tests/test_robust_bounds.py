"""Robustness (issue 29): values valid in type but unbounded in effect. Each reproducer
runs the CLI in a child process capped in memory and time, and must end cleanly: a run
that finishes, or one line and exit status 2. None may abort (an allocation the cap
refuses), hang or print a traceback."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "sctplab.cli"]
# Address space of the child: the interpreter with its libraries takes a few hundred
# MB; any of the allocations of issue 29 (13 GB to 68 GB) fails against it.
MEMORY_CAP = 3 * 2**30
WALL_CAP_S = 60


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def capped(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
        timeout=WALL_CAP_S,
        preexec_fn=_cap_memory,
    )


def one_line(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr[-2000:]
    assert lines[0].startswith("sctplab: error: "), r.stderr
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr
    return lines[0]


def finished(r: subprocess.CompletedProcess[str]) -> None:
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr


WIRED = """
duration = "2s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "c"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "10Mb"
delay = "10ms"
"""

TCP = (
    WIRED
    + """
[[flows]]
name = "t"
type = "tcp"
variant = "newreno"
from = "a"
to = "b"
"""
)

SCTP = (
    WIRED
    + """
[[flows]]
name = "s"
type = "sctp"
variant = "rfc9260"
from = "a"
to = "b"
"""
)

# Two mobile nodes in 1000 m x 1000 m for 2 s: cheap, so a run of it ends quickly
# unless a value below makes it unbounded.
MANET = """
duration = "2s"
[wireless]
width = "1000m"
height = "1000m"
[mobility]
model = "random_waypoint"
max_speed = "10m/s"
[[nodes]]
name = "n0"
wlan = 1
[[nodes]]
name = "n1"
wlan = 1
[[flows]]
name = "c"
type = "cbr"
from = "n0"
to = "n1"
rate = "64Kb"
"""


def scenario(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "s.toml"
    p.write_text(text)
    return p


# --- item 1: loops inside one event ----------------------------------------------------


@pytest.mark.parametrize("key", ["purge_interval", "bcast_id_save"])
def test_a_zero_aodv_interval_is_refused(tmp_path: Path, key: str) -> None:
    s = scenario(tmp_path, MANET)
    line = one_line(capped("run", s, "--set", f"wireless.aodv.{key}=0s", "--out", tmp_path / "r"))
    assert f"--set wireless.aodv.{key}=0s: wireless.aodv.{key}: must be greater than zero" in line


@pytest.mark.parametrize("speed", ["1000000000m/s", "18000000000000m/s", "299792458m/s"])
def test_a_speed_not_below_light_is_refused(tmp_path: Path, speed: str) -> None:
    s = scenario(tmp_path, MANET)
    line = one_line(capped("run", s, "--set", f"mobility.max_speed={speed}"))
    assert "mobility.max_speed: " in line and "speed of light" in line, line


def test_a_micrometre_area_with_moving_nodes_is_refused(tmp_path: Path) -> None:
    # 10 m/s in 1 um x 1 um: legs of nanoseconds, about 10^10 of them in 2 s.
    s = scenario(tmp_path, MANET)
    r = capped("run", s, "--set", "wireless.width=0.000001m", "--set", "wireless.height=0.000001m")
    line = one_line(r)
    # Blamed on the key the override changed (the estimate involves both).
    assert "--set wireless.width=0.000001m: wireless.width: random waypoint" in line, line
    assert "legs" in line


def test_a_fast_node_that_stays_within_the_leg_budget_runs(tmp_path: Path) -> None:
    # 1000 km/s is absurd but bounded: about 6000 legs per node in 2 s.
    s = scenario(tmp_path, MANET)
    finished(capped("run", s, "--set", "mobility.max_speed=1000000m/s", "--out", tmp_path / "r"))


def test_movement_with_an_absurd_speed_is_one_line(tmp_path: Path) -> None:
    s = scenario(tmp_path, MANET)
    line = one_line(
        capped("movement", s, "--set", "mobility.max_speed=18000000000000m/s", "--set",
               "duration=900s")
    )  # fmt: skip
    assert "mobility.max_speed" in line, line


# --- item 2: allocations sized straight from a value ----------------------------------


def test_a_huge_aodv_queue_limit_runs(tmp_path: Path) -> None:
    s = scenario(tmp_path, MANET)
    finished(capped("run", s, "--set", "wireless.aodv.queue_limit=4294967295", "--out",
                    tmp_path / "r"))  # fmt: skip


def test_a_long_thin_area_runs(tmp_path: Path) -> None:
    s = scenario(tmp_path, MANET)
    finished(capped("run", s, "--set", "wireless.width=10000000000000m", "--set",
                    "wireless.height=1m", "--set", "mobility.max_speed=1m/s", "--out",
                    tmp_path / "r"))  # fmt: skip


def test_a_tcp_window_of_2_to_the_32_is_refused(tmp_path: Path) -> None:
    s = scenario(tmp_path, TCP)
    r = capped("run", s, "--set", "flows.t.window=4294967295", "--set",
               "flows.t.initial_window=4294967295")  # fmt: skip
    line = one_line(r)
    assert "flows.t.window: " in line and "at most 4000000" in line, line


def test_a_tcp_window_at_the_bound_runs(tmp_path: Path) -> None:
    # The largest window accepted, opened at once: a single ack queues it all.
    s = scenario(tmp_path, TCP)
    finished(capped("run", s, "--set", "flows.t.window=4000000", "--set",
                    "flows.t.initial_window=4000000", "--out", tmp_path / "r"))  # fmt: skip


# --- item 3: silent nonsense ------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "want"),
    [
        ("initial_cwnd", "1e308", "a_rwnd is 32 bits"),
        ("initial_cwnd", '"0B"', "must be greater than zero"),
        ("initial_cwnd", '"5GB"', "a_rwnd is 32 bits"),
        ("rto_min", "0s", "must be greater than zero"),
        ("rto_initial", "0s", "must be greater than zero"),
        ("cookie_lifetime", "0s", "must be greater than zero"),
    ],
)
def test_sctp_values_that_never_work_are_refused(
    tmp_path: Path, key: str, value: str, want: str
) -> None:
    s = scenario(tmp_path, SCTP)
    line = one_line(capped("run", s, "--set", f"flows.s.{key}={value}"))
    assert f"flows.s.{key}: " in line and want in line, line


def test_all_three_rtos_zero_are_refused(tmp_path: Path) -> None:
    s = scenario(tmp_path, SCTP)
    r = capped("run", s, *[a for k in ("rto_initial", "rto_min", "rto_max")
                           for a in ("--set", f"flows.s.{k}=0s")])  # fmt: skip
    assert "must be greater than zero" in one_line(r)


def test_cbr_pairs_between_wired_and_wireless_is_refused(tmp_path: Path) -> None:
    text = (
        MANET.replace('[[flows]]\nname = "c"', '[[flows]]\nname = "unused"')
        + """
[[nodes]]
name = "w"
[[flows]]
name = "bg"
type = "cbr_pairs"
count = 2
rate = "8Kb"
among = ["n0", "w"]
"""
    )
    line = one_line(capped("run", scenario(tmp_path, text)))
    assert "flows.bg.among.1: " in line and "wireless" in line, line


def test_cbr_pairs_between_disconnected_nodes_is_refused(tmp_path: Path) -> None:
    text = (
        WIRED
        + """
[[flows]]
name = "bg"
type = "cbr_pairs"
count = 2
rate = "8Kb"
among = ["a", "c"]
"""
    )
    line = one_line(capped("run", scenario(tmp_path, text)))
    assert "flows.bg.among.1: no path between" in line, line


# --- item 7: live mode validates as `sctplab run` does --------------------------------


@pytest.mark.parametrize(
    "setting", ["mtu=1B", "receive_buffer=1B", "streams=0", "message_size=0B", "rto_min=0s"]
)
def test_live_refuses_what_the_simulator_refuses(setting: str) -> None:
    # No peer: a valid setting would wait for the timeout (exit 3); a refused one must
    # not get that far.
    r = capped("live", "server", "--port", "5000", "--udp-port", "0", "--timeout", "5",
               "--set", setting)  # fmt: skip
    line = one_line(r)
    key = setting.split("=")[0]
    assert f"--set {setting}: {key}: " in line, line
