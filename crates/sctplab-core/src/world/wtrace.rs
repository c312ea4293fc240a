//! ns-2 wireless trace lines (`--trace ns2` on wireless nodes): what ns-2.35's CMUTrace
//! writes at the agent (AGT), routing (RTR), interface queue (IFQ) and MAC layers, so
//! ns-2's trace tools read our runs of mobile networks.

use super::{World, addr_parts};
use crate::net::{NodeId, Packet, PacketId};
use crate::sim::SimTime;
use crate::trace::ns2::WirelessLine;
use crate::wireless::aodv::AodvMsg;
use crate::wireless::arp::{ArpMsg, ArpOp, ETHERTYPE_ARP};
use crate::wireless::frame::{Frame, FrameKind, MacAddr};
use crate::wireless::routing::RoutingMsg;

/// ns-2's node number for an IPv4 address of ours (-1: broadcast or not in the plan).
fn node_of(a: [u8; 4]) -> i64 {
    if a == [255; 4] {
        return -1;
    }
    addr_parts(a).map_or(-1, |(n, _)| n as i64)
}

/// The type-specific tail of a line (format_tcp, format_rtp, format_aodv).
fn tail(p: &Packet) -> String {
    let fwd = p.forwards;
    // DSDV's updates are ns-2's `PT_MESSAGE`, whose tail (`format_msg`) is empty.
    if let Some(RoutingMsg::Dsdv(_)) = &p.routing {
        return String::new();
    }
    if let Some(f) = p.sr.as_deref().filter(|f| f.control) {
        return dsr_tail(&f.sr);
    }
    if let Some(RoutingMsg::Aodv(msg)) = &p.routing {
        let node = |a: u32| node_of(a.to_be_bytes());
        // The first field is ns-2.35's message type (aodv_packet.h: AODVTYPE_RREQ 0x02,
        // AODVTYPE_RREP 0x04, AODVTYPE_RERR 0x08), printed by format_aodv as `0x%x`.
        return match msg {
            AodvMsg::Rreq(q) => format!(
                "[0x2 {} {} [{} {}] [{} {}]] (REQUEST)",
                q.hop_count,
                q.bcast_id,
                node(q.dst),
                q.dst_seqno,
                node(q.src),
                q.src_seqno
            ),
            AodvMsg::Rrep(r) => format!(
                "[0x4 {} [{} {}] {:.6}] (REPLY)",
                r.hop_count,
                node(r.dst),
                r.dst_seqno,
                f64::from(r.lifetime_s)
            ),
            AodvMsg::Rerr(e) => {
                let first = e.unreachable.first();
                format!(
                    "[0x8 {} [{} {}] 0.000000] (ERROR)",
                    e.unreachable.len(),
                    first.map_or(-1, |u| node(u.dst)),
                    first.map_or(0, |u| u.seqno)
                )
            }
        };
    }
    match p.ns2_type() {
        "tcp" | "ack" => format!("[{} {}] {fwd} 0", p.data_num, p.ack_num),
        _ => format!("[{}] {fwd} 0", p.data_num.max(p.ack_num)),
    }
}

/// cmu-trace.cc `format_dsr` (the old format): addresses in the route, [request,
/// its number], [reply, the number, reply length, its first->last node], [error, errors,
/// the last one's tell, from->to].
fn dsr_tail(sr: &crate::wireless::dsr::SrHeader) -> String {
    let node = |a: u32| node_of(a.to_be_bytes());
    let seq = sr
        .request
        .map(|q| q.seq)
        .or(sr.reply.as_ref().map(|r| r.0))
        .unwrap_or(0);
    let (rep_len, rep_first, rep_last) = match &sr.reply {
        Some((_, r)) => (
            r.len(),
            r.first().map_or(0, |&a| node(a)),
            r.last().map_or(0, |&a| node(a)),
        ),
        None => (0, 0, 0),
    };
    let e = sr.errors.last();
    format!(
        "{} [{} {seq}] [{} {seq} {rep_len} {rep_first}->{rep_last}] [{} {} {} {}->{}]",
        sr.addrs.len(),
        u8::from(sr.request.is_some()),
        u8::from(sr.reply.is_some()),
        u8::from(!sr.errors.is_empty()),
        sr.errors.len(),
        e.map_or(0, |e| node(e.tell)),
        e.map_or(0, |e| node(e.from)),
        e.map_or(0, |e| node(e.to)),
    )
}

fn kind_of(p: &Packet) -> &'static str {
    if p.sr.as_ref().is_some_and(|f| f.control) {
        "DSR"
    } else if let Some(m) = &p.routing {
        m.ns2_type()
    } else if p.arp.is_some() {
        "ARP"
    } else {
        p.ns2_type()
    }
}

/// The EtherType ns-2's MAC lines show for a packet.
fn ethertype_of(p: &Packet) -> u64 {
    if p.arp.is_some() {
        u64::from(ETHERTYPE_ARP)
    } else {
        0x800
    }
}

impl World {
    /// A packet event at an upper layer (AGT, RTR, IFQ): no MAC header yet.
    pub(super) fn wtrace_packet(
        &mut self,
        op: char,
        t: SimTime,
        node: NodeId,
        layer: &'static str,
        why: &'static str,
        pid: PacketId,
    ) {
        self.wtrace_packet_mac(op, t, node, layer, why, pid, [0; 4]);
    }

    /// A DATA frame's packet the MAC of `node` received from the NIC `from`.
    pub(super) fn wtrace_received(
        &mut self,
        t: SimTime,
        node: NodeId,
        pid: PacketId,
        from: MacAddr,
    ) {
        let line = self.received_line(t, node, self.pool.get(pid), from);
        self.tracer.ns2_wireless(&line);
    }

