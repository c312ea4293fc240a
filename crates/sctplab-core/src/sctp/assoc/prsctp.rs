//! The association's side of `stream_traffic` and PR-SCTP: negotiating
//! Forward-TSN-Supported in INIT and INIT ACK (RFC 3758 sec. 3.3), sending the FORWARD
//! TSN the sending half asks for, receiving one, and waking the sources.

use super::*;
use crate::net::wire::sctp_forward_tsn::PARAM_FORWARD_TSN_SUPPORTED;
use crate::net::wire::{ForwardTsnChunk, InitAckChunk};

impl Association {
    /// Whether this end speaks PR-SCTP: a flow whose `stream_traffic` gives some stream
    /// a policy other than `"none"` (only then do INIT and INIT ACK carry the
    /// parameter, so every other flow's handshake keeps its bytes).
    pub(super) fn pr_local(&self) -> bool {
        self.cfg.stream_traffic.iter().any(|s| !s.pr.is_reliable())
    }

    /// An INIT's Forward-TSN-Supported that this end does not implement goes back as
    /// an Unrecognized Parameter (RFC 3758 sec. 3.3.1; its type bits 11 say so, RFC
    /// 9260 3.2.1), in front of the other reported parameters as it came first.
    pub(super) fn reported_params(&self, init: &InitChunk) -> Vec<Vec<u8>> {
        let mut reported = Vec::new();
        if init.forward_tsn && !self.pr_local() {
            reported.push(forward_tsn_tlv());
        }
        reported.extend(init.unrecognized.iter().cloned());
        reported
    }

    /// The INIT ACK's parameters the client reports back, with a Forward-TSN-Supported
    /// it does not implement.
    pub(super) fn init_ack_unrecognized(&self, ack: &InitAckChunk) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        if ack.forward_tsn && !self.pr_local() {
            out.push(forward_tsn_tlv());
        }
        out.extend(ack.unrecognized.iter().cloned());
        out
    }

    /// The client's sources, when the flow has `stream_traffic`: PR-SCTP is on when
    /// both ends announced it (RFC 3758 sec. 3.3: otherwise reliable delivery).
    pub(super) fn stream_sources(
        &self,
        streams: u16,
        peer_forward_tsn: bool,
    ) -> Option<Box<crate::sctp::streams::StreamSources>> {
        if self.cfg.stream_traffic.is_empty() {
            return None;
        }
        let mut s = crate::sctp::streams::StreamSources::new(
            &self.cfg.stream_traffic,
            streams,
            self.cfg.receive_buffer,
            self.cfg.unordered,
        );
        s.pr_on = peer_forward_tsn && self.pr_local();
        s.set_scheduler(self.cfg.knobs.scheduler);
        Some(Box::new(s))
    }

    /// Lets the sources submit what has fallen due (before new data is sent).
    pub(super) fn refill_sources(&mut self) {
        let now = self.now;
        let Some(out) = self.out.as_mut() else { return };
        if out.app.streams.is_none() {
            return;
        }
        out.pr_expire(now);
        if let Some(s) = out.app.streams.as_mut() {
            s.refill(now);
        }
    }

    /// When the sources next need the association (a message falls due).
    pub(super) fn sources_wakeup(&self) -> Option<SimTime> {
        if self.state != State::Established {
            return None;
        }
        self.out
            .as_ref()
            .and_then(|o| o.app.streams.as_ref())
            .and_then(|s| s.next_wakeup())
    }

    /// Queues a FORWARD TSN (or, with I-DATA, I-FORWARD-TSN) the sending half asked
    /// for, to the destination of new data.
    pub(super) fn send_forward_tsn(&mut self, f: Option<Chunk>) {
        if let Some(f) = f {
            let dst = self.default_dest();
            self.send_ctrl(self.peer_tag, f, dst);
        }
    }

    /// A FORWARD TSN from the peer: handled if this end announced PR-SCTP, else it is
    /// a chunk this end does not know (type bits 11: skipped and reported, RFC 9260
    /// 3.2).
    pub(super) fn on_forward_tsn(&mut self, f: &ForwardTsnChunk) {
        if !self.pr_local() {
            self.stats.unknown_chunks += 1;
            let mut bytes = vec![0u8; Chunk::ForwardTsn(f.clone()).padded_len()];
            let len = Chunk::ForwardTsn(f.clone()).emit(&mut bytes);
            bytes.truncate(len.min(f.len()));
            let dst = self.pkt_src;
            self.send_error(
                vec![ErrorCause {
                    code: cause::UNRECOGNIZED_CHUNK_TYPE,
                    info: bytes,
                }],
                dst,
            );
            return;
        }
        let now = self.now;
        if let Some(inb) = self.inb.as_mut() {
            inb.on_forward_tsn(now, f);
        }
    }
}

fn forward_tsn_tlv() -> Vec<u8> {
    let mut t = PARAM_FORWARD_TSN_SUPPORTED.to_be_bytes().to_vec();
    t.extend_from_slice(&4u16.to_be_bytes());
    t
}
