//! `[[flows]]`: each flow joins two different known nodes that can reach each other,
//! and its type's values are in range; `cbr_pairs` generators likewise for every pair
//! they may draw.

use super::node_list;
use crate::scenario::error::ScenarioError;
use crate::scenario::load::Scenario;
use crate::scenario::schema::{
    CbrCfg, CbrPairsCfg, CongestionControl, FlowSpec, InitialCwnd, QuicFlowCfg, ScenarioFile,
    SctpCfg, TcpCfg,
};
use crate::sim::SimDuration;
use std::collections::{BTreeMap, BTreeSet};

pub(super) fn validate_flows(
    s: &Scenario,
    nodes: &BTreeMap<&str, usize>,
    component: &[u32],
    source: &str,
) -> Result<(), ScenarioError> {
    let f = &s.file;
    let err = |path: String, msg: String| ScenarioError::new(source, path, msg);
    for flow in &s.flows {
        let p = format!("flows.{}", flow.name());
        let (from, to) = flow.endpoints();
        let mut ends = [0usize; 2];
        for (k, (key, node)) in [("from", from), ("to", to)].into_iter().enumerate() {
            ends[k] = *nodes.get(node).ok_or_else(|| {
                err(
                    format!("{p}.{key}"),
                    format!(
                        "unknown node {node:?}; expected one of: {}",
                        node_list(nodes)
                    ),
                )
            })?;
        }
        if ends[0] == ends[1] {
            return Err(err(
                format!("{p}.to"),
                "a flow must join two different nodes".into(),
            ));
        }
        let wireless = |i: usize| f.nodes[i].wlan > 0;
        if wireless(ends[0]) != wireless(ends[1]) {
            // Either end's `wlan` may be what changed: name both, and report the error
            // at the one an override gave, if any.
            let (wl_from, wl_to) = (f.nodes[ends[0]].wlan, f.nodes[ends[1]].wlan);
            return Err(err(
                p.clone(),
                format!(
                    "{from:?} and {to:?}: one end is wireless and the other not \
                     (nodes.{from}.wlan = {wl_from}, nodes.{to}.wlan = {wl_to}); a network \
                     joining wired links and wireless NICs is not supported yet"
                ),
            )
            .with_related([format!("nodes.{from}.wlan"), format!("nodes.{to}.wlan")]));
        }
        if !wireless(ends[0]) && component[ends[0]] != component[ends[1]] {
            return Err(err(
                p.clone(),
                format!(
                    "no path between {from:?} and {to:?}: the nodes are not connected by links"
                ),
            ));
        }
        match flow {
            FlowSpec::Cbr(c) => validate_cbr(c, &p, source)?,
            FlowSpec::Tcp(c) => validate_tcp(c, &p, source)?,
            FlowSpec::Sctp(c) => validate_sctp(c, &p, source)?,
            FlowSpec::Quic(c) => validate_quic(c, &p, source)?,
        }
    }

    for g in &s.generators {
        validate_cbr_pairs(g, nodes, component, f, source)?;
    }
    Ok(())
}

fn validate_cbr_pairs(
    g: &CbrPairsCfg,
    nodes: &BTreeMap<&str, usize>,
    component: &[u32],
    f: &ScenarioFile,
    source: &str,
) -> Result<(), ScenarioError> {
    let p = format!("flows.{}", g.name);
    let err = |path: String, msg: String| Err(ScenarioError::new(source, path, msg));
    let mut seen = BTreeSet::new();
    let mut first: Option<(&str, usize)> = None;
    for (i, n) in g.among.iter().enumerate() {
        let Some(&k) = nodes.get(n.as_str()) else {
            return err(format!("{p}.among.{i}"), format!("unknown node {n:?}"));
        };
        if !seen.insert(n.as_str()) {
            return err(
                format!("{p}.among.{i}"),
                format!("node {n:?} is listed twice"),
            );
        }
        // Any two of `among` may be drawn as a pair, and each pair becomes a `cbr` flow:
        // refuse here what a `cbr` flow between them would be refused for.
        let Some((a, j)) = first else {
            first = Some((n.as_str(), k));
            continue;
        };
        let wireless = |x: usize| f.nodes[x].wlan > 0;
        if wireless(j) != wireless(k) {
            return err(
                format!("{p}.among.{i}"),
                format!(
                    "{a:?} and {n:?}: one is wireless and the other not, and a flow between \
                     them is not supported; expected nodes that are all wired or all wireless"
                ),
            );
        }
        if !wireless(k) && component[j] != component[k] {
            return err(
                format!("{p}.among.{i}"),
                format!(
                    "no path between {a:?} and {n:?}: the nodes are not connected by links, \
                     and any two of `among` may be drawn as a pair"
                ),
            );
        }
    }
    let n = g.among.len() as u64;
    if g.count == 0 || u64::from(g.count) > n * n.saturating_sub(1) {
        return err(
            format!("{p}.count"),
            format!(
                "expected 1 to {} flows: {n} nodes in `among` make {} distinct ordered pairs",
                n * n.saturating_sub(1),
                n * n.saturating_sub(1)
            ),
        );
    }
    if let (Some(a), Some(b)) = (g.start_min, g.start_max) {
        if b < a {
            return err(
                format!("{p}.start_max"),
                "must not be earlier than start_min".into(),
            );
        }
    }
    let one = CbrCfg {
        name: g.name.clone(),
        from: String::new(),
        to: String::new(),
        start: g.start_max.or(g.start_min),
        stop: g.stop,
        rate: g.rate,
        packet_size: g.packet_size,
        jitter: g.jitter,
    };
    validate_cbr(&one, &p, source)
}

