//! Reassembly of I-DATA messages on the receiving side (RFC 8260 sec. 2.1, 2.2.3):
//! fragments are put together by (stream, MID, FSN), not by TSN, since with
//! interleaving a message's fragments need not have consecutive TSNs. Ordered
//! messages are delivered per stream in MID order, unordered ones as soon as they
//! are whole (their MIDs number apart from the ordered ones, sec. 2.1); an
//! I-FORWARD-TSN (sec. 2.3.1) skips abandoned messages by (stream, MID, U).
//!
//! TSN bookkeeping (the cumulative TSN, gaps, duplicates, the SACK) is not here: it
//! is the same for I-DATA as for DATA. This module only answers which messages are
//! whole and deliverable. What it holds is bounded by its caller, which accepts a
//! fragment only within the receive window; a fragment that contradicts what is
//! held (an FSN beyond the message's last, a second last fragment) is counted in
//! `malformed` and dropped, never trusted.

use crate::net::wire::DataFlags;
use crate::net::wire::sctp_idata::SkippedMessage;
use std::collections::BTreeMap;

#[path = "idata_pd.rs"]
mod pd;

/// Serial-number "a < b" on 32-bit MIDs (RFC 8260 sec. 2.1: MIDs wrap; RFC 1982).
fn mid_lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// One received I-DATA fragment, as reassembly needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fragment {
    pub tsn: u32,
    pub stream: u16,
    pub mid: u32,
    /// 0 for the first fragment (B set; its field carries the PPID instead).
    pub fsn: u32,
    pub flags: DataFlags,
    pub payload: u32,
}

/// A whole message handed to the application, or with partial delivery (`pd.rs`) a
/// run of its fragments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message {
    pub stream: u16,
    pub mid: u32,
    pub unordered: bool,
    pub bytes: u64,
    /// TSN of its last fragment (E set), or of the run's last.
    pub last_tsn: u32,
    /// Fragments it came in.
    pub fragments: u32,
    /// The message ends here: false only for a partial delivery's earlier runs.
    pub ends: bool,
}

/// The fragments of one message received so far.
#[derive(Clone, Debug, Default)]
struct Partial {
    /// FSN -> (payload bytes, TSN).
    frags: BTreeMap<u32, (u32, u32)>,
    /// FSN of the fragment with E set, once received.
    last_fsn: Option<u32>,
}

impl Partial {
    /// Every FSN from 0 to the last is here (keys are unique and none exceeds the
    /// last, so the count says it).
    fn whole(&self) -> bool {
        self.last_fsn
            .is_some_and(|l| self.frags.len() as u64 == u64::from(l) + 1)
    }

    fn bytes(&self) -> u64 {
        self.frags.values().map(|&(p, _)| u64::from(p)).sum()
    }

    /// Adds a fragment; false if it is a duplicate or contradicts the message.
    fn add(&mut self, f: &Fragment) -> Result<bool, ()> {
        let end = f.flags.contains(DataFlags::END);
        let beyond_last = self.last_fsn.is_some_and(|l| f.fsn > l);
        let second_end = end && self.last_fsn.is_some_and(|l| l != f.fsn);
        let end_below_held = end && self.frags.keys().next_back().is_some_and(|&k| k > f.fsn);
        let begin_not_zero = f.flags.contains(DataFlags::BEGIN) && f.fsn != 0;
        if beyond_last || second_end || end_below_held || begin_not_zero {
            return Err(());
        }
        if self.frags.contains_key(&f.fsn) {
            return Ok(false);
        }
        self.frags.insert(f.fsn, (f.payload, f.tsn));
        if end {
            self.last_fsn = Some(f.fsn);
        }
        Ok(true)
    }

    fn into_message(self, stream: u16, mid: u32, unordered: bool) -> Message {
        let bytes = self.bytes();
        let last_tsn = self.frags.values().next_back().map_or(0, |&(_, t)| t);
        Message {
            stream,
            mid,
            unordered,
            bytes,
            last_tsn,
            fragments: self.frags.len() as u32,
            ends: true,
        }
    }
}

