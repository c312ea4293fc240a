//! New data: the sending rule with Max.Burst (RFC 4960/9260 6.1, ns-2 `SendMuch`) and
//! the idle-cwnd decay (RFC 9260 7.2.1).

use super::*;
use crate::sctp::path_bbr;

impl Outbound {
    /// RFC 9260 7.2.1: "When the endpoint does not transmit data on a given transport
    /// address, the cwnd of the transport address SHOULD be adjusted to max(cwnd/2,
    /// 4*MTU) per RTO." Applied when data is next about to go to destination `i`, one
    /// halving per whole RTO since its last DATA (or the last halving), so an alternate
    /// that sat idle after a failover does not reuse a stale window.
    pub(super) fn decay_idle_cwnd(&mut self, now: SimTime, ps: &mut PathSet, i: usize) {
        if !self.k.idle_cwnd_decay {
            return;
        }
        let p = &mut ps.paths[i];
        let Some(base) = p.idle_base else { return };
        let rto = p.rto.current();
        if rto.as_nanos() == 0 {
            return;
        }
        let periods = now.saturating_since(base).as_nanos() / rto.as_nanos();
        if periods == 0 {
            return;
        }
        let floor = 4.0 * p.mtu;
        for _ in 0..periods.min(64) {
            if p.cwnd <= floor {
                break;
            }
            p.cwnd = (p.cwnd / 2.0).max(floor);
        }
        p.idle_base = Some(base + rto.saturating_mul(periods));
    }

    /// Sends new data to the current data destination while its cwnd and the peer's
    /// window allow (RFC 4960 6.1 A-B: the sender may exceed cwnd by up to one MTU less
    /// a byte when cwnd is not yet full).
    pub fn send_new(&mut self, now: SimTime, ps: &mut PathSet) {
        if self.cmt.is_some() {
            return self.cmt_send_new(now, ps);
        }
        if self.any_marked() || ps.is_empty() {
            return;
        }
        let d = ps.data_dest;
        self.decay_idle_cwnd(now, ps, d);
        let burst_limit = self.burst_limit(ps, d);
        self.apply_max_burst = false;
        self.send_new_to(now, ps, d, burst_limit, 0);
    }

    /// The Max.Burst limit in packets for a send opportunity on destination `d` (None:
    /// no limit); the guide's rule clamps cwnd instead.
    pub(super) fn burst_limit(&mut self, ps: &mut PathSet, d: usize) -> Option<u32> {
        // Max.Burst 0 turns burst limiting off, as RFC 6458 sec. 8.1.24 (SCTP_MAX_BURST)
        // defines it and Linux and usrsctp do; every rule would otherwise stall at 0.
        let rule = if self.k.max_burst == 0 {
            MaxBurstRule::Off
        } else {
            self.k.max_burst_rule
        };
        match rule {
            MaxBurstRule::Guide => {
                // Implementer's guide v7: clamp cwnd to outstanding + Max.Burst * MTU.
                let p = &mut ps.paths[d];
                let cap = p.outstanding + f64::from(self.k.max_burst) * p.mtu;
                if cap < p.cwnd {
                    p.cwnd = cap;
                }
                None
            }
            MaxBurstRule::Packets => Some(self.k.max_burst),
            MaxBurstRule::Ns2 if self.apply_max_burst => Some(self.k.max_burst),
            _ => None,
        }
    }

    /// Sends packets of new data to destination `d` while its cwnd, the peer's window
    /// and the burst limit allow, `packets` already counted against the limit. Returns
    /// the packets counted in all.
    pub(super) fn send_new_to(
        &mut self,
        now: SimTime,
        ps: &mut PathSet,
        d: usize,
        burst_limit: Option<u32>,
        mut packets: u32,
    ) -> u32 {
        while ps.paths[d].outstanding < ps.paths[d].cwnd
            && burst_limit.is_none_or(|b| packets < b)
            && self.within_split_share(now, ps, d)
        {
            // A paced destination waits for its gap (`path_bbr`); the association
            // wakes the sender then.
            if let Some(t) = path_bbr::wait_until(&ps.paths[d], now) {
                self.pace_wake = Some(self.pace_wake.map_or(t, |w| w.min(t)));
                break;
            }
            let mut used = 0usize;
            let mut chunks = self.chunk_list();
            self.app.packet_start();
            loop {
                let room_left = self.room - used;
                if room_left < self.hdr + 4 {
                    break;
                }
                let max_here = (((room_left - self.hdr) / 4) * 4) as u64;
                let Some(p) = self.app.peek_payload(self.max_payload) else {
                    break;
                };
                // Bundle only whole chunks: a message is fragmented at max_payload, never
                // at whatever room a packet has left.
                if p > max_here {
                    break;
                }
                // With the peer's window closed, one chunk may still go as a probe when
                // nothing is outstanding to the receiver, on any destination (RFC 9260
                // 6.1 A; ns-2 `SendMuch` tests `TotalOutstanding()`): a destination of
                // its own with nothing in flight must not open a second probe.
                let rwnd_ok = (p as f64 + self.hdr as f64) <= self.peer_rwnd;
                let probe =
                    !rwnd_ok && chunks.is_empty() && ps.paths.iter().all(|q| q.outstanding == 0.0);
                if !rwnd_ok && !probe {
                    break;
                }
                // ns-2.35 `SendMuch` (`initialSwnd_`): no new chunk beyond the send buffer.
                if !self.send_buffer_fits(now, p + self.hdr as u64) {
                    break;
                }
                let Some((stream, ssn, flags, payload)) = self.app.next_chunk(self.max_payload)
                else {
                    break;
                };
                let tsn = self.next_tsn;
                self.next_tsn = self.next_tsn.wrapping_add(1);
                let len = self.hdr + payload as usize;
                used += len.div_ceil(4) * 4;
                let s = Sent {
                    tsn,
                    stream,
                    ssn,
                    flags,
                    payload,
                    chunk_len: len as u32,
                    txs: 1,
                    gap_acked: false,
                    missing: 0,
                    mark: None,
                    fast_rtxed: false,
                    rtx_at: tsn,
                    pba_counted: false,
                    rec: 0,
                    nr_freed: false,
                    dest: d,
                    sent_at: now,
                    ids: self.app.last_ids(),
                };
                let c = Self::data_chunk(&s);
                self.counts.add(&s);
                if let Some(c) = self.cmt.as_deref_mut() {
                    c.list_push(d, tsn);
                }
                self.sent.push_back(s);
                let path = &mut ps.paths[d];
                path.outstanding += len as f64;
                self.peer_rwnd = (self.peer_rwnd - len as f64).max(0.0);
                // With `timestamp` every transmission is timed by its echo instead
                // (sctp/timestamp.rs; ns-2.35's Timestamp agent sets no `eRtoPending`).
                if path.rtt_pending.is_none() && !self.k.timestamp {
                    path.rtt_pending = Some((tsn, now));
                }
                self.record(now, &c, SendKind::New, ps.paths[d].addr);
                chunks.push(c);
                // A packet started below cwnd is filled up to the MTU (RFC 4960 6.1 B allows
                // overshooting cwnd by less than one MTU; ns-2 `GenMultipleDataChunks`).
                if probe || self.room - used < self.hdr + 4 {
                    break;
                }
            }
            if chunks.is_empty() {
                self.recycle_chunks(chunks);
                break;
            }
            self.queue_packet(now, chunks, ps, d);
            // A first transmission starts a new heartbeat period (RFC 9260 8.3 "idle";
            // ns-2 `SendMuch` sets `dIdleSince`).
            ps.paths[d].hb_base = now;
            packets += 1;
        }
        packets
    }
}
