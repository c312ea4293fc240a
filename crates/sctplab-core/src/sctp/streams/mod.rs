//! Per-stream application sources (`stream_traffic`, CONTRACTS.md "Messages") and the
//! sender's send buffer they fill: each stream offers messages of its own size, every
//! `interval` or as a backlog, between its `start` and `stop`, under a PR-SCTP policy
//! (RFC 3758, RFC 7496). A message is *submitted* when it enters the send buffer; its
//! delay runs from there to its delivery to the receiving application.
//!
//! The send buffer holds every submitted message until the peer has acknowledged all
//! of it cumulatively (or, abandoned, until the cumulative ack passes what of it was
//! sent); its capacity is the flow's `receive_buffer` (the socket buffers of both ends
//! are the same size, as FreeBSD's default `net.inet.sctp.sendspace` and `recvspace`
//! are). Messages are cut into chunks one at a time, in the order the flow's stream
//! scheduler chooses (`sched.rs`, RFC 8260 sec. 3; first come first served by
//! default). A message starts at the front of the unsent part of the buffer, so the
//! records of started messages stay in TSN order.

mod interleave;
pub mod sched;
pub mod source;
pub mod stats;

use crate::endpoint::message_sources::MessageSources;
use crate::net::wire::DataFlags;
use crate::sim::SimTime;
use std::collections::VecDeque;

pub use sched::Scheduler;
use sched::{Head, SchedState};
pub use source::{PrPolicy, StreamSourceCfg};

/// One submitted message, from submission until the cumulative ack passes it.
#[derive(Clone, Debug)]
pub(crate) struct Msg {
    pub(crate) stream: u16,
    pub(crate) size: u64,
    pub(crate) submitted: SimTime,
    pub(crate) pr: PrPolicy,
    /// Stream sequence number, given when the first chunk is cut.
    pub(crate) ssn: Option<u16>,
    /// TSNs (relative to the initial TSN) of the first and the last chunk cut so far.
    pub(crate) first_rel: u32,
    pub(crate) last_rel: u32,
    /// Payload bytes cut so far.
    pub(crate) cut: u64,
    pub(crate) abandoned: bool,
    /// With interleaving (I-DATA, RFC 8260 sec. 2.1): the Message Identifier, given
    /// when the first chunk is cut, and the Fragment Sequence Number of the next one.
    pub(crate) mid: u32,
    pub(crate) fsn: u32,
    /// With interleaving: the relative TSN of every chunk cut so far, rising. Other
    /// streams' chunks may lie between them, so `first_rel..=last_rel` is not the
    /// message's (PR-SCTP looks messages up by TSN, `interleave.rs`). Empty with DATA.
    pub(crate) tsns: Vec<u32>,
}

impl Msg {
    pub(crate) fn started(&self) -> bool {
        self.ssn.is_some()
    }
    pub(crate) fn fully_cut(&self) -> bool {
        self.cut >= self.size
    }
}

/// Per-stream tallies the summary reports.
#[derive(Clone, Debug, Default)]
pub struct StreamTally {
    pub submitted_messages: u64,
    pub abandoned_messages: u64,
}

