"""`sctplab reproduce all --quick` writes report.md and every study's folder with the
data.csv names of the project's contract (README "Reproducing the seed studies")."""

from __future__ import annotations

import csv
from pathlib import Path

from conftest import sctplab

COLUMNS = ["item", "series", "x_name", "x", "metric", "mean", "ci95", "n", "paper"]
SNOOP_SERIES = ("tcp", "tcp-snoop", "sctp", "sctp-snoop")
MANET_METRICS = (
    "goodput_bps",
    "connect_time_s",
    "retransmissions",
    "sack_bytes_per_s",
    "ack_bytes_per_s",
)
# (item, series, x_name, metric) allowed per study, from CONTRACTS.md "Reproductions".
EXPECTED = {
    "satellite": {
        ("table2", "tcp", "loss", "pct_throughput"),
        ("table2", "sctp", "loss", "pct_throughput"),
        ("table2", "sctp", "loss", "pct_increase"),
        ("table2", "both", "loss", "link_utilization"),
        # Beyond the seed: L2 as drop-tail, RED and CoDel, each without and with ECN.
        *{
            ("aqm", f"{d}{e}", "loss", m)
            for d in ("droptail", "red", "codel")
            for e in ("", "-ecn")
            for m in ("link_utilization", "queue_delay_mean_s", "pct_throughput")
        },
        # Beyond the seed (issue 33): Reno, CUBIC and BBR for both flows.
        *{
            ("cc", f"{t}-{c}", "loss", m)
            for t in ("tcp", "sctp")
            for c in ("reno", "cubic", "bbr")
            for m in ("goodput_bps", "pct_throughput")
        },
        *{("cc", f"both-{c}", "loss", "link_utilization") for c in ("reno", "cubic", "bbr")},
    },
    "multistreaming": {
        *{
            ("goodput_vs_buffer", f"s{s}_e{e}", "buffer_bytes", "goodput_bps")
            for s in (1, 4)
            for e in ("0", "0.01", "0.03", "0.05")
        },
        *{("goodput_vs_error", f"s{s}", "error_rate", "goodput_bps") for s in (1, 4)},
        *{("optimal_buffer", f"s{s}", "error_rate", "buffer_bytes") for s in (1, 4)},
        # Beyond the contract: the two numbers the paper prints, with its values.
        ("stream_gain", "s4", "error_rate", "percent"),
        ("buffer_saving", "s4", "error_rate", "percent"),
    },
    "newreno": {
        (item, series, "drops", "packets_forwarded")
        for item in ("fig5", "fig5_q8")
        for series in (
            "sctp-original",
            "sctp-newreno",
            "sctp-newreno-star",
            "sctp-newreno-2star",
            "tcp-newreno",
            "tcp-sack",
            "tcp-fack",
        )
    },
    "snoop": {
        *{
            (item, p, "file_bytes", metric)
            for item, metric in (("transfer_time", "transfer_time_s"), ("packet_count", "packets"))
            for p in SNOOP_SERIES
        },
        # Beyond the contract: the same four protocols over a sweep of wireless loss rates.
        *{("transfer_time_vs_loss", p, "loss", "transfer_time_s") for p in SNOOP_SERIES},
        # ...and SCTP's time over TCP's per file size, beside the paper's "almost half".
        ("time_ratio", "sctp_over_tcp", "file_bytes", "ratio"),
    },
    "manet": {
        *{
            ("mobility", f"{t}-{c}", "max_speed", m)
            for t in ("tcp", "sctp")
            for c in ("sh-mobile", "mh-mobile", "mh-static")
            for m in MANET_METRICS
        },
        *{
            ("load", f"{t}-sh-mobile", "cbr_rate", m)
            for t in ("tcp", "sctp")
            for m in MANET_METRICS
        },
        # Beyond the seed (issue 33): TCP-SACK, TCP-CUBIC and SCTP-CUBIC.
        *{
            ("cc", s, "max_speed", m)
            for s in ("tcp-sack", "tcp-cubic", "sctp-cubic")
            for m in ("goodput_bps", "retransmissions")
        },
    },
}
# Beyond the seeds (issue 36): small-message delay per scheduler and PR-SCTP policy.
MESSAGING_SCHEDULERS = ("fcfs", "rr", "rr_packet", "priority", "fair", "wfq")
MESSAGING_TTL = ("prsctp-ttl", "prsctp-ttl-idata-rr")
MESSAGING_SERIES = (
    *(f"sctp-{s}" for s in MESSAGING_SCHEDULERS),
    *(f"sctp-idata-{s}" for s in MESSAGING_SCHEDULERS),
    *MESSAGING_TTL,
    "tcp",  # one byte stream (stream_traffic on a tcp flow)
)
EXPECTED["messaging"] = {
    *{
        (item, s, "loss", metric)
        for s in MESSAGING_SERIES
        for item, metric in (
            ("small_delay", "message_delay_mean_s"),
            ("small_delay", "message_delay_p99_s"),
            ("large_delay", "message_delay_mean_s"),
            ("goodput", "goodput_bps"),
        )
    },
    *{("abandoned", s, "loss", "abandoned_pct") for s in MESSAGING_TTL},
}
# Beyond the seeds (issue 40): Broch et al.'s routing comparison and seed 004's transports
# under each routing protocol (`all` runs it at its --quick size: pauses 0 and 900).
ROUTING_PROTOCOLS = ("aodv", "dsdv", "dsr")
EXPECTED["routing"] = {
    *{
        (item, f"{p}-{n}src", "pause_s", metric)
        for item, metric in (("delivery", "delivery_ratio"), ("overhead", "routing_packets"))
        for p in ROUTING_PROTOCOLS
        for n in (10, 20, 30)
    },
    *{
        ("path_optimality", f"{p}-30src", "pause_s", m)
        for p in ROUTING_PROTOCOLS
        for m in ("extra_hops", "shortest_path_share")
    },
    *{
        ("transport", f"{p}-{t}", "max_speed", m)
        for p in ROUTING_PROTOCOLS
        for t in ("tcp", "sctp")
        for m in ("goodput_bps", "connect_time_s")
    },
}
# Beyond the seeds (issue 38): SCTP, QUIC and TCP on seed 001's path (--quick: loss 0
# and 0.03), the CUBIC check, and seed 004's MANET.
EXPECTED["transports"] = {
    *{("satellite", f"tcp_e{e}", "buffer_bytes", "goodput_bps") for e in ("0", "0.03")},
    *{
        ("satellite", f"{p}_e{e}", "buffer_bytes", m)
        for p in ("sctp", "quic")
        for e in ("0", "0.03")
        for m in ("goodput_bps", "message_delay_mean_s", "message_delay_p99_s")
    },
    *{
        ("cubic_check", s, "loss", m)
        for s in ("tcp-cubic", "quic-cubic")
        for m in (
            "goodput_bps",
            "ack_packets_per_data_packet",
            "payload_bytes_per_data_packet",
            "repairs_per_data_packet",
            "data_packets_per_s",
            "queue_delay_mean_s",
        )
    },
    *{
        ("manet", p, "max_speed", m)
        for p in ("tcp", "sctp", "quic")
        for m in (
            "lost_packets" if p == "quic" else "retransmitted_packets",
            "goodput_bps",
            "ack_bytes_per_s",
            "ack_packets_per_data_packet",
            "ack_bytes_per_data_packet",
            "bytes_per_ack",
        )
    },
}
# Beyond the seeds (issue 39): TCP and SCTP over a LEO shell under two handover policies,
# and seed 000's GEO path as a real satellite (docs/models/satellite.md's table).
LEO_METRICS = (
    "goodput_bps",
    "retransmissions",
    "handover_drops",
    "handovers",
    "path_delay_mean_s",
    "route_changes",
    "route_changes_at_slots",
    "path_delay_step_s",
)
EXPECTED["leo"] = {
    *{
        ("leo", p, "handover", m)
        for p in ("tcp-reno", "tcp-cubic", "tcp-bbr", "sctp", "sctp-mh")
        for m in LEO_METRICS
    },
    # SCTP only: TCP flows have no srtt series.
    *{("leo", p, "handover", "srtt_mean_s") for p in ("sctp", "sctp-mh")},
    *{
        ("geo_geometry", "geo-satellite", "station", m)
        for m in ("elevation_deg", "slant_range_km", "gamma_deg")
    },
    *{
        ("geo", s, "flow", m)
        for s in ("fixed-delay", "geo-satellite")
        for m in ("goodput_bps", "srtt_s", "one_way_delay_s")
    },
}
# Beyond the seeds (issue 35 item 7): CMT against the receive buffer and path B's loss,
# ours beside ns-2.35's Agent/SCTP/CMT, and seed 004's multihomed MANET with CMT.
CMT_POLICIES = ("same", "asap", "cwnd", "ssthresh", "lossrate")
CMT_SERIES = (
    "sp",
    *(f"cmt-{p}" for p in CMT_POLICIES),
    "cmt-bs-nrsack",
    "cmt-bs-nrsack-unordered",
    "ns2-sp",
    *(f"ns2-cmt-{p}" for p in CMT_POLICIES),
)
EXPECTED["cmt"] = {
    *{
        (item, s, x_name, "goodput_bps")
        for item, x_name in (
            ("goodput_vs_buffer", "buffer_bytes"),
            ("goodput_vs_buffer_unequal", "buffer_bytes"),
            ("goodput_vs_buffer_loss", "buffer_bytes"),
            ("goodput_vs_loss", "loss"),
        )
        for s in CMT_SERIES
    },
    *{
        ("manet_cmt", f"sctp-{c}", "max_speed", m)
        for c in ("sh-mobile", "mh-mobile", "mh-mobile-cmt", "mh-static", "mh-static-cmt")
        for m in ("goodput_bps", "retransmissions", "second_path_share")
    },
}
# Items of a study that go beyond its seed: the paper has no value for them.
BEYOND_SEED = {"satellite": {"aqm", "cc"}}


