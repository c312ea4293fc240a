//! Concurrent multipath transfer (CMT-SCTP): Iyengar, Amer and Stewart, "Concurrent
//! Multipath Transfer Using SCTP Multihoming Over Independent End-to-End Paths", IEEE/ACM
//! ToN 14(5), 2006, as ns-2.35's `Agent/SCTP/CMT` (`sctp-cmt.cc`) codes it. New data goes
//! to every active destination as its cwnd allows (`send.rs`); a SACK's missing reports
//! follow split fast retransmit (SFR, `sfr.rs`) and the delayed-ack rule (DAC, `dac.rs`);
//! cwnd grows by the per-destination pseudo-cumulative TSN (CUC, `cuc.rs`);
//! retransmissions go where the policy says (`rtx_policy.rs`, `rtx.rs`), and CMT-PF keeps
//! new data off potentially-failed destinations. docs/models/sctp.md ("CMT") gives each
//! rule's source and every difference from ns-2.35.

use super::*;

mod cuc;
pub(crate) mod dac;
mod lists;
mod rtx;
pub(crate) mod rtx_policy;
mod send;
mod sfr;
#[cfg(test)]
mod tests;

pub use rtx_policy::RtxPolicy;

/// The flow's CMT knobs (CONTRACTS.md: `cmt_sfr`, `cmt_cuc`, `cmt_dac`, `cmt_rtx_policy`,
/// `cmt_pf`); `Default` is ns-2.35's Agent/SCTP/CMT (ns-default.tcl).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CmtKnobs {
    /// Split fast retransmit (`useCmtReordering_ 1`).
    pub sfr: bool,
    /// Cwnd update for CMT (`useCmtCwnd_ 1`).
    pub cuc: bool,
    /// Delayed ack for CMT (`useCmtDelAck_ 1`), sender and receiver.
    pub dac: bool,
    /// `eCmtRtxPolicy_ 4` (RTX_CWND).
    pub rtx_policy: RtxPolicy,
    /// CMT-PF (`useCmtPF_ 1`).
    pub pf: bool,
    /// cwnd in MTUs of a potentially-failed destination a HEARTBEAT-ACK makes active
    /// again (`cmtPFCwnd_ 2`).
    pub pf_cwnd_mtus: u32,
}

impl Default for CmtKnobs {
    fn default() -> Self {
        CmtKnobs {
            sfr: true,
            cuc: true,
            dac: true,
            rtx_policy: RtxPolicy::Cwnd,
            pf: true,
            pf_cwnd_mtus: 2,
        }
    }
}

/// Per-destination CMT state (ns-2.35 `SctpDest_S` fields of the CMT agent).
#[derive(Clone, Debug, Default)]
pub(super) struct CmtDest {
    /// CUC: the lowest TSN sent here once and not yet acked (`uiExpectedPseudoCum`), and
    /// whether it has to be looked for again (`eFindExpectedPseudoCum`).
    pub(super) expected_pc: Option<u32>,
    pub(super) find_pc: bool,
    /// The same for retransmitted chunks (`uiExpectedRtxPseudoCum`).
    pub(super) expected_rtx_pc: Option<u32>,
    pub(super) find_rtx_pc: bool,
    /// This SACK moved the pseudo-cumulative TSN (`eNewPseudoCum`).
    pub(super) new_pc: bool,
    /// SFR: this SACK newly acked a chunk sent here by a gap block (`eSawNewAck`), and
    /// the highest TSN so acked, at least the cumulative TSN
    /// (`uiHighestTsnInSackForDest`).
    pub(super) saw_new_ack: bool,
    pub(super) highest_in_sack: u32,
    /// DAC: the lowest TSN sent here this SACK newly acked (`uiLowestTsnInSackForDest`,
    /// 0 there for none).
    pub(super) lowest_in_sack: Option<u32>,
    /// Fast-retransmit cuts once per window per destination (`uiRecover`; None: no cut
    /// yet, ns-2.35's 0 below every TSN).
    pub(super) recover: Option<u32>,
    /// `uiHighestTsnSent` as `GetHighestOutstandingTsn` keeps it.
    pub(super) highest_sent: Option<u32>,
    /// The last fast retransmit marked a chunk sent here (`eRtxLimit` ONE_PACKET): one
    /// packet of retransmissions may go here whatever cwnd says.
    pub(super) rtx_limit_one: bool,
    /// Retransmission packets sent here in the current `rtx_marked` call
    /// (`iNumPacketsSent`) and the burst so far (`uiBurstLength`).
    pub(super) packets_sent: u32,
    pub(super) burst: u32,
    /// RTX_LOSSRATE: chunks sent here and chunks here marked lost (see `rtx_policy`).
    pub(super) chunks_sent: u64,
    pub(super) chunks_lost: u64,
}

/// CMT's state in the sending half.
#[derive(Clone, Debug)]
pub struct Cmt {
    pub(super) k: CmtKnobs,
    pub(super) dests: Vec<CmtDest>,
    /// Round robin: the destination new data last went to (ns-2.35 `spNodeLastSentTo`).
    pub(super) last_sent: Option<usize>,
    /// Packets the SACK reports received since the previous one (its flags, DAC).
    pub(super) packets_sacked: u32,
    /// Ties among destinations are broken by a coin flip, as ns-2.35's
    /// `Random::random() & 01`.
    rng: crate::sim::RngStream,
    /// Per-destination outstanding lists (`lists.rs`).
    lists: lists::DestLists,
    /// Tests: process SACKs by the flight walk even with SFR, to compare.
    #[cfg(test)]
    pub(super) force_walk: bool,
}

impl Cmt {
    pub fn new(k: CmtKnobs, seed: u64) -> Self {
        Cmt {
            k,
            dests: Vec::new(),
            last_sent: None,
            packets_sacked: 0,
            rng: crate::sim::RngStream::new(seed, "sctp-cmt"),
            lists: lists::DestLists::default(),
            #[cfg(test)]
            force_walk: false,
        }
    }

    pub(super) fn coin(&mut self) -> bool {
        self.rng.next_u64() & 1 == 1
    }

    /// Sizes the per-destination state to `n` destinations.
    pub(super) fn ensure(&mut self, n: usize) {
        if self.dests.len() < n {
            self.dests.resize_with(n, || CmtDest {
                find_pc: true,
                find_rtx_pc: true,
                ..CmtDest::default()
            });
        }
    }
}

impl Outbound {
    /// Turns CMT on for this sender (`k.cmt` must be set); `seed` drives the tie-breaks.
    pub fn enable_cmt(&mut self, seed: u64) {
        if let Some(k) = self.k.cmt {
            self.cmt = Some(Box::new(Cmt::new(k, seed)));
        }
    }

    pub fn cmt_on(&self) -> bool {
        self.cmt.is_some()
    }
}
