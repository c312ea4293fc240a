//! Dynamic address reconfiguration (RFC 5061): the ASCONF sender's Sequence Numbers,
//! one outstanding ASCONF at a time with its retransmission count, the reading of an
//! ASCONF-ACK (which requests succeeded), and the receiver's side: the expected
//! Sequence Number, the cached ASCONF-ACK for a retransmitted ASCONF, and each request
//! decided in order against the peer's address list. The association
//! (`sctp/assoc/asconf.rs`) feeds it and applies what it decides to its paths.
//!
//! What is modelled and what is not (docs/models/sctp.md "Dynamic addresses"): IPv4
//! only; the wildcard address (0.0.0.0) is refused as unresolvable rather than read
//! as "the packet's source"; the Adaptation Layer Indication is not sent.

use crate::net::wire::{
    AsconfAckChunk, AsconfChunk, AsconfOp, AsconfParam, AsconfResponse, ErrorCause, asconf_cause,
    asconf_param, cause,
};
use crate::sctp::outbound::tsn_le;
use std::collections::VecDeque;

pub mod summary;
#[cfg(test)]
mod tests;

/// The most peer addresses one association keeps: an Add IP Address beyond it is
/// refused with "Operation Refused Due to Resource Shortage" (RFC 5061 5.3 F9; the
/// cause is 4.3.2), so a
/// hostile peer cannot grow the path set without bound.
pub const MAX_PEER_ADDRS: usize = 16;

/// A scripted change of this end's addresses (`[[faults]]`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AddrChange {
    Add([u8; 4]),
    Delete([u8; 4]),
    /// Ask the peer to make this address of ours its primary destination.
    SetPrimary([u8; 4]),
}

impl AddrChange {
    fn op_addr(self) -> (AsconfOp, [u8; 4]) {
        match self {
            AddrChange::Add(a) => (AsconfOp::AddIp, a),
            AddrChange::Delete(a) => (AsconfOp::DeleteIp, a),
            AddrChange::SetPrimary(a) => (AsconfOp::SetPrimary, a),
        }
    }
}

/// What the receiver of an ASCONF does to its view of the peer's addresses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    Add([u8; 4]),
    Delete([u8; 4]),
    SetPrimary([u8; 4]),
}

/// Counters of summary.json (`summary.rs`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AsconfStats {
    /// ASCONF chunks sent (first copies) and resent by the timer.
    pub sent: u64,
    pub retransmissions: u64,
    /// This end's requests the peer performed, and refused.
    pub succeeded: u64,
    pub refused: u64,
    /// ASCONFs from the peer processed; answered again from the cache (a retransmitted
    /// ASCONF, RFC 5061 5.2 E2); discarded as stale or out of order (E5).
    pub received: u64,
    pub duplicates: u64,
    pub discarded: u64,
    /// Peer addresses added and deleted here, and primaries the peer set.
    pub addresses_added: u64,
    pub addresses_deleted: u64,
    pub primaries_set: u64,
}

/// The ASCONF in flight.
#[derive(Clone, Debug)]
struct Outstanding {
    chunk: AsconfChunk,
    retries: u32,
}

/// What an ASCONF-ACK told the sender.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AckOutcome {
    /// The outstanding ASCONF is answered: each request with whether it was performed.
    Answered(Vec<(AddrChange, bool)>),
    /// An old or duplicate ASCONF-ACK: nothing to do.
    Ignored,
    /// RFC 5061 5.3 F0: an ASCONF-ACK for a Sequence Number not yet used (none
    /// outstanding): the association is aborted with "Association Aborted due to
    /// Illegal ASCONF-ACK".
    Illegal,
}

#[derive(Clone, Debug)]
pub struct Asconf {
    /// Sequence Number of the next new ASCONF (RFC 5061 5.1 A2: starts at this end's
    /// Initial TSN).
    next_serial: u32,
    next_corr: u32,
    queue: VecDeque<AddrChange>,
    outstanding: Option<Outstanding>,
    /// The last Sequence Number processed from the peer (5.2: the peer's Initial TSN
    /// minus one at the start).
    peer_serial: u32,
    /// The ASCONF-ACK last sent, for a retransmitted ASCONF (5.2 E2, E4).
    cached_ack: Option<AsconfAckChunk>,
    pub stats: AsconfStats,
}

impl Asconf {
    pub fn new(local_initial_tsn: u32, peer_initial_tsn: u32) -> Self {
        Asconf {
            next_serial: local_initial_tsn,
            next_corr: 1,
            queue: VecDeque::new(),
            outstanding: None,
            peer_serial: peer_initial_tsn.wrapping_sub(1),
            cached_ack: None,
            stats: AsconfStats::default(),
        }
    }

    pub fn queue(&mut self, c: AddrChange) {
        self.queue.push_back(c);
    }

