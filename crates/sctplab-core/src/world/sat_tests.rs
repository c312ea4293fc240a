//! Satellites in the run loop (issue 39): per-packet delays from the positions, routes
//! and handovers over time, and the summary's satellite keys. Every expected number is
//! worked out by hand in the test from the orbit's closed form.

use crate::scenario::load_toml;
use crate::world::{RunOptions, run_scenario};
use serde_json::Value;

/// ns-2.35's truncated pi (satgeometry.h), which the model's angles use.
#[allow(clippy::approx_constant)]
const PI: f64 = 3.1415926535897;

fn run(text: &str) -> Value {
    let s = load_toml(text, "sat.toml", "sat", &[]).expect("scenario loads");
    let r = run_scenario(&s, &RunOptions::default()).expect("scenario runs");
    serde_json::from_str(&r.summary_json).expect("summary is JSON")
}

/// A one-satellite geostationary constellation over longitude `lon` (an `explicit`
/// entry at 35,786 km, inclination 0) with its ground links at `gsl`.
fn geo_constellation(name: &str, lon: f64, gsl: &str) -> String {
    format!(
        r#"
[[constellations]]
name = "{name}"
kind = "explicit"
gsl_bandwidth = "{gsl}"
satellites = [
  {{ altitude = "35786km", inclination = 0.0, longitude = {lon:.1}, alpha = 0.0, plane = 1 }},
]"#
    )
}

/// A ground station on the equator at longitude `lon`, a terminal of `constellation`
/// with a 10-deg elevation mask.
fn equator_station(name: &str, lon: f64, constellation: &str) -> String {
    format!(
        r#"
[[ground_stations]]
name = "{name}"
lat = 0.0
lon = {lon:.1}
constellation = "{constellation}"
min_elevation = 10.0"#
    )
}

/// A wire between `a` and `b`.
fn wire(name: &str, a: &str, b: &str, bandwidth: &str, delay: &str) -> String {
    format!(
        r#"
[[links]]
name = "{name}"
a = "{a}"
b = "{b}"
bandwidth = "{bandwidth}"
delay = "{delay}""#
    )
}

/// One polar plane of 24 satellites at 780 km, 15 deg apart (alpha 15 i), ground
/// stations at both poles, where the Earth's turning does not move them.
fn pole_to_pole(extra: &str) -> String {
    let sats: Vec<String> = (0..24)
        .map(|i| {
            format!(
                "  {{ altitude = \"780km\", inclination = 90.0, longitude = 0.0, alpha = {}.0, plane = 1 }},",
                15 * i
            )
        })
        .collect();
    format!(
        r#"
duration = "1s"
[[constellations]]
name = "ring"
kind = "explicit"
isl_bandwidth = "25Mb"
gsl_bandwidth = "1.5Mb"
satellites = [
{}
]
[[ground_stations]]
name = "north"
lat = 90.0
lon = 0.0
constellation = "ring"
min_elevation = 10.0
[[ground_stations]]
name = "south"
lat = -90.0
lon = 0.0
constellation = "ring"
min_elevation = 10.0
{extra}
"#,
        sats.join("\n")
    )
}

