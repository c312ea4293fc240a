"""The transports study's runs: which scenario each protocol runs on each network, the
overrides of every point, and the per-run measures read from summary.json.

Satellite (seed 001's path, scenarios/transports*.toml): each protocol's CUBIC, a
backlog on stream 0 and a 1000-byte message every 100 ms on streams 1-3 (TCP: the bulk
transfer only; its flows carry no messages). MANET (seed 004's scenario at its base
point): each protocol's Reno-style controller, one bulk stream."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

from sctplab.scenario_paths import load_scenario

PROTOCOLS = ["tcp", "sctp", "quic"]
FLOW = "transport"  # the flow's name in every scenario of the study
TCP_SEGMENT = 1460  # payload bytes per TCP segment (scenarios/transports-tcp.toml)
PACED_STREAMS = (1, 2, 3)  # the streams of 1000-byte messages every 100 ms
L1_DATA = "source->router"  # summary.json's key for L1's data direction
MANET_START_S = 20.0  # seed 004's transport flow starts here (and the measurement)


def satellite_scenario(protocol: str) -> dict[str, Any]:
    name = "transports.toml" if protocol == "sctp" else f"transports-{protocol}.toml"
    return load_scenario(name)


def bulk(scenario: dict[str, Any]) -> dict[str, Any]:
    """The same flow with a bulk application on one stream (the CUBIC check): SCTP and
    QUIC lose their per-stream sources; TCP is bulk already."""
    s = copy.deepcopy(scenario)
    for f in s["flows"]:
        if f["name"] == FLOW and f["type"] in ("sctp", "quic"):
            f.pop("stream_traffic", None)
            f.pop("scheduler", None)
            f["streams"] = 1
    return s


def satellite_sets(
    protocol: str, loss: float, buffer_bytes: int, duration_s: float
) -> dict[str, Any]:
    """Overrides of one satellite point: the loss rate on L2 and the receive buffer (SCTP
    and QUIC in bytes; TCP in whole segments, its receiver's window)."""
    sets: dict[str, Any] = {
        "duration": f"{duration_s:g}s",
        f"flows.{FLOW}.stop": f"{duration_s - 10:g}s",
        "links.l2.loss.rate": loss,
    }
    if protocol == "tcp":
        sets[f"flows.{FLOW}.window"] = buffer_bytes // TCP_SEGMENT
    else:
        sets[f"flows.{FLOW}.receive_buffer"] = f"{buffer_bytes}B"
    return sets


def manet_scenario(protocol: str) -> dict[str, Any]:
    """Seed 004's scenario with the protocol's transport flow: TCP-SACK and SCTP as
    scenarios/manet-tcp.toml and manet-sctp.toml ship them; QUIC replaces the TCP flow
    by a QUIC connection between the same nodes and times, with quinn's NewReno (the
    seed's flows are Reno-style) and SCTP's 64 KiB receive buffer as its flow-control
    window."""
    if protocol != "quic":
        return load_scenario(f"manet-{protocol}.toml")
    s = load_scenario("manet-tcp.toml")
    for i, f in enumerate(s["flows"]):
        if f["name"] == FLOW:
            s["flows"][i] = {
                "name": FLOW,
                "type": "quic",
                "from": f["from"],
                "to": f["to"],
                "start": f["start"],
                "stop": f["stop"],
                "congestion_control": "reno",
                "receive_buffer": "64KiB",
            }
    return s


def manet_sets(end_s: float) -> dict[str, Any]:
    """Seed 004's base point (10 m/s, 16 kb/s CBR) up to `end_s`."""
    return {
        "duration": f"{end_s:g}s",
        "measure.end": f"{end_s:g}s",
        f"flows.{FLOW}.stop": f"{end_s:g}s",
    }


def _num(v: Any) -> float:
    return math.nan if v is None else float(v)


def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


def flow_measures(summary: dict[str, Any], window_s: float) -> dict[str, float]:
    """What every part of the study reads from a run's transport flow. `repairs` is the
    protocol's count of loss repairs: data packets retransmitted (TCP, SCTP) or, for
    QUIC, packets declared lost (quinn-proto counts no retransmitted packets; each
    lost packet's stream data is sent again)."""
    f = summary["flows"][FLOW]
    quic = f["type"] == "quic"
    data = float(f["data_packets_sent"])
    acks = float(f["ack_packets"])
    ack_bytes = float(f["ack_bytes"])
    repairs = float(f["lost_packets"] if quic else f["retransmitted_packets"])
    return {
        "goodput_bps": float(f["goodput_bps"]),
        "repairs": repairs,
        "repairs_per_data_packet": _ratio(repairs, data),
        # TCP and SCTP: the part of the repairs sent after a timeout (go-back-N).
        "timeout_repairs_per_data_packet": math.nan
        if quic
        else _ratio(float(f["timeout_retransmissions"]), data),
        "ack_bytes_per_s": ack_bytes / window_s,
        "ack_packets_per_data_packet": _ratio(acks, data),
        "ack_bytes_per_data_packet": _ratio(ack_bytes, data),
        "bytes_per_ack": _ratio(ack_bytes, acks),
        "payload_bytes_per_data_packet": _ratio(float(f["delivered_bytes"]), data),
        "data_packets_per_s": data / window_s,
        # The satellite path's bottleneck queue (L1's data direction): how much the
        # sender's bursts wait there (nan on the MANET, which has no such link).
        "queue_delay_mean_s": _num(summary["links"].get(L1_DATA, {}).get("queue_delay_mean_s")),
        **_paced_delays(f),
    }


def _paced_delays(f: dict[str, Any]) -> dict[str, float]:
    """The paced streams' message delay: the mean over all their messages (the streams'
    means weighted by their messages) and the largest of their 99th percentiles."""
    streams = f.get("streams") or []
    paced = [streams[i] for i in PACED_STREAMS if i < len(streams)]
    paced = [s for s in paced if s.get("message_delay_mean_s") is not None]
    n = sum(int(s["delivered_messages"]) for s in paced)
    if not paced or n == 0:
        return {"message_delay_mean_s": math.nan, "message_delay_p99_s": math.nan}
    mean = sum(_num(s["message_delay_mean_s"]) * int(s["delivered_messages"]) for s in paced)
    return {
        "message_delay_mean_s": mean / n,
        "message_delay_p99_s": max(_num(s["message_delay_p99_s"]) for s in paced),
    }


@dataclass(frozen=True)
class SatKey:
    protocol: str
    loss: float
    buffer_bytes: int


@dataclass(frozen=True)
class CubicKey:
    protocol: str
    loss: float