/// The sources, the send buffer and the message records of one sending association.
#[derive(Clone, Debug)]
pub struct StreamSources {
    sources: MessageSources,
    /// Submitted messages in submission (and so TSN) order, until released.
    pub(crate) msgs: VecDeque<Msg>,
    /// Index in `msgs` of the message being cut, or of the next one to cut.
    cursor: usize,
    /// Payload bytes of the messages in `msgs` (the send buffer's occupancy).
    held: u64,
    capacity: u64,
    /// Relative TSN of the next chunk to cut: every chunk cut gets the next TSN.
    next_rel: u32,
    ssns: Vec<u16>,
    unordered: bool,
    stopped: bool,
    /// (relative TSN of its last chunk, stream, submission time) of every message
    /// whose last chunk was cut, for the delay statistics.
    pub log: Vec<(u32, u16, SimTime)>,
    pub tally: Vec<StreamTally>,
    /// The peer announced Forward-TSN-Supported and this end asked for it: only then
    /// is any message abandoned (a peer without PR-SCTP gets reliable delivery).
    pub pr_on: bool,
    /// Advanced.Peer.Ack.Point (RFC 3758 sec. 3.5), relative to the initial TSN.
    pub(crate) point_rel: u32,
    /// FORWARD TSN chunks sent over the run.
    pub forward_tsn_sent: u64,
    /// The stream scheduler, and the streams it may choose from (reused).
    sched: SchedState,
    heads: Vec<Head>,
    seen: Vec<bool>,
    /// Per stream: messages neither started nor abandoned (the scheduler's search for
    /// heads stops once it has found every stream that has one).
    waiting: Vec<u32>,
    /// I-DATA (`interleave.rs`): the scheduler chooses per chunk, so messages of
    /// different streams may be cut in turns; `in_progress` holds, per stream, the
    /// message partly cut (as an index counted from the first message ever held:
    /// `popped` messages have left the front since).
    interleave: bool,
    in_progress: Vec<Option<usize>>,
    popped: usize,
    /// Per stream: the next Message Identifier (RFC 8260 sec. 2.1; ordered and
    /// unordered messages number apart, and a flow's messages are all one or the
    /// other, so one counter serves).
    mids: Vec<u32>,
    /// (MID, FSN) of the chunk cut last (I-DATA's header fields for it).
    pub last_ids: (u32, u32),
    /// RE-CONFIG holds new messages back (`AppSource::hold`): with interleaving only
    /// the partly sent ones may go on.
    pub(crate) hold_new: bool,
    /// Live mode's client (`live::config::apply_pr`): no source submits once this many
    /// messages have been submitted in all (None: the sources' own start and stop).
    limit: Option<u64>,
    submitted_total: u64,
}

impl StreamSources {
    pub fn new(cfgs: &[StreamSourceCfg], streams: u16, capacity: u64, unordered: bool) -> Self {
        let n = usize::from(streams.max(1));
        let (mut priority, mut weight) = (vec![0; n], vec![1; n]);
        for c in cfgs {
            if let (Some(p), Some(w)) = (
                priority.get_mut(usize::from(c.stream)),
                weight.get_mut(usize::from(c.stream)),
            ) {
                (*p, *w) = (c.priority, c.weight);
            }
        }
        StreamSources {
            sources: MessageSources::new(cfgs),
            msgs: VecDeque::new(),
            cursor: 0,
            held: 0,
            capacity: capacity.max(1),
            next_rel: 0,
            ssns: vec![0; n],
            unordered,
            stopped: false,
            log: Vec::new(),
            tally: vec![StreamTally::default(); n],
            pr_on: false,
            point_rel: u32::MAX,
            forward_tsn_sent: 0,
            sched: SchedState::new(Scheduler::Fcfs, priority, weight),
            heads: Vec::new(),
            seen: vec![false; n],
            waiting: vec![0; n],
            interleave: false,
            in_progress: vec![None; n],
            popped: 0,
            mids: vec![0; n],
            last_ids: (0, 0),
            hold_new: false,
            limit: None,
            submitted_total: 0,
        }
    }

    /// No source submits once `n` messages have been submitted in all; then the
    /// sources are stopped (live mode's `--messages` with `--pr`).
    pub fn limit_messages(&mut self, n: u64) {
        self.limit = Some(n);
    }

    /// The flow's stream scheduler (`scheduler`; first come first served without).
    pub fn set_scheduler(&mut self, kind: Scheduler) {
        self.sched.kind = kind;
    }

    /// A packet of new data is being started (round robin per packet turns).
    pub fn packet_start(&mut self) {
        self.sched.packet_start();
    }

