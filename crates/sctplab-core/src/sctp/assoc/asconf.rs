//! The association's side of ASCONF (RFC 5061, `sctp/asconf`): its Supported
//! Extensions entries, the negotiation (with AUTH, which RFC 5061 4.1.1 requires), the
//! scripted address changes of `[[faults]]`, the ASCONF and its timer, and what the
//! peer's requests do to the paths: a new destination gets its path state and is
//! probed (RFC 9260 5.4), a deleted one stops carrying anything and its outstanding
//! data is retransmitted to an alternate, Set Primary moves the primary. Off (no
//! `asconf`) for a flow that does not script address changes, which then sends
//! exactly the bytes it did before.

use super::*;
use crate::net::wire::{AsconfAckChunk, AsconfChunk, InitExtensions};
use crate::sctp::asconf::{AckOutcome, AddrChange, Asconf, AsconfStats, Effect};

/// The chunk types Supported Extensions lists for ASCONF (RFC 5061 4.2.7).
const ASCONF_TYPES: [u8; 2] = [0xC1, 0x80];

/// An association's ASCONF state (kept in `extensions::Ext`).
#[derive(Debug, Default)]
pub(crate) struct AsconfExt {
    /// This end announces ASCONF (the flow scripts an address change).
    pub wanted: bool,
    /// Negotiated: both ends listed ASCONF and ASCONF-ACK, and AUTH is on.
    pub state: Option<Asconf>,
    /// Changes scripted before the association was up.
    pending: Vec<AddrChange>,
    /// The destination the outstanding ASCONF last went to.
    dest: usize,
    /// ASCONF and ASCONF-ACK chunks received while ASCONF is not negotiated.
    pub unexpected: u64,
}

impl Association {
    /// The flow scripts address changes: both ends announce ASCONF
    /// (`[[faults]]` `add_address` / `delete_address`, world/build.rs).
    pub fn enable_asconf(&mut self) {
        self.ext.get_or_insert_with(Default::default).asconf.wanted = true;
    }

    fn asconf_wanted(&self) -> bool {
        self.ext.as_ref().is_some_and(|e| e.asconf.wanted)
    }

    /// Supported Extensions gains ASCONF and ASCONF-ACK (called by `local_ext`).
    pub(super) fn asconf_supported(&self, ext: &mut InitExtensions) {
        if self.asconf_wanted() {
            ext.supported.extend(ASCONF_TYPES);
        }
    }

    /// Both ends' parameters known (`ext_established`): ASCONF when both list it and
    /// AUTH was negotiated (RFC 5061 4.1.1: ASCONF and ASCONF-ACK travel authenticated).
    pub(super) fn asconf_established(
        &mut self,
        peer: &InitExtensions,
        local_tsn: u32,
        peer_tsn: u32,
    ) {
        let Some(e) = self.ext.as_mut() else { return };
        let ok = e.asconf.wanted
            && e.auth.is_some()
            && ASCONF_TYPES.iter().all(|t| peer.supported.contains(t));
        e.asconf.state = ok.then(|| Asconf::new(local_tsn, peer_tsn));
        let pending = std::mem::take(&mut e.asconf.pending);
        for c in pending {
            self.change_address(self.now, c);
        }
    }

    /// A scripted `add_address` / `delete_address` / set primary (`[[faults]]`).
    pub fn change_address(&mut self, now: SimTime, c: AddrChange) {
        self.enter(now);
        let Some(e) = self.ext.as_mut().filter(|e| e.asconf.wanted) else {
            return;
        };
        match e.asconf.state.as_mut() {
            Some(a) => a.queue(c),
            None if self.state != State::Established => e.asconf.pending.push(c),
            None => return,
        }
        self.asconf_poll();
    }

