//! `poll_transmit`'s packet: a SACK, control chunks or a DATA packet, built in the
//! packet slot's own SCTP header.

use super::*;

impl Association {
    /// Whether the receiver side has a SACK to send now.
    #[inline]
    pub(super) fn sack_due(&self) -> bool {
        self.inb.as_ref().is_some_and(Inbound::wants_sack)
            && matches!(self.state, State::Established | State::ShutdownAckSent)
    }

    /// `poll_transmit` once there is something to send: a SACK, control chunks or a
    /// DATA packet.
    pub(super) fn transmit(&mut self, now: SimTime, pkt: &mut Packet) -> bool {
        let sack = if self.sack_due() {
            // NR-SACK (sctp/inbound/nr_sack.rs) when the flow has `nr_sack`.
            self.inb.as_mut().map(|i| {
                if i.nr_sack_on() {
                    Chunk::NrSack(i.take_nr_sack())
                } else {
                    Chunk::Sack(i.take_sack())
                }
            })
        } else {
            None
        };
        // With `timestamp` the TIMESTAMP chunk's room is kept in every packet (ns-2.35
        // `ControlChunkReservation`); it goes first in SACK and DATA packets.
        let ts_len = crate::sctp::timestamp::reserved(&self.cfg.knobs);
        let room = self.cfg.pmtu.saturating_sub(32 + ts_len);
        // The header is built in place, in the packet slot's own SCTP header (whose chunk
        // list keeps its allocation): moving it out and back went through a stack copy
        // written field by field and read 16 bytes at a time, a store-forwarding stall
        // that perf put at a third of this function's samples.
        if !matches!(pkt.transport, TransportRepr::Sctp(_)) {
            pkt.transport = TransportRepr::Sctp(SctpRepr {
                src_port: 0,
                dst_port: 0,
                vtag: 0,
                chunks: Vec::new(),
            });
        }
        let TransportRepr::Sctp(repr) = &mut pkt.transport else {
            unreachable!("set to SCTP just above")
        };
        repr.chunks.clear();
        let (src, dst) = match self.role {
            Role::Client => (self.cfg.ports.0, self.cfg.ports.1),
            Role::Server => (self.cfg.ports.1, self.cfg.ports.0),
        };
        repr.src_port = src;
        repr.dst_port = dst;
        let mut kind = PacketKind::Control;
        let mut data_num = 0;
        // The chunks' padded lengths, added up as they are packed (`finalize_with_len`).
        let chunks_len;
        // A SACK goes behind the control chunks already waiting; alone (the usual case:
        // one per data packet received) it goes straight into the packet.
        let first = match sack {
            Some(sack) => {
                let c = (self.peer_tag, sack, self.sack_dest);
                if self.ctrl.is_empty() && self.stream_errors.is_empty() {
                    Some(c)
                } else {
                    self.ctrl.push_back(c);
                    // RFC 9260 6.5: an ERROR bundled with the SACK follows it.
                    self.flush_stream_errors();
                    self.ctrl.pop_front()
                }
            }
            None => self.ctrl.pop_front(),
        };
        if let Some((vtag, first, to)) = first {
            repr.vtag = vtag;
            pkt.ip.dst = to;
            let mut used = first.padded_len();
            let only_sack = matches!(first, Chunk::Sack(_) | Chunk::NrSack(_));
            repr.chunks.push(first);
            let mut all_sack = only_sack;
            while let Some((v, c, d)) = self.ctrl.front() {
                if *v != vtag || *d != to || used + c.padded_len() > room {
                    break;
                }
                used += c.padded_len();
                all_sack &= matches!(c, Chunk::Sack(_) | Chunk::NrSack(_));
                let (_, c, _) = self.ctrl.pop_front().expect("front exists");
                repr.chunks.push(c);
            }
            if all_sack {
                kind = PacketKind::Ack;
            }
            if let Some(ts) = self.ts.as_mut() {
                let has_sack = repr
                    .chunks
                    .iter()
                    .any(|c| matches!(c, Chunk::Sack(_) | Chunk::NrSack(_)));
                if has_sack {
                    repr.chunks
                        .insert(0, Chunk::Timestamp(ts.chunk(now, false)));
                    used += ts_len;
                }
            }
            if self.ecn.echo.is_some() {
                used += self.bundle_ecne(&mut repr.chunks, used, room);
            }
            if self.ext.is_some() {
                used += self.auth_sign(&mut repr.chunks);
            }
            chunks_len = used;
        } else if let Some(tx) = self.out.as_mut().and_then(|o| o.tx.pop_front()) {
            repr.vtag = self.peer_tag;
            if let Some(p) = self.paths.paths.get(tx.dest) {
                pkt.ip.dst = p.addr;
            }
            if let (Some(first), Some(out)) = (tx.chunks.first(), self.out.as_ref()) {
                data_num = out.packet_number(first.tsn);
            }
            let mut chunks = tx.chunks;
            let idata = self.out.as_ref().is_some_and(Outbound::idata);
            if let Some(ts) = self.ts.as_mut() {
                repr.chunks.push(Chunk::Timestamp(ts.chunk(now, true)));
            }
            chunks_len = ts_len
                + if idata {
                    self.idata_chunks(&mut chunks, &mut repr.chunks)
                } else {
                    let len = chunks
                        .iter()
                        .map(|d| DataChunk::len_for(d.payload_len as usize).next_multiple_of(4))
                        .sum();
                    repr.chunks.extend(chunks.drain(..).map(Chunk::Data));
                    len
                };
            if let Some(out) = self.out.as_mut() {
                out.recycle_chunks(chunks);
            }
            kind = PacketKind::Data;
            if self.ecn.on {
                // RFC 9260 appendix A: DATA packets of an ECN association are ECT(0).
                pkt.ip.ecn = crate::net::aqm::ECT0;
            }
        } else {
            return false;
        }
        pkt.payload_len = 0;
        pkt.kind = kind;
        pkt.data_num = data_num;
        pkt.ack_num = match self.inb.as_ref() {
            Some(inb) if kind == PacketKind::Ack => inb
                .cum_tsn
                .wrapping_sub(self.peer_initial_tsn)
                .wrapping_add(1),
            _ => 0,
        };
        pkt.finalize_with_len(SCTP_HEADER_LEN + chunks_len);
        if kind == PacketKind::Ack && self.cfg.window.contains(now) {
            self.stats.ack_packets += 1;
            self.stats.ack_bytes += u64::from(pkt.size);
        }
        if kind == PacketKind::Control && self.cfg.window.contains(now) {
            self.stats.control_packets += 1;
        }
        true
    }
}