#[derive(Clone, Debug, Default)]
struct StreamRx {
    /// MID of the next ordered message to deliver.
    next_mid: u32,
    ordered: BTreeMap<u32, Partial>,
    unordered: BTreeMap<u32, Partial>,
    /// Partial delivery of ordered message `next_mid` under way (`pd.rs`): the FSN
    /// of its next fragment to hand up.
    pd_fsn: Option<u32>,
}

/// Per-stream reassembly of I-DATA fragments.
#[derive(Clone, Debug, Default)]
pub struct IDataReassembly {
    streams: Vec<StreamRx>,
    /// Payload bytes held in messages not yet delivered.
    pub held_bytes: u64,
    /// Fragments dropped because they contradict their message (see module docs).
    pub malformed: u64,
    /// Fragments of skipped (abandoned) messages discarded.
    pub fragments_skipped: u64,
}

impl IDataReassembly {
    pub fn new(streams: u16) -> Self {
        IDataReassembly {
            streams: vec![StreamRx::default(); usize::from(streams)],
            ..Default::default()
        }
    }

    /// Takes one fragment (its TSN newly received: duplicates by TSN are the
    /// caller's) and appends to `out` the messages it makes deliverable. False if the
    /// fragment was not kept (no such stream, a message already delivered or
    /// skipped, a duplicate FSN, or malformed).
    pub fn on_fragment(&mut self, f: &Fragment, out: &mut Vec<Message>) -> bool {
        let Some(s) = self.streams.get_mut(usize::from(f.stream)) else {
            return false;
        };
        let unordered = f.flags.contains(DataFlags::UNORDERED);
        if !unordered && mid_lt(f.mid, s.next_mid) {
            return false;
        }
        // A fragment of the message being delivered in parts that was handed up
        // already: a duplicate.
        let in_pd = !unordered && f.mid == s.next_mid && s.pd_fsn.is_some();
        if in_pd && s.pd_fsn.is_some_and(|n| f.fsn < n) {
            return false;
        }
        // A whole message in one chunk that nothing held waits for (the bulk case):
        // delivered at once, without a round trip through the maps.
        let whole = f.flags.contains(DataFlags::UNFRAGMENTED) && f.fsn == 0;
        let queue = if unordered { &s.unordered } else { &s.ordered };
        if whole && (unordered || f.mid == s.next_mid) && !queue.contains_key(&f.mid) {
            out.push(Message {
                stream: f.stream,
                mid: f.mid,
                unordered,
                bytes: u64::from(f.payload),
                last_tsn: f.tsn,
                fragments: 1,
                ends: true,
            });
            if !unordered {
                s.next_mid = f.mid.wrapping_add(1);
                if !s.ordered.is_empty() {
                    self.deliver_in_order(usize::from(f.stream), out);
                }
            }
            return true;
        }
        let queue = if unordered {
            &mut s.unordered
        } else {
            &mut s.ordered
        };
        let p = queue.entry(f.mid).or_default();
        match p.add(f) {
            Err(()) => {
                self.malformed += 1;
                if p.frags.is_empty() && !in_pd {
                    queue.remove(&f.mid);
                }
                return false;
            }
            Ok(false) => return false,
            Ok(true) => self.held_bytes += u64::from(f.payload),
        }
        if unordered {
            if p.whole() {
                if let Some(p) = queue.remove(&f.mid) {
                    let m = p.into_message(f.stream, f.mid, true);
                    self.held_bytes -= m.bytes;
                    out.push(m);
                }
            }
        } else if in_pd {
            self.continue_partial(usize::from(f.stream), out);
        } else {
            self.deliver_in_order(usize::from(f.stream), out);
        }
        true
    }

