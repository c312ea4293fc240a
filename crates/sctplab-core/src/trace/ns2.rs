//! ns-2-style text trace (`trace-all` format) for users of ns-2 tools:
//! `<ev> <time> <from> <to> <type> <size> <flags> <fid> <src>.<sport> <dst>.<dport> <seq> <uid>`
//! with `ev` one of `+` (enqueue), `-` (dequeue: transmission starts), `r` (received at
//! the far end), `d` (dropped: queue overflow, or lost on the link).

use crate::net::Packet;
use crate::net::wire::TransportRepr;
use crate::sim::SimTime;
use std::io::{self, Write};

/// The fields of one wireless trace line (see `Ns2Trace::wireless`).
pub struct WirelessLine<'a> {
    pub op: char,
    pub t: SimTime,
    pub node: u32,
    /// `AGT`, `RTR`, `MAC` or `IFQ`.
    pub layer: &'static str,
    /// `---`, or a drop reason (`NRTE`, `TTL`, `IFQ`, `CBK`, ...).
    pub why: &'static str,
    pub uid: u64,
    /// ns-2's packet type name (`cbr`, `tcp`, `ack`, `sctp`, `AODV`, `RTS`, `CTS`, `ACK`).
    pub kind: &'a str,
    pub size: u32,
    pub mac: [u64; 4],
    /// (source node, port, destination node, port, ttl, next-hop node); none for frames
    /// without an IP packet (RTS, CTS, ACK).
    pub ip: Option<(i64, u16, i64, u16, u8, i64)>,
    pub tail: String,
}

pub struct Ns2Trace<W: Write> {
    w: W,
}

/// Seconds with up to nine decimals and no trailing zeros, as ns-2 prints short times.
pub fn fmt_time(t: SimTime) -> String {
    let s = format!("{t}");
    let s = s.trim_end_matches('0');
    s.strip_suffix('.').unwrap_or(s).to_string()
}

impl<W: Write> Ns2Trace<W> {
    pub fn new(w: W) -> Self {
        Ns2Trace { w }
    }

    pub fn event(
        &mut self,
        ev: char,
        t: SimTime,
        from: u32,
        to: u32,
        p: &Packet,
    ) -> io::Result<()> {
        let (sport, dport) = p.ports();
        let seq = if p.data_num != 0 {
            p.data_num
        } else {
            p.ack_num
        };
        let flags = match &p.transport {
            TransportRepr::Tcp(_) | TransportRepr::Sctp(_) | TransportRepr::Udp(_) => "-------",
        };
        writeln!(
            self.w,
            "{ev} {} {from} {to} {} {} {flags} {} {}.{sport} {}.{dport} {seq} {}",
            fmt_time(t),
            p.ns2_type(),
            p.size,
            p.flow.0,
            p.src.0,
            p.dst.0,
            p.uid
        )
    }

    /// One line of ns-2's wireless trace (CMUTrace, old format, trace/cmu-trace.cc):
    /// `<op> <time> _<node>_ <layer> <why> <uid> <type> <size> [<mac>] ------- [<ip>] <tail>`.
    /// `mac` is the 802.11 header as ns-2 prints it (duration, receiver, transmitter,
    /// ethertype, in hex; all 0 above the MAC), `ip` the IP header with node numbers
    /// (source:port destination:port ttl next-hop; a broadcast destination is -1).
    pub fn wireless(&mut self, line: &WirelessLine<'_>) -> io::Result<()> {
        let [d, ra, ta, et] = line.mac;
        write!(
            self.w,
            "{} {:.9} _{}_ {:<3} {:>4} {} {} {} [{d:x} {ra:x} {ta:x} {et:x}] ",
            line.op,
            line.t.as_secs_f64(),
            line.node,
            line.layer,
            line.why,
            line.uid,
            line.kind,
            line.size,
        )?;
        if let Some((src, sport, dst, dport, ttl, next)) = line.ip {
            // ns-2.35's `CMUTrace::format_ip` (old format) prints a negative next hop
            // (a broadcast's IP_BROADCAST, or none yet) as 0; the destination keeps its -1.
            let next = next.max(0);
            write!(
                self.w,
                "------- [{src}:{sport} {dst}:{dport} {ttl} {next}] "
            )?;
        }
        writeln!(self.w, "{}", line.tail)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }

    /// The writer the lines go to.
    pub fn writer_mut(&mut self) -> &mut W {
        &mut self.w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wireless_lines_follow_cmu_trace() {
        let mut t = Ns2Trace::new(Vec::new());
        t.wireless(&WirelessLine {
            op: 's',
            t: SimTime::from_nanos(10_000_275_000),
            node: 0,
            layer: "MAC",
            why: "---",
            uid: 5,
            kind: "cbr",
            size: 590,
            mac: [0x13a, 1, 0, 0x800],
            ip: Some((0, 0, 1, 0, 30, 1)),
            tail: "[0] 0 0".into(),
        })
        .unwrap();
        assert_eq!(
            String::from_utf8(t.w).unwrap(),
            "s 10.000275000 _0_ MAC  --- 5 cbr 590 [13a 1 0 800] ------- [0:0 1:0 30 1] [0] 0 0\n"
        );
    }

    /// A DSDV update broadcast at the MAC, as ns-2.35 writes it (`ns` with two static
    /// nodes 100 m apart, DSDV, `-routerTrace ON -macTrace ON`): our next hop of a
    /// broadcast is -1, ns-2's trace line shows 0.
    #[test]
    fn broadcast_next_hop_is_written_as_zero() {
        let mut t = Ns2Trace::new(Vec::new());
        t.wireless(&WirelessLine {
            op: 's',
            t: SimTime::from_nanos(1_115_206_050),
            node: 1,
            layer: "MAC",
            why: "---",
            uid: 2,
            kind: "message",
            size: 90,
            mac: [0, 0xffff_ffff, 1, 0x800],
            ip: Some((1, 255, -1, 255, 32, -1)),
            tail: String::new(),
        })
        .unwrap();
        assert_eq!(
            String::from_utf8(t.w).unwrap(),
            "s 1.115206050 _1_ MAC  --- 2 message 90 [0 ffffffff 1 800] ------- [1:255 -1:255 32 0] \n"
        );
    }

    #[test]
    fn times_are_trimmed() {
        assert_eq!(fmt_time(SimTime::from_nanos(100_000_000)), "0.1");
        assert_eq!(fmt_time(SimTime::from_nanos(2_000_000_000)), "2");
        assert_eq!(fmt_time(SimTime::from_nanos(1_000_000_123)), "1.000000123");
    }
}