#[test]
fn one_packet_pole_to_pole_delay_by_hand() {
    // One 1000-byte CBR packet (1028 bytes of IP) at time 0. At 0 satellite 6 (alpha 90)
    // is straight over the north pole, 780 km up, and satellite 18 over the south pole:
    // each station is attached to the one overhead. The route runs 6 -> ... -> 18 round
    // the ring, 12 ISLs whose length never changes (the plane turns as a whole): chord
    // 2 r sin 7.5 deg, r = 7158 km. Each hop's delay is the distance when its
    // transmission starts: the uplink's 780 km at 0; the downlink's when the packet has
    // crossed the ring, by then satellite 18 has moved an angle w t past the pole, at
    // distance sqrt(r^2 + R^2 - 2 r R cos(w t)) from the station (R = 6378 km).
    let text = pole_to_pole(
        r#"
[[flows]]
name = "cbr"
type = "cbr"
from = "north"
to = "south"
rate = "8Kb"
packet_size = "1000B"
"#,
    );
    let s = run(&text);
    let c: f64 = 299_793.0;
    let (r, earth) = (7158.0f64, 6378.0f64);
    let bits = 1028.0 * 8.0;
    let (tx_gsl, tx_isl) = (bits / 1.5e6, bits / 25e6);
    let chord = 2.0 * r * (7.5f64 * PI / 180.0).sin();
    let period = 2.0 * PI * (r.powi(3) / 398_601.2).sqrt();
    let down_start = tx_gsl + 780.0 / c + 12.0 * (tx_isl + chord / c);
    let angle = 2.0 * PI * down_start / period;
    let down = (r * r + earth * earth - 2.0 * r * earth * angle.cos()).sqrt();
    let by_hand = down_start + tx_gsl + down / c;
    let got = s["flows"]["cbr"]["max_delay_s"].as_f64().unwrap();
    assert_eq!(s["flows"]["cbr"]["delivered_packets"], 1, "{s}");
    // Each hop's delay and transmission time are whole nanoseconds: 14 hops.
    assert!((got - by_hand).abs() < 30e-9, "{got} vs {by_hand}");
    let sl = &s["satellite_links"];
    assert_eq!(sl["gsl"]["tx_packets"], 2);
    assert_eq!(sl["isl"]["tx_packets"], 12);
    assert_eq!(sl["isl"]["tx_bytes"], 12 * 1028);
    assert_eq!(s["ground_stations"]["north"]["handovers"], 0);
    assert_eq!(s["links"].as_object().map(|m| m.len()), Some(0));
}

#[test]
fn a_ground_station_with_a_wired_host_behind_it() {
    // A host one wired link behind each station: the satellite segment sits inside a
    // wired network. Its packet adds the two wired links (10 Mb/s, 5 ms) to the path.
    let text = pole_to_pole(
        r#"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "la"
a = "a"
b = "north"
bandwidth = "10Mb"
delay = "5ms"
[[links]]
name = "lb"
a = "south"
b = "b"
bandwidth = "10Mb"
delay = "5ms"
[[flows]]
name = "cbr"
type = "cbr"
from = "a"
to = "b"
rate = "8Kb"
packet_size = "1000B"
"#,
    );
    let s = run(&text);
    assert_eq!(s["flows"]["cbr"]["delivered_packets"], 1, "{s}");
    let got = s["flows"]["cbr"]["max_delay_s"].as_f64().unwrap();
    // The satellite part alone is about 5.48 ms x 2 + 12 x 0.33 ms + 12 chords of
    // 1868.5 km and two ground hops of ~780 km: some 94 ms; the wires add 2 x
    // (0.82 ms + 5 ms).
    let wires = 2.0 * (1028.0 * 8.0 / 10e6 + 5e-3);
    assert!(got > 0.090 + wires && got < 0.100 + wires, "{got}");
    assert_eq!(s["satellite_links"]["isl"]["tx_packets"], 12);
    assert_eq!(s["links"]["a->north"]["tx_packets"], 1);
    assert_eq!(s["links"]["south->b"]["tx_packets"], 1);
}

#[test]
fn slotted_handovers_every_interval_and_tcp_over_the_shell() {
    // The Starlink-like shell of scenarios/leo-starlink.toml, 40 s: with a 15-s slot
    // every check after time 0 (15 s and 30 s) hands each station to another satellite
    // (dozens are above 25 deg at once in a 72 x 22 shell): 2 handovers each.
    let text = include_str!("../../../../scenarios/leo-starlink.toml")
        .replace("duration = \"120s\"", "duration = \"40s\"");
    let s = run(&text);
    assert_eq!(s["ground_stations"]["london"]["handovers"], 2, "{s}");
    assert_eq!(s["ground_stations"]["newyork"]["handovers"], 2);
    assert!(
        s["flows"]["tcp"]["goodput_bps"].as_f64().unwrap() > 1e6,
        "{s}"
    );
    assert!(
        s["flows"]["sctp"]["goodput_bps"].as_f64().unwrap() > 1e6,
        "{s}"
    );
    let isl = &s["satellite_links"]["isl"];
    assert!(isl["tx_packets"].as_u64().unwrap() > 0);
}