    /// Delivers stream `i`'s whole ordered messages from `next_mid` on, in order.
    fn deliver_in_order(&mut self, i: usize, out: &mut Vec<Message>) {
        let s = &mut self.streams[i];
        while s.ordered.get(&s.next_mid).is_some_and(Partial::whole) {
            let mid = s.next_mid;
            if let Some(p) = s.ordered.remove(&mid) {
                let m = p.into_message(i as u16, mid, false);
                self.held_bytes -= m.bytes;
                out.push(m);
            }
            s.next_mid = mid.wrapping_add(1);
        }
    }

    /// An I-FORWARD-TSN's entries (RFC 8260 sec. 2.3.1): an ordered entry skips
    /// every message of its stream up to its MID (whole ones among them are still
    /// delivered, in order, as RFC 3758 sec. 3.6 has it for SSNs; the others'
    /// fragments are discarded), then delivery goes on; an unordered entry (U)
    /// discards the fragments of that one unordered message. Entries for streams
    /// this end does not have, or behind what was delivered, change nothing.
    /// An SSN/TSN reset (RFC 6525 5.2.4 G4, G5) with I-DATA: as an I-FORWARD-TSN
    /// naming every held message (whole ones delivered into `out`, the others
    /// discarded), then every stream's next MID is 0 (RFC 8260 sec. 2.3.2).
    pub fn reset(&mut self, out: &mut Vec<Message>) {
        let mut skipped = Vec::new();
        for (i, s) in self.streams.iter().enumerate() {
            let stream = i as u16;
            skipped.extend(s.unordered.keys().map(|&mid| SkippedMessage {
                stream,
                unordered: true,
                mid,
            }));
            let next = s.next_mid;
            if let Some(mid) = s
                .ordered
                .keys()
                .copied()
                .max_by_key(|&k| k.wrapping_sub(next))
            {
                skipped.push(SkippedMessage {
                    stream,
                    unordered: false,
                    mid,
                });
            }
        }
        self.on_skip(&skipped, out);
        for s in &mut self.streams {
            s.next_mid = 0;
            s.pd_fsn = None;
        }
    }

    pub fn on_skip(&mut self, skipped: &[SkippedMessage], out: &mut Vec<Message>) {
        for e in skipped {
            let i = usize::from(e.stream);
            let Some(s) = self.streams.get_mut(i) else {
                continue;
            };
            if e.unordered {
                if let Some(p) = s.unordered.remove(&e.mid) {
                    self.held_bytes -= p.bytes();
                    self.fragments_skipped += p.frags.len() as u64;
                }
                continue;
            }
            self.deliver_in_order(i, out);
            let next = self.streams[i].next_mid;
            if mid_lt(e.mid, next) {
                continue;
            }
            // Held messages from `next` to the entry's MID, in MID order: whole ones
            // are delivered, the others (abandoned) discarded. One pass over what is
            // held, however far the MID jumps.
            let s = &mut self.streams[i];
            let mut keys: Vec<u32> = s
                .ordered
                .keys()
                .copied()
                .filter(|&k| !mid_lt(k, next) && !mid_lt(e.mid, k))
                .collect();
            keys.sort_unstable_by_key(|&k| k.wrapping_sub(next));
            for k in keys {
                let Some(p) = self.streams[i].ordered.remove(&k) else {
                    continue;
                };
                self.held_bytes -= p.bytes();
                if p.whole() {
                    out.push(p.into_message(e.stream, k, false));
                } else {
                    self.fragments_skipped += p.frags.len() as u64;
                }
            }
            self.streams[i].next_mid = e.mid.wrapping_add(1);
            // A message delivered in parts among the skipped ones ends here.
            self.streams[i].pd_fsn = None;
            self.deliver_in_order(i, out);
        }
    }

    /// Partial messages held.
    #[cfg(test)]
    pub fn pending_messages(&self) -> usize {
        self.streams
            .iter()
            .map(|s| s.ordered.len() + s.unordered.len())
            .sum()
    }
}

#[cfg(test)]
#[path = "idata_tests.rs"]
mod tests;