fn validate_cbr(c: &CbrCfg, p: &str, source: &str) -> Result<(), ScenarioError> {
    if c.rate.0 == 0 {
        return Err(ScenarioError::new(
            source,
            format!("{p}.rate"),
            "must be greater than zero",
        ));
    }
    if let Some(size) = c.packet_size {
        // Largest UDP payload in one IPv4 datagram: 65535 - 20 - 8.
        if size.0 == 0 || size.0 > 65_507 {
            return Err(ScenarioError::new(
                source,
                format!("{p}.packet_size"),
                "expected a UDP payload from 1B to 65507B",
            ));
        }
    }
    if let (Some(start), Some(stop)) = (c.start, c.stop) {
        if stop <= start {
            return Err(ScenarioError::new(
                source,
                format!("{p}.stop"),
                "must be later than start",
            ));
        }
    }
    Ok(())
}

fn validate_tcp(c: &TcpCfg, p: &str, source: &str) -> Result<(), ScenarioError> {
    let bad = |key: &str, msg: &str| Err(ScenarioError::new(source, format!("{p}.{key}"), msg));
    // 65535 - 20 (IPv4) - 20 (TCP) - 40 (options): the largest payload that fits.
    if c.segment_size.0 == 0 || c.segment_size.0 > 65_455 {
        return bad("segment_size", "expected a payload from 1B to 65455B");
    }
    if c.bytes.is_some_and(|b| b.0 == 0) {
        return bad(
            "bytes",
            "must be greater than zero (omit it for a bulk transfer)",
        );
    }
    if c.bytes.is_some() && c.stop.is_some() {
        return bad("stop", "only a bulk transfer (no `bytes`) can be stopped");
    }
    if c.window == 0 {
        return bad("window", "expected at least 1 segment");
    }
    if !(c.initial_window.is_finite() && c.initial_window >= 1.0) {
        return bad("initial_window", "expected at least 1 segment");
    }
    if c.initial_ssthresh
        .is_some_and(|s| !(s.is_finite() && s >= 2.0))
    {
        return bad("initial_ssthresh", "expected at least 2 segments");
    }
    if c.dupack_threshold == 0 {
        return bad("dupack_threshold", "expected at least 1");
    }
    if c.hystart.is_some() && c.congestion_control != CongestionControl::Cubic {
        return bad(
            "hystart",
            "HyStart++ is part of CUBIC's slow start: expected it only with \
             congestion_control = \"cubic\"",
        );
    }
    if c.pacing == Some(false) && c.congestion_control == CongestionControl::Bbr {
        return bad(
            "pacing",
            "BBR sets a pacing rate and needs it (its model is rate-based): expected \
             pacing = true or no `pacing` with congestion_control = \"bbr\"",
        );
    }
    if c.max_sack_blocks > 4 {
        return bad(
            "max_sack_blocks",
            "a TCP header holds at most 4 SACK blocks (RFC 2018)",
        );
    }
    if c.rto_min.0 > c.rto_max.0 {
        return bad("rto_min", "must not exceed rto_max");
    }
    if c.clock_granularity.0 == SimDuration::ZERO {
        return bad("clock_granularity", "must be greater than zero");
    }
    if let Some(stop) = c.stop {
        if stop.0 <= c.start.map_or(SimDuration::ZERO, |s| s.0) {
            return bad("stop", "must be later than start");
        }
    }
    Ok(())
}

