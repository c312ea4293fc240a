//! The association's side of ECN (the rules and their state are in `sctp/ecn.rs`): a
//! CE-marked packet's lowest TSN, the ECNE in front of a SACK, and the answer to an
//! ECNE (RFC 9260 appendix A).

use super::*;
use crate::sctp::outbound::tsn_lt;

/// An ECNE or CWR chunk's padded length.
const ECN_CHUNK_LEN: usize = 8;

impl Association {
    /// Makes this end ECN-capable (the flow's `ecn`): its INIT or INIT ACK carries the
    /// ECN Capable parameter.
    pub fn set_ecn(&mut self, capable: bool) {
        self.ecn = crate::sctp::ecn::SctpEcn::new(capable);
    }

    /// Window cuts made for ECNE chunks in the measurement window; `None` for an
    /// association that is not ECN-capable.
    pub fn ecn_reductions(&self) -> Option<u64> {
        self.ecn.capable.then_some(self.ecn.reductions)
    }

    /// A packet with DATA came marked CE: the ECNE will carry its lowest TSN.
    #[inline(never)]
    pub(super) fn ce_arrived(&mut self, chunks: &[Chunk]) {
        if self.inb.is_none() {
            return;
        }
        let lowest = chunks
            .iter()
            .filter_map(|c| match c {
                Chunk::Data(d) => Some(d.tsn),
                _ => None,
            })
            .reduce(|a, b| if tsn_lt(b, a) { b } else { a });
        if let Some(t) = lowest {
            self.ecn.on_ce(t);
        }
    }

    /// Puts the pending ECNE in front of a packet that carries a SACK, if it fits in
    /// `room` with the `used` bytes already there; returns the bytes it added. In front,
    /// so that the sender reads it before the SACK removes the TSN from its buffer and
    /// can tell which destination the marked packet went to (usrsctp queues its ECNE as
    /// a control chunk when the CE arrives, ahead of the SACK).
    pub(super) fn bundle_ecne(&self, chunks: &mut Vec<Chunk>, used: usize, room: usize) -> usize {
        let Some(tsn) = self.ecn.echo else { return 0 };
        if used + ECN_CHUNK_LEN > room
            || !chunks
                .iter()
                .any(|c| matches!(c, Chunk::Sack(_) | Chunk::NrSack(_)))
        {
            return 0;
        }
        chunks.insert(0, Chunk::Ecne { lowest_tsn: tsn });
        ECN_CHUNK_LEN
    }

    /// An ECNE came: cut the window of the destination the marked TSN went to (the
    /// current data destination if the TSN has left the buffer), once per window, and
    /// answer with a CWR (`SctpEcn::on_ecne`). Nothing is retransmitted.
    pub(super) fn on_ecne(&mut self, tsn: u32) {
        if !matches!(self.state, State::Established | State::ShutdownSent) {
            return;
        }
        let Some(out) = self.out.as_mut() else { return };
        let (dest, highest) = out.ecn_lookup(tsn);
        let dest = dest.unwrap_or(self.paths.data_dest);
        let Some(rto) = self.paths.paths.get(dest).map(|p| p.rto.current()) else {
            return;
        };
        let answer = self.ecn.on_ecne(self.now, tsn, dest, highest, rto);
        if answer.cut {
            out.ecn_cut(self.now, &mut self.paths, dest);
            if self.cfg.window.contains(self.now) {
                self.ecn.reductions += 1;
            }
        }
        if let Some(t) = answer.cwr {
            self.send_ctrl(self.peer_tag, Chunk::Cwr { lowest_tsn: t }, self.pkt_src);
        }
    }
}
