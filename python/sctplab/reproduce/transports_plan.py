"""The transports study's plan and result types, shared by the study, its prose and its
report (kept apart so those two need not import the study's driver)."""

from __future__ import annotations

from dataclasses import dataclass

from sctplab.reproduce.transports_runs import CubicKey, SatKey

KIB = 1024
MANET_SPEED = 10  # m/s: seed 004's base point (scenarios/manet.toml)
CUBIC_PROTOCOLS = ["tcp", "quic"]
CUBIC_BUFFER = 1024 * KIB  # below BDP + queue: the window never overflows L1's queue
SAT_METRICS = {
    "tcp": ["goodput_bps"],
    "sctp": ["goodput_bps", "message_delay_mean_s", "message_delay_p99_s"],
    "quic": ["goodput_bps", "message_delay_mean_s", "message_delay_p99_s"],
}
CUBIC_METRICS = [
    "goodput_bps",
    "ack_packets_per_data_packet",
    "payload_bytes_per_data_packet",
    "repairs_per_data_packet",
    "data_packets_per_s",
    "queue_delay_mean_s",
]
MANET_METRICS = [
    "goodput_bps",
    "repairs",
    "ack_bytes_per_s",
    "ack_packets_per_data_packet",
    "ack_bytes_per_data_packet",
    "bytes_per_ack",
]


@dataclass(frozen=True)
class Plan:
    """The study's size: full or --quick."""

    seeds: int
    sat_duration_s: float
    losses: list[float]
    buffers: list[int]
    cubic_seeds: int
    cubic_losses: list[float]
    manet_seeds: int
    manet_end_s: float

    @staticmethod
    def of(quick: bool) -> Plan:
        if quick:
            return Plan(2, 40.0, [0.0, 0.03], [32 * KIB, 512 * KIB], 3, [0.01], 2, 120.0)
        return Plan(
            10,
            120.0,
            [0.0, 0.01, 0.03],
            [32 * KIB, 128 * KIB, 512 * KIB],
            10,
            [0.001, 0.01, 0.03],
            10,
            920.0,
        )


Stat = tuple[float, float, int]  # mean, 95 % half-width (nan if n < 2), n


@dataclass
class Results:
    plan: Plan
    sat: dict[tuple[SatKey, str], Stat]
    cubic: dict[tuple[CubicKey, str], Stat]
    manet: dict[tuple[str, str], Stat]


def sat_series(protocol: str, loss: float) -> str:
    return f"{protocol}_e{loss:g}"


def cubic_series(protocol: str) -> str:
    return f"{protocol}-cubic"


def repairs_metric(protocol: str) -> str:
    return "lost_packets" if protocol == "quic" else "retransmitted_packets"