    /// Sends the next ASCONF if none is outstanding (RFC 5061 5.1.1 C1).
    pub(super) fn asconf_poll(&mut self) {
        if self.state != State::Established {
            return;
        }
        // The chunk's Address Parameter: an address of ours that no queued request
        // deletes (RFC 5061 4.1.1: one of the sender's addresses in the association);
        // chosen before the chunk is built, so that a retransmission carries the same.
        let Some(a) = self.ext.as_ref().and_then(|e| e.asconf.state.as_ref()) else {
            return;
        };
        let local = self
            .cfg
            .local_addrs
            .iter()
            .copied()
            .find(|x| !a.queued().any(|c| c == AddrChange::Delete(*x)))
            .or_else(|| self.cfg.local_addrs.first().copied())
            .unwrap_or([0; 4]);
        let Some(chunk) = self
            .ext
            .as_mut()
            .and_then(|e| e.asconf.state.as_mut())
            .and_then(|a| a.poll(local))
        else {
            return;
        };
        let dst = self.paths.data_dest;
        self.send_asconf(chunk, dst);
    }

    fn send_asconf(&mut self, chunk: AsconfChunk, dest: usize) {
        let Some(p) = self.paths.paths.get(dest) else {
            return;
        };
        // RFC 5061 5.1 B5: the timer runs on the destination's RTO, which each expiry
        // backs off (B3).
        let rto = p.rto.current();
        let addr = p.addr;
        if let Some(e) = self.ext.as_mut() {
            e.asconf.dest = dest;
        }
        self.send_ctrl(self.peer_tag, Chunk::Asconf(chunk), addr);
        self.timers.set(Timer::Asconf, self.now + rto);
    }

    /// The ASCONF timer expired (RFC 5061 5.1 B1-B5): an error on the destination and
    /// the association as for T3-rtx, its RTO backed off, the same ASCONF again to an
    /// alternate destination if there is one.
    pub(super) fn on_asconf_timer(&mut self) {
        self.timers.stop(Timer::Asconf);
        if self.state != State::Established {
            return;
        }
        let Some((chunk, _expiries)) = self
            .ext
            .as_mut()
            .and_then(|e| e.asconf.state.as_mut())
            .and_then(Asconf::on_timer)
        else {
            return;
        };
        let last = self.ext.as_ref().map_or(0, |e| e.asconf.dest);
        if last < self.paths.len() {
            self.paths.paths[last].rto.back_off();
            if !self.path_error(last, true) {
                return;
            }
        }
        let dest = self.paths.rtx_dest(last, true, false);
        // B3: the RTO is backed off on the destination itself, so the timer uses it as
        // it now is.
        self.send_asconf(chunk, dest);
    }

    /// An ASCONF from the peer (already past AUTH's check in `handle_packet`).
    pub(super) fn on_asconf(&mut self, chunk: &AsconfChunk) {
        let peer: Vec<[u8; 4]> = self
            .paths
            .paths
            .iter()
            .filter(|p| !p.deleted)
            .map(|p| p.addr)
            .collect();
        let src = self.pkt_src;
        let Some(a) = self.ext.as_mut().and_then(|e| e.asconf.state.as_mut()) else {
            if let Some(e) = self.ext.as_mut() {
                e.asconf.unexpected += 1;
            } else {
                self.stats.unknown_chunks += 1;
            }
            return;
        };
        let (ack, effects) = a.on_asconf(chunk, src, &peer);
        for e in effects {
            self.apply_effect(e);
        }
        if let Some(ack) = ack {
            // RFC 5061 5.2 E6: the ASCONF-ACK goes to the source of the ASCONF.
            self.send_ctrl(self.peer_tag, Chunk::AsconfAck(ack), src);
        }
        self.kick();
    }

    fn apply_effect(&mut self, e: Effect) {
        match e {
            Effect::Add(addr) => self.add_peer_path(addr),
            Effect::Delete(addr) => self.delete_peer_path(addr),
            Effect::SetPrimary(addr) => self.set_primary(self.now, addr),
        }
    }