def test_reproduce_all_quick(tmp_path: Path) -> None:
    out = tmp_path / "repro"
    r = sctplab("reproduce", "all", "--quick", "--out", out)
    assert r.returncode == 0, r.stderr
    report = (out / "report.md").read_text()
    assert "--quick" in report
    for study, names in EXPECTED.items():
        with (out / study / "data.csv").open() as f:
            rows = list(csv.reader(f))
        assert rows[0] == COLUMNS
        seen = {(r[0], r[1], r[2], r[4]) for r in rows[1:]}
        assert seen == names, (study, seen ^ names)
        for r in rows[1:]:
            n = int(r[7])
            assert (r[6] == "") == (n == 1), r  # ci95 empty exactly when n = 1
        pngs = list((out / study).glob("*.png"))
        assert pngs, study
        for png in pngs:
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert f"({study}/{png.name})" in report, png.name
    # Paper values appear where the paper prints them (seed 000 Table 2), and nowhere in
    # the experiments beyond the seed.
    with (out / "satellite" / "data.csv").open() as f:
        sat = list(csv.DictReader(f))
    for r in sat:
        assert bool(r["paper"]) == (r["item"] not in BEYOND_SEED["satellite"]), r
    assert "**Beyond the seed: AQM and ECN on the GEO bottleneck**" in report
    papers: dict[tuple[str, str, str], float] = {}
    for study in ("multistreaming", "snoop"):
        with (out / study / "data.csv").open() as f:
            for r in csv.DictReader(f):
                if r["paper"]:
                    papers[(study, r["item"], r["x"])] = float(r["paper"])
    assert papers[("multistreaming", "stream_gain", "0.03")] == 10.0
    assert papers[("multistreaming", "buffer_saving", "0.01")] == 35.0
    assert papers[("snoop", "time_ratio", "1000000")] == 0.5
    # Seed 003 sec. 4: snoop shortens both protocols' transfers and TCP-snoop beats plain
    # SCTP, at every file size.
    with (out / "snoop" / "data.csv").open() as f:
        snoop = [r for r in csv.DictReader(f) if r["item"] == "transfer_time"]
    t = {(r["series"], r["x"]): float(r["mean"]) for r in snoop}
    for x in {r["x"] for r in snoop}:
        assert t[("tcp-snoop", x)] < t[("tcp", x)], x
        assert t[("sctp-snoop", x)] < t[("sctp", x)], x
        assert t[("tcp-snoop", x)] < t[("sctp", x)], x
    # Every study ran.
    assert "Not run" not in report and "Failed:" not in report
    # Seed 004: every x value and series of the full study, with at least 3 movement
    # scenarios per point, and the shorter transport time said in the report.
    with (out / "manet" / "data.csv").open() as f:
        manet = list(csv.DictReader(f))
    xs: dict[tuple[str, str], set[str]] = {}
    for row in manet:
        xs.setdefault((row["item"], row["series"]), set()).add(row["x"])
        assert int(row["n"]) >= 3, row
    for (item, _), values in xs.items():
        assert values == (
            {"1", "5", "10", "20"} if item in ("mobility", "cc") else {"8", "16", "32", "64"}
        )
    assert "(200 s, --quick; the paper: 900 s)" in report


def test_unknown_study_is_one_line() -> None:
    r = sctplab("reproduce", "nosuch")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1