    /// The changes waiting for the next ASCONF.
    pub fn queued(&self) -> impl Iterator<Item = AddrChange> + '_ {
        self.queue.iter().copied()
    }

    pub fn is_outstanding(&self) -> bool {
        self.outstanding.is_some()
    }

    /// The next ASCONF to send, if none is outstanding and requests wait (RFC 5061
    /// 5.1.1 C1: one ASCONF in flight; the requests queued meanwhile go together in
    /// the next one, in the order they were made). `local_addr` is an address of ours
    /// that stays in the association (the chunk's Address Parameter).
    pub fn poll(&mut self, local_addr: [u8; 4]) -> Option<AsconfChunk> {
        if self.outstanding.is_some() || self.queue.is_empty() {
            return None;
        }
        let params = self
            .queue
            .drain(..)
            .map(|c| {
                let (op, addr) = c.op_addr();
                let corr_id = self.next_corr;
                self.next_corr = self.next_corr.wrapping_add(1);
                AsconfParam::Request { op, corr_id, addr }
            })
            .collect();
        let chunk = AsconfChunk {
            serial: self.next_serial,
            addr: local_addr,
            params,
        };
        self.next_serial = self.next_serial.wrapping_add(1);
        self.outstanding = Some(Outstanding {
            chunk: chunk.clone(),
            retries: 0,
        });
        self.stats.sent += 1;
        Some(chunk)
    }

    /// The timer expired (RFC 5061 5.1 B1-B5): the same ASCONF again, with the number
    /// of expiries so far (the association backs off and counts the errors).
    pub fn on_timer(&mut self) -> Option<(AsconfChunk, u32)> {
        let o = self.outstanding.as_mut()?;
        o.retries += 1;
        self.stats.retransmissions += 1;
        Some((o.chunk.clone(), o.retries))
    }

    /// An ASCONF-ACK (RFC 5061 5.1 A5-A8): responses are matched to requests by
    /// correlation id (A6). A7: a request without a response before the failed one
    /// succeeded, one after it failed unless a Success Indication names it; with
    /// several errors "after" counts from the first (this receiver reports every
    /// request from its first error on, as A7 needs for a success there to count, so an
    /// unreported one behind the first error was not performed; Linux reads it so too). A8: no response at all and no
    /// error: every request succeeded.
    pub fn on_ack(&mut self, ack: &AsconfAckChunk) -> AckOutcome {
        let Some(o) = &self.outstanding else {
            // F0: a Sequence Number at or beyond the next one to be used, with nothing
            // outstanding, is illegal; an older one is a duplicate.
            if tsn_le(self.next_serial, ack.serial) {
                return AckOutcome::Illegal;
            }
            return AckOutcome::Ignored;
        };
        if ack.serial != o.chunk.serial {
            if tsn_le(self.next_serial, ack.serial) {
                return AckOutcome::Illegal;
            }
            return AckOutcome::Ignored;
        }
        let mut failed_before = false;
        let mut results = Vec::new();
        for p in &o.chunk.params {
            let AsconfParam::Request { op, corr_id, addr } = *p else {
                continue;
            };
            let ok = match ack.responses.iter().find(|r| r.corr_id() == corr_id) {
                Some(AsconfResponse::Success { .. }) => true,
                Some(AsconfResponse::Error { .. }) => {
                    failed_before = true;
                    false
                }
                None => !failed_before,
            };
            let change = match op {
                AsconfOp::AddIp => AddrChange::Add(addr),
                AsconfOp::DeleteIp => AddrChange::Delete(addr),
                AsconfOp::SetPrimary => AddrChange::SetPrimary(addr),
            };
            if ok {
                self.stats.succeeded += 1;
            } else {
                self.stats.refused += 1;
            }
            results.push((change, ok));
        }
        self.outstanding = None;
        AckOutcome::Answered(results)
    }

    /// An ASCONF from the peer (RFC 5061 5.2), already past AUTH. `peer_addrs` are the
    /// peer's addresses in the association now, `src` the packet's source. Returns the
    /// ASCONF-ACK to send (None: discarded) and what to do to the paths.
    pub fn on_asconf(
        &mut self,
        chunk: &AsconfChunk,
        src: [u8; 4],
        peer_addrs: &[[u8; 4]],
    ) -> (Option<AsconfAckChunk>, Vec<Effect>) {
        let expected = self.peer_serial.wrapping_add(1);
        if chunk.serial != expected {
            // E2: an earlier one (a retransmission whose ASCONF-ACK was lost): the
            // cached ASCONF-ACK again if it answers it, else skipped. E5: anything
            // else is stale or forged.
            if tsn_le(chunk.serial, self.peer_serial) {
                if let Some(a) = self
                    .cached_ack
                    .as_ref()
                    .filter(|a| a.serial == chunk.serial)
                {
                    self.stats.duplicates += 1;
                    return (Some(a.clone()), Vec::new());
                }
            }
            self.stats.discarded += 1;
            return (None, Vec::new());
        }
        self.peer_serial = expected;
        self.stats.received += 1;
        let mut addrs = peer_addrs.to_vec();
        let mut responses = Vec::new();
        let mut effects = Vec::new();
        let mut errored = false;
        let mut shortage = false;
        // V1: in order.
        for p in &chunk.params {
            // RFC 5061 5.3 F11: once an Add IP Address is refused for a resource shortage,
            // every later Add or Delete of the same ASCONF fails too. They are left
            // undecided and unreported, which the sender reads as failed (5.1 A7: after
            // an error only a Success Indication means success). A later Set Primary
            // is still decided (the rule names adds and deletes only).
            let add_or_delete = matches!(
                p,
                AsconfParam::Request {
                    op: AsconfOp::AddIp | AsconfOp::DeleteIp,
                    ..
                }
            );
            if shortage && add_or_delete {
                continue;
            }
            let corr_id = p.corr_id();
            let (verdict, short) = decide(p, src, &mut addrs);
            shortage |= short;
            match verdict {
                Ok(e) => {
                    effects.extend(e);
                    // V2: a success may go unreported while nothing has failed; after
                    // a failure each success is reported, as the sender counts an
                    // unreported request after an error as failed (5.1 A7).
                    if errored {
                        responses.push(AsconfResponse::Success { corr_id });
                    }
                }
                Err(c) => {
                    errored = true;
                    responses.push(AsconfResponse::Error {
                        corr_id,
                        causes: vec![c],
                    });
                }
            }
        }
        for e in &effects {
            match e {
                Effect::Add(_) => self.stats.addresses_added += 1,
                Effect::Delete(_) => self.stats.addresses_deleted += 1,
                Effect::SetPrimary(_) => self.stats.primaries_set += 1,
            }
        }
        let ack = AsconfAckChunk {
            serial: chunk.serial,
            responses,
        };
        self.cached_ack = Some(ack.clone());
        (Some(ack), effects)
    }
}