    /// A new destination: its own congestion state and RTO, unconfirmed until a
    /// HEARTBEAT-ACK comes back from it (RFC 9260 5.4; RFC 5061 5.2 asks the same of
    /// an added address). Its ssthresh starts "arbitrarily high" (RFC 9260 7.2.1).
    fn add_peer_path(&mut self, addr: [u8; 4]) {
        let i = match self.paths.index_of(addr) {
            // Deleted earlier, now back.
            Some(i) => {
                let p = &mut self.paths.paths[i];
                p.deleted = false;
                p.error_count = 0;
                p.state = PathState::Active;
                i
            }
            None => {
                let reserved = crate::sctp::timestamp::reserved(&self.cfg.knobs);
                let mtu = self.cfg.pmtu.saturating_sub(32 + reserved) as u64;
                let cwnd = initial_cwnd_bytes(&self.cfg.knobs, mtu);
                let ssthresh = self.cfg.initial_ssthresh.unwrap_or(u64::from(u32::MAX)) as f64;
                let rto = Rto::new(self.cfg.rto_initial, self.cfg.rto_min, self.cfg.rto_max);
                let mut p = Path::new(addr, mtu, cwnd, ssthresh, rto);
                p.cc = super::super::path_cc::for_knobs(&self.cfg.knobs);
                self.paths.paths.push(p);
                self.paths.scratch.push(Default::default());
                self.paths.len() - 1
            }
        };
        self.paths.paths[i].confirmed = false;
        self.paths.paths[i].hb_base = self.now;
        if self.state == State::Established {
            self.send_heartbeat(i);
        }
    }

    /// A deleted destination: inactive for good (the index stays, as chunks in flight
    /// name their destination by it), no more HEARTBEATs, its outstanding data marked
    /// and retransmitted to an alternate as after a T3-rtx expiry (RFC 5061 5.2: data
    /// in flight to a deleted address goes to another one), and new data elsewhere.
    fn delete_peer_path(&mut self, addr: [u8; 4]) {
        let Some(i) = self.paths.index_of(addr) else {
            return;
        };
        let p = &mut self.paths.paths[i];
        p.deleted = true;
        p.state = PathState::Inactive;
        p.hb_pending = None;
        if self.paths.primary == i {
            if let Some(j) = self.paths.next_active(i) {
                self.paths.primary = j;
            }
        }
        let k = &self.cfg.knobs;
        self.paths.reselect(k.return_to_primary, k.ns2_paths, None);
        self.stats.failovers = self.paths.failovers;
        if let Some(out) = self.out.as_mut() {
            if out.has_chunks_on(i) {
                out.on_t3(self.now, i, &mut self.paths);
            }
        }
        self.paths.paths[i].t3 = None;
    }

    /// An ASCONF-ACK (already past AUTH's check).
    pub(super) fn on_asconf_ack(&mut self, ack: &AsconfAckChunk) {
        let Some(a) = self.ext.as_mut().and_then(|e| e.asconf.state.as_mut()) else {
            if let Some(e) = self.ext.as_mut() {
                e.asconf.unexpected += 1;
            } else {
                self.stats.unknown_chunks += 1;
            }
            return;
        };
        match a.on_ack(ack) {
            AckOutcome::Ignored => {}
            // RFC 5061 5.3 F0: the association is aborted (this model's ABORT carries
            // no cause, so the "Illegal ASCONF-ACK" cause of 4.3 is not sent).
            AckOutcome::Illegal => self.abort(),
            AckOutcome::Answered(results) => {
                self.timers.stop(Timer::Asconf);
                for (c, ok) in results {
                    match (c, ok) {
                        (AddrChange::Add(x), true) if !self.cfg.local_addrs.contains(&x) => {
                            self.cfg.local_addrs.push(x);
                        }
                        (AddrChange::Delete(x), true) => self.cfg.local_addrs.retain(|a| *a != x),
                        _ => {}
                    }
                }
                self.asconf_poll();
            }
        }
    }

    /// ASCONF figures, if this end announced it.
    pub fn asconf_stats(&self) -> Option<(bool, AsconfStats, u64)> {
        let e = self.ext.as_ref().filter(|e| e.asconf.wanted)?;
        Some((
            e.asconf.state.is_some(),
            e.asconf
                .state
                .as_ref()
                .map(|a| a.stats.clone())
                .unwrap_or_default(),
            e.asconf.unexpected,
        ))
    }

    /// This end's addresses in the association now.
    pub fn local_addrs(&self) -> &[[u8; 4]] {
        &self.cfg.local_addrs
    }
}

#[cfg(test)]
mod tests;