    /// `wtrace_received`'s line for packet `p`.
    pub(super) fn received_line(
        &self,
        t: SimTime,
        node: NodeId,
        p: &Packet,
        from: MacAddr,
    ) -> WirelessLine<'static> {
        let ta = self
            .wireless
            .as_deref()
            .and_then(|w| w.nics.get(from.0 as usize))
            .map_or(0, |n| u64::from(n.node.0));
        let mac = [0, u64::from(node.0), ta, ethertype_of(p)];
        self.packet_line('r', t, node, "MAC", "---", p, mac)
    }

    #[allow(clippy::too_many_arguments)]
    fn wtrace_packet_mac(
        &mut self,
        op: char,
        t: SimTime,
        node: NodeId,
        layer: &'static str,
        why: &'static str,
        pid: PacketId,
        mac: [u64; 4],
    ) {
        let line = self.packet_line(op, t, node, layer, why, self.pool.get(pid), mac);
        self.tracer.ns2_wireless(&line);
    }

    /// The line of an event of packet `p` at a layer of `node`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn packet_line(
        &self,
        op: char,
        t: SimTime,
        node: NodeId,
        layer: &'static str,
        why: &'static str,
        p: &Packet,
        mac: [u64; 4],
    ) -> WirelessLine<'static> {
        // ARP packets have no IP header: ns-2 prints `format_arp`'s tail instead.
        let (ip, tail) = match &p.arp {
            Some(a) => (None, self.arp_tail(a)),
            None => (Some(ip_fields(p)), tail(p)),
        };
        WirelessLine {
            op,
            t,
            node: node.0,
            layer,
            why,
            uid: p.uid,
            kind: kind_of(p),
            size: p.size,
            mac,
            ip,
            tail,
        }
    }

    /// Drops a packet, with a `D` line when tracing.
    pub(super) fn drop_traced(
        &mut self,
        t: SimTime,
        node: NodeId,
        layer: &'static str,
        why: &'static str,
        pid: PacketId,
    ) {
        if self.tracer.ns2_on() {
            self.wtrace_packet('D', t, node, layer, why, pid);
        }
        if self.tracer.anim_on() {
            self.tracer.anim_drop(t, node, self.pool.get(pid), why);
        }
        self.discard(pid);
    }

    /// Whether `node` has wireless NICs (its packets are traced in the wireless format).
    pub(super) fn is_wireless_node(&self, node: NodeId) -> bool {
        self.wireless
            .as_deref()
            .is_some_and(|w| !w.node_nics[node.idx()].is_empty())
    }

    /// ns-2's `format_arp` (old format): `------- [REQUEST sha/spa tha/tpa]`, hardware
    /// and protocol addresses as node numbers (0 for a request's unknown target).
    fn arp_tail(&self, a: &ArpMsg) -> String {
        let hw = |m: crate::wireless::frame::MacAddr| -> i64 {
            self.wireless
                .as_deref()
                .and_then(|w| w.nics.get(m.0 as usize))
                .map_or(0, |n| i64::from(n.node.0))
        };
        let op = match a.op {
            ArpOp::Request => "REQUEST",
            ArpOp::Reply => "REPLY",
        };
        format!(
            "------- [{op} {}/{} {}/{}]",
            hw(a.sha),
            node_of(a.spa.to_be_bytes()),
            a.tha.map_or(0, hw),
            node_of(a.tpa.to_be_bytes())
        )
    }

    /// A frame event at the MAC of a NIC on `node`.
    pub(super) fn wtrace_frame(&mut self, op: char, t: SimTime, node: NodeId, frame: &Frame) {
        let mac = |a: MacAddr| -> u64 {
            if a.is_broadcast() {
                return 0xffff_ffff;
            }
            self.wireless
                .as_deref()
                .and_then(|w| w.nics.get(a.0 as usize))
                .map_or(0, |n| u64::from(n.node.0))
        };
        let header = [
            frame.duration.as_nanos() / 1_000,
            mac(frame.dst),
            mac(frame.src),
            match (frame.kind, frame.packet) {
                (FrameKind::Data, Some(pid)) => ethertype_of(self.pool.get(pid)),
                (FrameKind::Data, None) => 0x800,
                _ => 0,
            },
        ];
        let (kind, ip, tail_text, uid) = match frame.packet {
            Some(pid) => {
                let p = self.pool.get(pid);
                match &p.arp {
                    Some(a) => (kind_of(p), None, self.arp_tail(a), p.uid),
                    None => (kind_of(p), Some(ip_fields(p)), tail(p), p.uid),
                }
            }
            None => (
                match frame.kind {
                    FrameKind::Rts => "RTS",
                    FrameKind::Cts => "CTS",
                    FrameKind::Ack => "ACK",
                    FrameKind::Data => "DATA",
                },
                None,
                String::new(),
                0,
            ),
        };
        // ns-2's MAC lines show the frame's size: PLCP and MAC header included.
        let plcp = self.wireless.as_deref().map_or(0, |w| w.plcp_bytes);
        let line = WirelessLine {
            op,
            t,
            node: node.0,
            layer: "MAC",
            why: "---",
            uid,
            kind,
            size: frame.bytes + plcp,
            mac: header,
            ip,
            tail: tail_text,
        };
        self.tracer.ns2_wireless(&line);
    }
}

fn ip_fields(p: &Packet) -> (i64, u16, i64, u16, u8, i64) {
    let (sport, dport) = p.ports();
    let next = if p.next_hop == u32::MAX {
        -1
    } else if p.next_hop == 0 {
        0
    } else {
        node_of(p.next_hop.to_be_bytes())
    };
    (
        node_of(p.ip.src),
        sport,
        node_of(p.ip.dst),
        dport,
        p.ip.ttl,
        next,
    )
}