fn validate_quic(c: &QuicFlowCfg, p: &str, source: &str) -> Result<(), ScenarioError> {
    let bad = |key: &str, msg: &str| Err(ScenarioError::new(source, format!("{p}.{key}"), msg));
    if c.bytes.is_some_and(|b| b.0 == 0) {
        return bad(
            "bytes",
            "must be greater than zero (omit it for a bulk transfer)",
        );
    }
    if c.bytes.is_some() && c.stop.is_some() {
        return bad("stop", "only a bulk transfer (no `bytes`) can be stopped");
    }
    if c.streams == 0 || c.streams > 1024 {
        return bad("streams", "expected from 1 to 1024 streams");
    }
    if c.message_size.0 == 0 || c.message_size.0 > 1 << 20 {
        return bad("message_size", "expected from 1B to 1MiB");
    }
    // RFC 9000 sec. 14: every QUIC path carries 1200-byte UDP payloads; 65527 is the
    // most an IPv4/UDP datagram holds.
    if c.max_udp_payload
        .is_some_and(|m| m.0 < 1200 || m.0 > 65_527)
    {
        return bad("max_udp_payload", "expected from 1200B to 65527B");
    }
    // At least one full-sized datagram's data; at most what a QUIC varint holds
    // (RFC 9000 sec. 16), far beyond any memory.
    if c.receive_buffer
        .is_some_and(|b| b.0 < 1024 || b.0 > (1 << 40))
    {
        return bad("receive_buffer", "expected from 1024B to 1TiB");
    }
    crate::scenario::streams::validate_quic(c, p, source)?;
    if let Some(stop) = c.stop {
        if stop.0 <= c.start.map_or(SimDuration::ZERO, |s| s.0) {
            return bad("stop", "must be later than start");
        }
    }
    Ok(())
}

/// `p` is the flow's key prefix (`flows.f`), empty in live mode where keys stand alone.
pub(crate) fn validate_sctp(c: &SctpCfg, p: &str, source: &str) -> Result<(), ScenarioError> {
    let bad = |key: &str, msg: &str| {
        let path = if p.is_empty() {
            key.to_string()
        } else {
            format!("{p}.{key}")
        };
        Err(ScenarioError::new(source, path, msg))
    };
    crate::scenario::reconf::validate_flow(c, p, source)?;
    // IPv4 (20) + common header (12) + one DATA chunk header (16) + 4 bytes of data.
    if c.mtu.0 < 52 || c.mtu.0 > 65_535 {
        return bad("mtu", "expected a packet size from 52B to 65535B");
    }
    if c.message_size.0 == 0 {
        return bad("message_size", "must be greater than zero");
    }
    if c.bytes.is_some_and(|b| b.0 == 0) {
        return bad(
            "bytes",
            "must be greater than zero (omit it for a bulk transfer)",
        );
    }
    if c.bytes.is_some() && c.stop.is_some() {
        return bad("stop", "only a bulk transfer (no `bytes`) can be stopped");
    }
    if c.hystart.is_some() && c.congestion_control != CongestionControl::Cubic {
        return bad(
            "hystart",
            "HyStart++ is part of CUBIC's slow start: expected it only with \
             congestion_control = \"cubic\"",
        );
    }
    if c.pacing == Some(false) && c.congestion_control == CongestionControl::Bbr {
        return bad(
            "pacing",
            "BBR sets a pacing rate and needs it (its model is rate-based): expected \
             pacing = true or no `pacing` with congestion_control = \"bbr\"",
        );
    }
    if c.pacing == Some(true) && c.congestion_control == CongestionControl::Reno {
        return bad(
            "pacing",
            "pacing is not built for sctp flows with SCTP's own window rules: expected \
             congestion_control = \"cubic\" or \"bbr\" with pacing = true",
        );
    }
    if c.streams == 0 {
        return bad("streams", "expected at least 1 stream");
    }
    if c.receive_buffer.0 < 1024 {
        return bad("receive_buffer", "expected at least 1024B");
    }
    // The largest DATA chunk the flow sends (16-byte header, payload cut to the packet's
    // room in whole words) must fit the buffer, or no chunk is ever accepted.
    let room = c.mtu.0.saturating_sub(32 + 16) / 4 * 4;
    let largest = 16 + c.message_size.0.min(room);
    if c.receive_buffer.0 < largest {
        return bad(
            "receive_buffer",
            &format!(
                "expected at least {largest}B, the largest DATA chunk of this mtu and message_size"
            ),
        );
    }
    if c.fast_rtx_threshold == Some(0) {
        return bad("fast_rtx_threshold", "expected at least 1 missing report");
    }
    if let Some(InitialCwnd::Mtus(m)) = c.initial_cwnd {
        if !(m.is_finite() && m > 0.0) {
            return bad(
                "initial_cwnd",
                "expected a positive number of MTUs or a size like \"4380B\"",
            );
        }
    }
    if c.rto_min.0 > c.rto_max.0 {
        return bad("rto_min", "must not exceed rto_max");
    }
    if let Some(stop) = c.stop {
        if stop.0 <= c.start.map_or(SimDuration::ZERO, |s| s.0) {
            return bad("stop", "must be later than start");
        }
    }
    crate::scenario::streams::validate(c, p, source)
}
