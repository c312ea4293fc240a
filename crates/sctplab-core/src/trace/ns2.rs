//! ns-2-style text trace (`trace-all` format) for users of ns-2 tools:
//! `<ev> <time> <from> <to> <type> <size> <flags> <fid> <src>.<sport> <dst>.<dport> <seq> <uid>`
//! with `ev` one of `+` (enqueue), `-` (dequeue: transmission starts), `r` (received at
//! the far end), `d` (dropped: queue overflow, or lost on the link).

use crate::net::Packet;
use crate::net::wire::TransportRepr;
use crate::sim::SimTime;
use std::io::{self, Write};

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

    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_trimmed() {
        assert_eq!(fmt_time(SimTime::from_nanos(100_000_000)), "0.1");
        assert_eq!(fmt_time(SimTime::from_nanos(2_000_000_000)), "2");
        assert_eq!(fmt_time(SimTime::from_nanos(1_000_000_123)), "1.000000123");
    }
}
