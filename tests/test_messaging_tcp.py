"""The messaging study's `tcp` series: the SCTP flow's two sources over one TCP byte
stream (python/sctplab/reproduce/messaging.py, docs/models/tcp.md)."""

from __future__ import annotations

from sctplab.reproduce import messaging
from sctplab.runner import run
from sctplab.scenario_paths import load_scenario


def test_tcp_series_carries_the_same_sources_in_one_byte_stream() -> None:
    base = load_scenario("messaging.toml")
    scen = messaging._scenario(base, messaging.TCP)
    flow = scen["flows"][0]
    assert flow["type"] == "tcp"
    sctp_sources = base["flows"][0]["stream_traffic"]
    # Sizes and timing kept; priorities dropped (one byte stream has one order).
    assert [e["message_size"] for e in flow["stream_traffic"]] == [
        e["message_size"] for e in sctp_sources
    ]
    assert all("priority" not in e for e in flow["stream_traffic"])
    # 179 segments of 1460 B: the largest whole-segment window within 256 KiB.
    assert flow["window"] * 1460 <= 256 * 1024 < (flow["window"] + 1) * 1460
    s = run(scen, seed=1, set={"duration": "10s", "flows.messages.stop": "8s"}).summary
    streams = s["flows"]["messages"]["streams"]
    assert len(streams) == 2
    # Without loss every 200-byte message due in the first seconds gets through.
    assert streams[messaging.SMALL]["delivered_messages"] > 0
    assert streams[messaging.SMALL]["message_delay_mean_s"] > 0.26