/// One request decided against the address list as it stands after the ones before
/// it; the list is updated. The flag says whether it was an Add refused for a
/// resource shortage (RFC 5061 5.3 F11: later adds and deletes of the ASCONF fail too).
fn decide(
    p: &AsconfParam,
    src: [u8; 4],
    addrs: &mut Vec<[u8; 4]>,
) -> (Result<Option<Effect>, ErrorCause>, bool) {
    let tlv = || {
        let mut b = vec![0u8; 16];
        if let AsconfParam::Request { op, corr_id, addr } = p {
            let ptype = match op {
                AsconfOp::AddIp => asconf_param::ADD_IP,
                AsconfOp::DeleteIp => asconf_param::DELETE_IP,
                AsconfOp::SetPrimary => asconf_param::SET_PRIMARY,
            };
            b[0..2].copy_from_slice(&ptype.to_be_bytes());
            b[2..4].copy_from_slice(&16u16.to_be_bytes());
            b[4..8].copy_from_slice(&corr_id.to_be_bytes());
            b[8..10].copy_from_slice(&asconf_param::IPV4_ADDRESS.to_be_bytes());
            b[10..12].copy_from_slice(&8u16.to_be_bytes());
            b[12..16].copy_from_slice(addr);
        }
        b
    };
    // RFC 5061 4.3.1-4.3.3, 4.3.5: each of these causes carries the refused TLV.
    let err = |code: u16| ErrorCause { code, info: tlv() };
    let AsconfParam::Request { op, addr, .. } = *p else {
        let AsconfParam::Unrecognized { tlv, .. } = p else {
            unreachable!()
        };
        return (
            Err(ErrorCause {
                code: cause::UNRECOGNIZED_PARAMETERS,
                info: tlv.clone(),
            }),
            false,
        );
    };
    if addr == [0, 0, 0, 0] {
        return (Err(err(asconf_cause::UNRESOLVABLE_ADDRESS)), false);
    }
    let known = addrs.contains(&addr);
    match op {
        // Already in the association: nothing to add, a success.
        AsconfOp::AddIp if known => (Ok(None), false),
        AsconfOp::AddIp if addrs.len() >= MAX_PEER_ADDRS => {
            (Err(err(asconf_cause::RESOURCE_SHORTAGE)), true)
        }
        AsconfOp::AddIp => {
            addrs.push(addr);
            (Ok(Some(Effect::Add(addr))), false)
        }
        // RFC 5061 5.3 F8, F7: the source of the packet carrying the request and the
        // last address may not be deleted. RFC 5061 has no rule for deleting an address
        // not in the association; 5.2 V2 lets the response reject a request with a fitting
        // cause, here "Unresolvable Address" (RFC 9260 3.3.10.5), as Linux answers.
        AsconfOp::DeleteIp if addr == src => (Err(err(asconf_cause::DELETE_SOURCE_ADDRESS)), false),
        AsconfOp::DeleteIp if !known => (Err(err(asconf_cause::UNRESOLVABLE_ADDRESS)), false),
        AsconfOp::DeleteIp if addrs.len() == 1 => {
            (Err(err(asconf_cause::DELETE_LAST_ADDRESS)), false)
        }
        AsconfOp::DeleteIp => {
            addrs.retain(|a| *a != addr);
            (Ok(Some(Effect::Delete(addr))), false)
        }
        AsconfOp::SetPrimary if known => (Ok(Some(Effect::SetPrimary(addr))), false),
        // RFC 5061 5.4: a Set Primary for an address not in the association is not
        // honoured; rejected as a Delete's above.
        AsconfOp::SetPrimary => (Err(err(asconf_cause::UNRESOLVABLE_ADDRESS)), false),
    }
}