    /// The flow's stop: no source submits any more; what is in the buffer still goes.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    pub fn held(&self) -> u64 {
        self.held
    }

    /// Whether any submitted message still has bytes to cut.
    pub fn has_unsent(&self) -> bool {
        self.in_progress.iter().any(Option::is_some)
            || self
                .msgs
                .range(self.cursor.min(self.msgs.len())..)
                .any(|m| !m.abandoned && !m.fully_cut())
    }

    /// Whether no source will ever submit again and nothing is left to cut.
    pub fn exhausted(&self) -> bool {
        !self.has_unsent() && (self.stopped || self.sources.iter().all(|s| s.finished()))
    }

    /// When a source next has something to do (a message falls due, a backlog source
    /// starts or stops), if ever.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        if self.stopped {
            return None;
        }
        self.sources.next_wakeup()
    }

    /// Brings the sources up to `now` and submits what fits in the send buffer, first
    /// come first served: messages that fell due earlier first (an interval source's
    /// message is due at its tick), backlog sources last, taking turns. A message that
    /// does not fit waits (the application blocks) unless its stream's `prio` policy
    /// makes room by abandoning messages of lower priority (RFC 7496 sec. 4). A
    /// message larger than the whole buffer enters an empty one.
    pub fn refill(&mut self, now: SimTime) {
        if self.stopped {
            return;
        }
        self.sources.advance(now);
        loop {
            if self.limit.is_some_and(|l| self.submitted_total >= l) {
                self.stopped = true;
                return;
            }
            let Some(i) = self.sources.pick() else { return };
            let c = self.sources.cfg(i);
            let (size, pr, stream) = (c.message_size, c.pr, c.stream);
            if self.held + size > self.capacity && self.held > 0 {
                if let (PrPolicy::Prio(p), true) = (pr, self.pr_on) {
                    self.make_room(p, self.held + size - self.capacity);
                }
                if self.held + size > self.capacity && self.held > 0 {
                    return;
                }
            }
            self.sources.take(i, now);
            self.held += size;
            self.submitted_total += 1;
            self.tally[usize::from(stream)].submitted_messages += 1;
            self.waiting[usize::from(stream)] += 1;
            self.msgs.push_back(Msg {
                stream,
                size,
                submitted: now,
                pr,
                ssn: None,
                first_rel: 0,
                last_rel: 0,
                cut: 0,
                abandoned: false,
                mid: 0,
                fsn: 0,
                tsns: Vec::new(),
            });
        }
    }

    /// RFC 7496 sec. 4: abandons messages of `prio` streams whose priority value is
    /// larger (a lower priority) than `priority`, oldest first (those sent first, as
    /// Linux's `sctp_prune_prsctp` and usrsctp's `sctp_prune_prsctp` do), until
    /// `needed` bytes are abandoned. Unsent ones free their room at once, sent ones
    /// when the cumulative ack passes them after the FORWARD TSN.
    fn make_room(&mut self, priority: u32, needed: u64) {
        let mut freed = 0;
        for k in 0..self.msgs.len() {
            if freed >= needed {
                break;
            }
            let m = &self.msgs[k];
            let lower = matches!(m.pr, PrPolicy::Prio(q) if q > priority);
            if m.abandoned || !lower {
                continue;
            }
            freed += m.size;
            self.abandon(k);
        }
        self.drop_unstarted_abandoned();
    }

    /// Marks message `k` abandoned (RFC 3758 sec. 3.5: all its fragments with it); the
    /// chunks still to cut are never cut. Counts it once.
    pub(crate) fn abandon(&mut self, k: usize) {
        let m = &mut self.msgs[k];
        if m.abandoned {
            return;
        }
        m.abandoned = true;
        if !m.started() {
            let w = &mut self.waiting[usize::from(m.stream)];
            *w = w.saturating_sub(1);
        } else if self.interleave {
            self.in_progress[usize::from(m.stream)] = None;
        }
        self.tally[usize::from(m.stream)].abandoned_messages += 1;
        if k == self.cursor && m.started() {
            // The message being cut ends here: the next chunk belongs to the next one.
            self.cursor += 1;
        }
    }

    /// Abandoned messages of which nothing was sent leave the buffer at once: no TSN
    /// or SSN was spent on them, so the peer never hears of them.
    pub(crate) fn drop_unstarted_abandoned(&mut self) {
        let mut k = self.cursor.min(self.msgs.len());
        while k < self.msgs.len() {
            if self.msgs[k].abandoned && !self.msgs[k].started() {
                if let Some(m) = self.msgs.remove(k) {
                    self.held -= m.size;
                }
            } else {
                k += 1;
            }
        }
    }

    /// Abandons the submitted messages whose `ttl` has run out (RFC 3758 sec. 3.5,
    /// RFC 7496 sec. 2: timed reliability, lifetime from submission) if `may(m)`.
    pub(crate) fn expire(&mut self, now: SimTime, may: impl Fn(&Msg) -> bool) {
        // Only streams with a lifetime need the walk over the buffer.
        let any_ttl = self
            .sources
            .iter()
            .any(|s| matches!(s.cfg.pr, PrPolicy::Ttl(_)));
        if !self.pr_on || !any_ttl {
            return;
        }
        let mut any = false;
        for k in 0..self.msgs.len() {
            let m = &self.msgs[k];
            if let PrPolicy::Ttl(ttl) = m.pr {
                if !m.abandoned && now >= m.submitted + ttl && may(m) {
                    self.abandon(k);
                    any = true;
                }
            }
        }
        if any {
            self.drop_unstarted_abandoned();
        }
    }

    /// The cumulative ack reached relative TSN `cum_rel`: messages wholly at or below
    /// it leave the send buffer.
    pub(crate) fn release(&mut self, cum_rel: u32) {
        while let Some(m) = self.msgs.front() {
            let done = m.started() && (m.fully_cut() || m.abandoned);
            if !done || (m.last_rel as i32).wrapping_sub(cum_rel as i32) > 0 {
                break;
            }
            self.held -= m.size;
            self.msgs.pop_front();
            self.popped += 1;
            self.cursor = self.cursor.saturating_sub(1);
        }
    }

    /// The index in `msgs` of the next message with bytes to cut: the one being cut,
    /// else the scheduler's choice, moved to the front of the unsent part.
    fn next_to_cut(&mut self) -> Option<usize> {
        if self.interleave {
            return self.next_to_cut_interleaved();
        }
        while let Some(m) = self.msgs.get(self.cursor) {
            if m.abandoned || m.fully_cut() {
                self.cursor += 1;
            } else if m.started() || self.sched.kind == Scheduler::Fcfs {
                return Some(self.cursor);
            } else {
                break;
            }
        }
        if self.sched.kind == Scheduler::Fcfs {
            return None;
        }
        self.collect_heads();
        let h = self.sched.pick(&self.heads)?;
        if h.index != self.cursor {
            // Only unsent messages lie between: the order of each stream's stays.
            let m = self.msgs.remove(h.index)?;
            self.msgs.insert(self.cursor, m);
        }
        Some(self.cursor)
    }

    /// The first unsent message of every stream that has one, in buffer order.
    fn collect_heads(&mut self) {
        self.heads.clear();
        self.seen.iter_mut().for_each(|s| *s = false);
        let wanted = self.waiting.iter().filter(|&&w| w > 0).count();
        if wanted == 0 {
            return;
        }
        self.push_unsent_heads(wanted);
    }

    /// Adds to `heads`, in buffer order from `cursor`, the first unsent message of each
    /// stream not `seen` yet, until there are `wanted` heads (both schedulers' walk).
    fn push_unsent_heads(&mut self, wanted: usize) {
        for (index, m) in self.msgs.iter().enumerate().skip(self.cursor) {
            let s = usize::from(m.stream);
            if m.abandoned || m.started() || self.seen[s] {
                continue;
            }
            self.seen[s] = true;
            self.heads.push(Head {
                stream: m.stream,
                index,
            });
            if self.heads.len() == wanted {
                break;
            }
        }
    }

    /// The message at the cursor is partly cut (RE-CONFIG waits for it to be whole).
    pub fn mid_message(&self) -> bool {
        if self.interleave {
            return self.in_progress.iter().any(Option::is_some);
        }
        self.msgs
            .get(self.cursor)
            .is_some_and(|m| m.started() && !m.fully_cut())
    }

    /// After a performed stream reset or add (RFC 6525 5.1.2, 5.2.5).
    pub fn reconfigure(&mut self, streams: &[u16], add: u16) {
        reset_ssns(&mut self.ssns, streams, add);
        self.tally.resize(self.ssns.len(), StreamTally::default());
        self.reset_mids(streams, add);
    }

    /// Payload of the next chunk if cut at `max_payload`, without cutting it.
    pub fn peek_payload(&mut self, max_payload: u64) -> Option<u64> {
        let k = self.next_to_cut()?;
        let m = &self.msgs[k];
        Some((m.size - m.cut).min(max_payload))
    }

    /// Cuts the next chunk: (stream, ssn, flags, payload bytes). The chunk takes the
    /// next TSN (the caller numbers every chunk it gets from here in turn).
    pub fn next_chunk(&mut self, max_payload: u64) -> Option<(u16, u16, DataFlags, u32)> {
        let k = self.next_to_cut()?;
        let rel = self.next_rel;
        self.next_rel = rel.wrapping_add(1);
        let unordered = self.unordered;
        if self.interleave {
            self.interleaved_choice(k);
        }
        let m = &mut self.msgs[k];
        let mut flags = DataFlags::empty();
        if m.ssn.is_none() {
            if !self.interleave {
                self.sched.started(m.stream, &self.heads);
            }
            let w = &mut self.waiting[usize::from(m.stream)];
            *w = w.saturating_sub(1);
            let ssn = &mut self.ssns[usize::from(m.stream)];
            m.ssn = Some(*ssn);
            *ssn = ssn.wrapping_add(1);
            m.first_rel = rel;
            flags = flags.union(DataFlags::BEGIN);
        }
        let take = (m.size - m.cut).min(max_payload);
        m.cut += take;
        self.sched.cut(m.stream, take);
        self.sched.note_packet_stream(m.stream);
        m.last_rel = rel;
        if self.interleave {
            m.tsns.push(rel);
        }
        self.last_ids = (m.mid, m.fsn);
        m.fsn = m.fsn.wrapping_add(1);
        if m.fully_cut() {
            flags = flags.union(DataFlags::END);
            self.log.push((rel, m.stream, m.submitted));
            if self.interleave {
                self.in_progress[usize::from(m.stream)] = None;
            }
        }
        if unordered {
            flags = flags.union(DataFlags::UNORDERED);
        }
        let ssn = if unordered { 0 } else { m.ssn.unwrap_or(0) };
        Some((m.stream, ssn, flags, take as u32))
    }

    /// The message holding the chunk with relative TSN `rel`, if it is still here.
    pub(crate) fn find(&self, rel: u32) -> Option<usize> {
        if self.interleave {
            return self.find_interleaved(rel);
        }
        // Started messages come first, in TSN order.
        let k = self
            .msgs
            .partition_point(|m| m.started() && (m.first_rel as i32).wrapping_sub(rel as i32) <= 0);
        let k = k.checked_sub(1)?;
        let m = &self.msgs[k];
        ((m.last_rel as i32).wrapping_sub(rel as i32) >= 0).then_some(k)
    }

    /// Streams for which an ordered delivery matters to FORWARD TSN (not unordered).
    pub(crate) fn unordered(&self) -> bool {
        self.unordered
    }
}

#[cfg(test)]
mod sched_tests;
#[cfg(test)]
mod tests;

/// Sets the listed streams' next SSN to 0 (every stream when the list is empty) and
/// appends `add` streams (RE-CONFIG, RFC 6525 5.1.2 and 5.2.5).
pub fn reset_ssns(ssns: &mut Vec<u16>, streams: &[u16], add: u16) {
    if streams.is_empty() && add == 0 {
        ssns.fill(0);
    }
    for &s in streams {
        if let Some(x) = ssns.get_mut(usize::from(s)) {
            *x = 0;
        }
    }
    ssns.resize(ssns.len() + usize::from(add), 0);
}