#[test]
fn sctp_fails_over_from_a_wire_to_a_geo_satellite() {
    // Two ground stations on the equator at 10 W and 10 E, joined by a wire and by one
    // geostationary satellite over 0 E (an `explicit` entry at 35,786 km, inclination 0):
    // each is multihomed (eth0 on the wire, sat1 on the satellite). SCTP starts on the
    // wire (the primary, b's first address); the wire goes down at 10 s. RFC 9260 sec.
    // 8.2: the primary is marked inactive after Path.Max.Retrans (5) more timeouts, the
    // RTO doubling from 1 s (1 + 2 + 4 + 8 + 16 + 32 s: by 73 s); meanwhile only the
    // retransmissions go to the alternate. With the window from 100 s only what
    // crossed the satellite counts.
    let text = format!(
        r#"
duration = "200s"
[measure]
start = "100s"
{}
{}
{}
{}
[[flows]]
name = "sctp"
type = "sctp"
variant = "rfc9260"
from = "a"
to = "b"
start = "1s"
[[faults]]
name = "cut"
at = "10s"
link = "wire"
action = "down"
"#,
        geo_constellation("geo", 0.0, "2Mb"),
        equator_station("a", -10.0, "geo"),
        equator_station("b", 10.0, "geo"),
        wire("wire", "a", "b", "2Mb", "10ms")
    );
    let s = run(&text);
    let f = &s["flows"]["sctp"];
    assert_eq!(f["paths"]["b:eth0"]["state"], "inactive", "{s}");
    assert!(f["goodput_bps"].as_f64().unwrap() > 100_000.0, "{s}");
    assert!(f["paths"]["b:sat1"]["bytes_acked"].as_u64().unwrap() > 1_000_000);
    assert_eq!(
        s["links"]["a->b"]["tx_packets"], 0,
        "the wire is down all window"
    );
    assert_eq!(s["ground_stations"]["a"]["handovers"], 0);
    // The satellite path's RTT: four times the slant range from a station 10 deg of
    // longitude from the sub-satellite point, sqrt(R^2 + r^2 - 2 R r cos 10 deg) with
    // r = 6378 + 35786 km, over the speed of light (0.4777 s), plus the transmission
    // times (a 1496-byte packet at 2 Mb/s is 6 ms each way up and down).
    let (big_r, r) = (6378.0f64, 42_164.0f64);
    let slant = (big_r * big_r + r * r - 2.0 * big_r * r * (10.0 * PI / 180.0).cos()).sqrt();
    let rtt = 4.0 * slant / 299_793.0;
    let srtt = f["paths"]["b:sat1"]["srtt_s"].as_f64().unwrap();
    assert!(srtt > rtt && srtt < rtt + 0.03, "{srtt} vs {rtt}");
}

/// Slant range (km) from a station on the equator to a geostationary satellite whose
/// sub-satellite point is `gamma_deg` of longitude away: the triangle Earth's centre /
/// station / satellite, sqrt(R^2 + r^2 - 2 R r cos gamma), R = 6378 km, r = R + 35,786.
fn geo_slant(gamma_deg: f64) -> f64 {
    let (big_r, r) = (6378.0f64, 6378.0 + 35_786.0);
    (big_r * big_r + r * r - 2.0 * big_r * r * (gamma_deg * PI / 180.0).cos()).sqrt()
}

