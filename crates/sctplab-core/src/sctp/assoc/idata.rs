//! The association's side of I-DATA (RFC 8260 sec. 2): I-DATA in the Supported
//! Extensions parameter of INIT and INIT ACK when the flow has `interleaving`, the
//! negotiation (sec. 2.2.1: used only when both ends list it; otherwise the
//! association runs on DATA, and summary.json's `interleaving_negotiated` says so),
//! packing I-DATA chunks into DATA packets, and receiving I-DATA and I-FORWARD-TSN.

use super::*;
use crate::net::wire::sctp_idata::{I_DATA, IDataChunk, IForwardTsnChunk};
use crate::net::wire::{ForwardTsnChunk, InitExtensions};

impl Association {
    /// Supported Extensions lists I-DATA when the flow asks for interleaving.
    pub(super) fn idata_supported(&self, list: &mut Vec<u8>) {
        if self.cfg.knobs.interleaving {
            list.push(I_DATA);
        }
    }

    /// Both ends' parameters known (client on the INIT ACK, server on the COOKIE
    /// ECHO): I-DATA when both listed it, and the sending half switches to it.
    pub(super) fn idata_negotiated(&mut self, peer: &InitExtensions) -> bool {
        let on = self.cfg.knobs.interleaving && peer.supported.contains(&I_DATA);
        if let (true, Some(out)) = (on, self.out.as_mut()) {
            out.set_idata();
        }
        on
    }

    /// I-DATA is in use on this association.
    pub fn idata_on(&self) -> bool {
        self.ext.as_ref().is_some_and(|e| e.idata)
    }

    /// I-DATA and I-FORWARD-TSN from the peer.
    pub(super) fn on_interleaving_chunk(&mut self, c: &Chunk) {
        match c {
            Chunk::IData(d) => self.on_idata(d),
            Chunk::IForwardTsn(f) => self.on_i_forward_tsn(f),
            _ => {}
        }
    }

    /// An I-DATA chunk: handled when negotiated, else a chunk this end does not
    /// speak (counted; sec. 2.2.1 forbids it without negotiation).
    fn on_idata(&mut self, d: &IDataChunk) {
        if !self.idata_on() {
            self.stats.unknown_chunks += 1;
            return;
        }
        let now = self.now;
        if let Some(inb) = self.inb.as_mut() {
            inb.on_idata(now, d);
            if usize::from(d.stream) >= inb.streams.len() {
                self.report_invalid_stream(d.stream);
            }
        }
    }

    /// An I-FORWARD-TSN (sec. 2.3.1): the cumulative TSN moves as for FORWARD TSN,
    /// and the listed messages are skipped by (stream, MID, U).
    fn on_i_forward_tsn(&mut self, f: &IForwardTsnChunk) {
        if !self.idata_on() {
            self.stats.unknown_chunks += 1;
            return;
        }
        let now = self.now;
        if let Some(inb) = self.inb.as_mut() {
            let tsn_part = ForwardTsnChunk {
                new_cum_tsn: f.new_cum_tsn,
                streams: Vec::new(),
            };
            inb.on_forward_tsn(now, &tsn_part);
            inb.on_idata_skip(now, &f.skipped);
        }
    }

    /// Moves a DATA packet's chunks into `out` as I-DATA chunks; returns their padded
    /// length.
    pub(super) fn idata_chunks(&self, chunks: &mut Vec<DataChunk>, out: &mut Vec<Chunk>) -> usize {
        let Some(o) = self.out.as_ref() else {
            return 0;
        };
        let mut len = 0;
        for d in chunks.drain(..) {
            let c = Chunk::IData(o.to_idata(&d));
            len += c.padded_len();
            out.push(c);
        }
        len
    }
}

#[cfg(test)]
#[path = "idata_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "idata_pr_tests.rs"]
mod pr_tests;
