"""Seed 004's MANET study: its points (transport, case, speed, CBR load, seed), the
overrides each point runs with, and the metrics read from a run."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sctplab.scenario_paths import load_scenario

TRANSPORTS = ["tcp", "sctp"]
MULTIHOMED = {"nodes.n0.wlan": 2, "nodes.n1.wlan": 2}
CASES: dict[str, dict[str, Any]] = {
    "sh-mobile": {},
    "mh-mobile": dict(MULTIHOMED),
    "mh-static": {**MULTIHOMED, "mobility.fixed": ["n0", "n1"]},
}
CASE_TITLES = {
    "sh-mobile": "no multihoming, mobile",
    "mh-mobile": "multihoming, mobile",
    "mh-static": "multihoming, stationary endpoints",
}
SPEEDS = [1, 5, 10, 20]  # m/s, pause 0
RATES = [8, 16, 32, 64]  # kb/s per CBR flow
LOAD_SPEED = 10
BASE_RATE = 16
METRICS = [
    "goodput_bps",
    "connect_time_s",
    "retransmissions",
    "sack_bytes_per_s",
    "ack_bytes_per_s",
]
LABELS = {
    "goodput_bps": "goodput (kb/s)",
    "connect_time_s": "connect time (s)",
    "retransmissions": "retransmitted data packets",
    "sack_bytes_per_s": "SACK bandwidth (bytes/s)",
    "ack_bytes_per_s": "ack bandwidth, all acks (bytes/s)",
}
SCALE = {"goodput_bps": 1e-3}
COLORS = {"tcp": "tab:blue", "sctp": "tab:red"}
START_S = 20.0
FULL_END_S = 920.0
QUICK_END_S = 220.0


def series(transport: str, case: str) -> str:
    return f"{transport}-{case}"


@dataclass(frozen=True)
class Key:
    transport: str
    case: str
    speed: int
    rate: int
    seed: int


def sets_for(key: Key, end_s: float) -> dict[str, Any]:
    sets: dict[str, Any] = dict(CASES[key.case])
    sets["mobility.max_speed"] = f"{key.speed}m/s"
    sets["flows.background.rate"] = f"{key.rate}Kb"
    if end_s != FULL_END_S:
        sets["duration"] = f"{end_s:g}s"
        sets["measure.end"] = f"{end_s:g}s"
        sets["flows.transport.stop"] = f"{end_s:g}s"
    return sets


Values = dict[tuple[str, str, float], list[float]]  # (item, series, x) -> one per seed


def metrics(r: dict[str, Any], window_s: float) -> dict[str, float]:
    """The contract's metrics of one run; SACK and ack bandwidth are whole packets (IP
    header included) per second of the measurement window."""
    f = r["flow"]
    ct = f.get("connect_time_s")
    return {
        "goodput_bps": float(f["goodput_bps"]),
        "connect_time_s": math.nan if ct is None else float(ct),
        "retransmissions": float(r["rtx_packets"]),
        "sack_bytes_per_s": float(f["sack_bytes"]) / window_s,
        "ack_bytes_per_s": float(f["ack_bytes"]) / window_s,
    }


@dataclass
class Study:
    seeds: int
    end_s: float
    runs: dict[Key, dict[str, Any]]

    @property
    def window_s(self) -> float:
        return self.end_s - START_S

    def value(self, key: Key, metric: str) -> float:
        return metrics(self.runs[key], self.window_s)[metric]

    def per_seed(
        self, transport: str, case: str, speed: int, rate: int, metric: str
    ) -> list[float]:
        return [
            self.value(Key(transport, case, speed, rate, s), metric)
            for s in range(1, self.seeds + 1)
        ]

    def mobility(self, transport: str, case: str, speed: int, metric: str) -> list[float]:
        return self.per_seed(transport, case, speed, BASE_RATE, metric)

    def load(self, transport: str, rate: int, metric: str) -> list[float]:
        return self.per_seed(transport, "sh-mobile", LOAD_SPEED, rate, metric)


def plan(seeds: int) -> list[Key]:
    keys: list[Key] = []
    for seed in range(1, seeds + 1):
        for transport in TRANSPORTS:
            for case in CASES:
                keys += [Key(transport, case, sp, BASE_RATE, seed) for sp in SPEEDS]
            keys += [
                Key(transport, "sh-mobile", LOAD_SPEED, r, seed) for r in RATES if r != BASE_RATE
            ]
    return keys


def scenario(transport: str) -> dict[str, Any]:
    return load_scenario(f"manet-{transport}.toml")