#[test]
fn packets_a_satellite_cannot_route_are_counted() {
    // One geostationary satellite over 0 E; station b on the equator at 100 E is
    // 100 deg of longitude from it, beyond the horizon (acos(R / r) = 81.3 deg), so b
    // never has a satellite. Every packet a sends climbs to the satellite, which has no
    // route to b: each is lost there and counted as a handover drop of b's ground link.
    let text = format!(
        r#"
duration = "10s"
{}
{}
{}
[[flows]]
name = "cbr"
type = "cbr"
from = "a"
to = "b"
rate = "8Kb"
packet_size = "1000B"
"#,
        geo_constellation("geo", 0.0, "2Mb"),
        equator_station("a", -10.0, "geo"),
        equator_station("b", 100.0, "geo")
    );
    let s = run(&text);
    let gsl = &s["satellite_links"]["gsl"];
    // One 1000-byte packet a second from 0 to 9 s: ten packets, each crosses a's
    // uplink (0.24 s up at most) and is lost at the satellite.
    assert_eq!(s["flows"]["cbr"]["delivered_packets"], 0, "{s}");
    assert_eq!(gsl["tx_packets"], 10, "{s}");
    assert_eq!(gsl["handover_drops"], 10, "{s}");
    assert_eq!(s["satellite_links"]["isl"]["handover_drops"], 0);
}

#[test]
fn sctp_fails_over_between_two_geo_constellations() {
    // Host a is wired to two ground stations at 10 W on the equator, a1 a terminal of
    // constellation geo1 (one satellite over 0 E) and a2 one of geo2 (one over 40 E);
    // host b likewise to b1 and b2 at 10 E. b's first address (eth0, its wire to b1) is
    // the primary: a -> a1 -> geo1 -> b1 -> b; the second goes over geo2. The wire a-a1
    // fails at 20 s; SCTP marks b:eth0 inactive and goes on over geo2.
    // RTT of each path by hand: twice the wires (1 ms each) and the two slant ranges
    // over the speed of light: geo1 10 deg from both stations, geo2 50 deg from a2 and
    // 30 deg from b2 (22 ms longer). The transmission times add at most 2 x (1.2 ms +
    // 0.12 ms) for a 1500-byte packet at 10 Mb/s and 100 Mb/s, the SACK's less: the
    // 64 KiB window (1 Mb/s over 0.5 s) never queues.
    let text = format!(
        r#"
duration = "200s"
[measure]
start = "100s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
{}
{}
{}
{}
{}
{}
{}
{}
{}
{}
[[flows]]
name = "sctp"
type = "sctp"
variant = "rfc9260"
from = "a"
to = "b"
start = "1s"
[[faults]]
name = "cut"
at = "20s"
link = "wa1"
action = "down"
"#,
        geo_constellation("geo1", 0.0, "10Mb"),
        geo_constellation("geo2", 40.0, "10Mb"),
        equator_station("a1", -10.0, "geo1"),
        equator_station("b1", 10.0, "geo1"),
        equator_station("a2", -10.0, "geo2"),
        equator_station("b2", 10.0, "geo2"),
        wire("wa1", "a", "a1", "100Mb", "1ms"),
        wire("wa2", "a", "a2", "100Mb", "1ms"),
        wire("wb1", "b1", "b", "100Mb", "1ms"),
        wire("wb2", "b2", "b", "100Mb", "1ms")
    );
    let s = run(&text);
    let f = &s["flows"]["sctp"];
    let c = 299_793.0;
    let rtt1 = 2.0 * (2e-3 + (geo_slant(10.0) + geo_slant(10.0)) / c);
    let rtt2 = 2.0 * (2e-3 + (geo_slant(50.0) + geo_slant(30.0)) / c);
    let tx = 2.0 * (1500.0 * 8.0 / 10e6 + 1500.0 * 8.0 / 100e6) + 2e-3;
    let p1 = &f["paths"]["b:eth0"];
    let p2 = &f["paths"]["b:eth1"];
    assert_eq!(p1["state"], "inactive", "{s}");
    assert_eq!(p2["state"], "active", "{s}");
    assert!(p2["bytes_acked"].as_u64().unwrap() > 1_000_000, "{s}");
    assert_eq!(
        s["links"]["a->a1"]["tx_packets"], 0,
        "the wire is down all window"
    );
    assert!(s["links"]["a->a2"]["tx_packets"].as_u64().unwrap() > 0);
    let (s1, s2) = (
        p1["srtt_s"].as_f64().unwrap(),
        p2["srtt_s"].as_f64().unwrap(),
    );
    assert!(s1 > rtt1 && s1 < rtt1 + tx, "geo1 {s1} vs {rtt1}");
    assert!(s2 > rtt2 && s2 < rtt2 + tx, "geo2 {s2} vs {rtt2}");
}

#[test]
fn a_handover_under_a_packet_on_the_wire() {
    // scenarios/leo.toml (users wired to two terminals per city) for 40 s: at 15 s and
    // 30 s each terminal is handed to another satellite, which may be nearer than the one
    // a packet still on the uplink flies to (that packet is lost on arrival, and the next
    // one arrives before it would have: at 30 s, New York's first uplink, which stopped
    // the run before the fix). The run goes on: two handovers per station.
    let text = include_str!("../../../../scenarios/leo.toml")
        .replace("duration = \"60s\"", "duration = \"40s\"");
    let s = run(&text);
    for st in ["london-a", "london-b", "newyork-a", "newyork-b"] {
        assert_eq!(s["ground_stations"][st]["handovers"], 2, "{st}: {s}");
    }
    assert!(s["flows"]["flow"]["goodput_bps"].as_f64().unwrap() > 0.0);
}

#[test]
fn sctp_fails_over_from_a_leo_shell_to_a_geo_satellite() {
    // Host a is wired to two ground stations at 10 W on the equator: l_a, a terminal of
    // a small LEO shell (one equatorial plane of 12 satellites at 1,000 km, 30 deg
    // apart), and g_a, a terminal of one geostationary satellite over 0 E; host b
    // likewise to l_b and g_b at 10 E. b's first address (eth0, its wire to l_b) is the
    // primary: a -> l_a -> LEO shell -> l_b -> b; the second goes over the GEO satellite.
    // The wire a-l_a fails at 20 s and SCTP goes on over GEO.
    //
    // Coverage by hand: with a 10-deg mask a satellite at r = R + 1,000 km is visible up
    // to acos(R cos 10 deg / r) - 10 deg = 21.6 deg of Earth-central angle from a station,
    // so a station always sees one of satellites 30 deg apart; the ns-2 handoff checks
    // every 10 s, over which the shell moves 0.53 deg against the turning Earth (period
    // 2 pi sqrt(r^3 / mu) = 6,307 s), so an attached satellite is at most 23 deg away.
    const CUT: f64 = 20.0;
    let leo: Vec<String> = (0..12)
        .map(|i| {
            format!(
                "  {{ altitude = \"1000km\", inclination = 0.0, longitude = 0.0, alpha = {}.0, plane = 1 }},",
                30 * i
            )
        })
        .collect();
    let geo = geo_constellation("geo", 0.0, "10Mb");
    let stations: String = [
        equator_station("l_a", -10.0, "leo"),
        equator_station("l_b", 10.0, "leo"),
        equator_station("g_a", -10.0, "geo"),
        equator_station("g_b", 10.0, "geo"),
    ]
    .concat();
    let wires: String = [
        wire("wla", "a", "l_a", "100Mb", "1ms"),
        wire("wga", "a", "g_a", "100Mb", "1ms"),
        wire("wlb", "l_b", "b", "100Mb", "1ms"),
        wire("wgb", "g_b", "b", "100Mb", "1ms"),
    ]
    .concat();
    let text = format!(
        r#"
duration = "200s"
[measure]
start = "100s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[constellations]]
name = "leo"
kind = "explicit"
isl_bandwidth = "100Mb"
gsl_bandwidth = "100Mb"
satellites = [
{}
]
{geo}
{stations}
{wires}
[[flows]]
name = "sctp"
type = "sctp"
variant = "rfc9260"
from = "a"
to = "b"
start = "1s"
rto_min = "1s"
rto_max = "60s"
path_max_retrans = 5
[[faults]]
name = "cut"
at = "{CUT}s"
link = "wla"
action = "down"
"#,
        leo.join("\n")
    );
    let s = run(&text);
    let f = &s["flows"]["sctp"];
    let c = 299_793.0;
    let (p_leo, p_geo) = (&f["paths"]["b:eth0"], &f["paths"]["b:eth1"]);
    assert_eq!(p_leo["state"], "inactive", "{s}");
    assert_eq!(p_geo["state"], "active", "{s}");
    assert!(p_geo["bytes_acked"].as_u64().unwrap() > 1_000_000, "{s}");
    assert_eq!(s["links"]["a->l_a"]["tx_packets"], 0, "the wire is down");
    // GEO RTT by hand, as in the GEO-to-GEO test: the wires (1 ms each) and the two
    // slant ranges 10 deg from the sub-satellite point, twice; the transmission times add
    // at most 2 x (1.2 ms + 0.12 ms) for a 1500-byte packet at 10 and 100 Mb/s.
    let rtt_geo = 2.0 * (2e-3 + 2.0 * geo_slant(10.0) / c);
    let tx = 2.0 * (1500.0 * 8.0 / 10e6 + 1500.0 * 8.0 / 100e6) + 2e-3;
    let srtt_geo = p_geo["srtt_s"].as_f64().unwrap();
    assert!(
        srtt_geo > rtt_geo && srtt_geo < rtt_geo + tx,
        "geo {srtt_geo} vs {rtt_geo}"
    );
    // When the primary is marked failed, RFC 9260: its error counter passes
    // Path.Max.Retrans (5) at its 6th T3-rtx timeout (sec. 8.2), the RTO doubling each
    // time (sec. 6.3.3 E2) from RTO.Min (1 s: the LEO RTT is under 0.1 s, so SRTT +
    // 4 RTTVAR < 1 s). The last SACK over the wire arrived before the cut, so the first
    // expiry falls in (CUT, CUT + 1]. That timeout moves what was outstanding to GEO
    // (E3), which leaves nothing outstanding on the primary, so its timer stops (sec.
    // 6.3.2 R2) until new data goes to it again (R1): when the retransmission's SACK
    // comes back over GEO, one GEO RTT later. The other five expiries follow 2 + 4 + 8
    // + 16 + 32 = 62 s after that (under RTO.Max, 60 s).
    let failed = p_leo["failed_at_s"].as_f64().unwrap();
    let (lo, hi) = (CUT + 62.0 + rtt_geo, CUT + 63.0 + rtt_geo + tx);
    assert!(
        failed > lo && failed <= hi,
        "failed at {failed}, not in ({lo}, {hi}]"
    );
    // The LEO RTT changes with the positions, so only bounds; SRTT keeps its value from
    // before the cut (no RTT sample over the cut wire after it): at
    // least the two wires and the altitude up and down each way (2,000 km); at most the
    // wires, two slant ranges to satellites 23 deg away (2,912 km each, sqrt(R^2 + r^2 -
    // 2 R r cos 23 deg)) and two ISL hops of 2 r sin 15 deg = 3,819 km each way (the
    // two attached satellites are at most 20 + 2 x 23 deg apart, so at most 60 deg on
    // the ring), plus transmission times at 100 Mb/s (0.12 ms a hop, 5 hops each way).
    let rtt_leo_min = 2.0 * (2e-3 + 2000.0 / c);
    let rtt_leo_max = 2.0 * (2e-3 + (2.0 * 2912.4 + 2.0 * 3819.2) / c + 5.0 * 0.12e-3);
    let srtt_leo = p_leo["srtt_s"].as_f64().unwrap();
    assert!(
        srtt_leo > rtt_leo_min && srtt_leo < rtt_leo_max,
        "leo {srtt_leo} not in ({rtt_leo_min}, {rtt_leo_max})"
    );
}
