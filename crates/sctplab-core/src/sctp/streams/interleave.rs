//! User message interleaving on the sending side (I-DATA, RFC 8260 sec. 2): the
//! stream scheduler chooses for every chunk, not only at message boundaries, so a
//! small message of one stream goes out between the fragments of a large message of
//! another instead of waiting for all of them (the sender's head-of-line blocking
//! that DATA's consecutive TSNs impose, RFC 9260 sec. 6.9). A stream's own messages
//! keep their order: at most one of them is partly cut at a time.
//!
//! Layout of the send buffer in this mode: every started message lies before
//! `cursor`, in the order its first chunk was cut (so their first TSNs still rise);
//! the messages not yet started lie from `cursor` on, in submission order. Each
//! chunk carries its message's Message Identifier (per stream, from 0) and its
//! Fragment Sequence Number (from 0 within the message, sec. 2.1).

use super::StreamSources;
use super::sched::Head;

impl StreamSources {
    /// Interleaves messages of different streams (the peer supports I-DATA).
    pub fn set_interleave(&mut self, on: bool) {
        self.interleave = on;
    }

    pub fn interleaving(&self) -> bool {
        self.interleave
    }

    /// The scheduler's choice for the next chunk among every stream's partly cut
    /// message or, without one, its first unsent message. Pure: asked again before
    /// the chunk is cut, it answers the same (the chosen unsent message is moved to
    /// `cursor`, where the next call finds it as that stream's head).
    pub(super) fn next_to_cut_interleaved(&mut self) -> Option<usize> {
        self.collect_interleaved_heads();
        let h = self.sched.pick(&self.heads)?;
        if h.index > self.cursor {
            // Only unsent messages lie between: the order of each stream's stays.
            let m = self.msgs.remove(h.index)?;
            self.msgs.insert(self.cursor, m);
            return Some(self.cursor);
        }
        Some(h.index)
    }

    /// The chunk of message `k` (the choice just made) is being cut: the choice is
    /// final (every chunk is one, RFC 8260 sec. 3); a message's first chunk gives it
    /// its MID and moves it into the started part of the buffer.
    pub(super) fn interleaved_choice(&mut self, k: usize) {
        let stream = self.msgs[k].stream;
        self.sched.started(stream, &self.heads);
        if self.msgs[k].started() {
            return;
        }
        let s = usize::from(stream);
        let m = &mut self.msgs[k];
        m.mid = self.mids[s];
        m.fsn = 0;
        self.mids[s] = self.mids[s].wrapping_add(1);
        // `k` is `cursor` (see `next_to_cut_interleaved`).
        self.cursor = k + 1;
        self.in_progress[s] = Some(self.popped + k);
    }

    /// Heads for an interleaving choice, in send-buffer order: the partly cut
    /// messages (before `cursor`), then each other stream's first unsent message.
    fn collect_interleaved_heads(&mut self) {
        self.heads.clear();
        self.seen.iter_mut().for_each(|s| *s = false);
        for (s, at) in self.in_progress.iter().enumerate() {
            if let Some(abs) = *at {
                self.heads.push(Head {
                    stream: s as u16,
                    index: abs - self.popped,
                });
                self.seen[s] = true;
            }
        }
        self.heads.sort_unstable_by_key(|h| h.index);
        let wanted = self.heads.len()
            + self
                .waiting
                .iter()
                .zip(&self.seen)
                .filter(|&(&w, &seen)| w > 0 && !seen)
                .count();
        if self.heads.len() == wanted || self.hold_new {
            return;
        }
        self.push_unsent_heads(wanted);
    }

    /// The started message holding the chunk with relative TSN `rel` (PR-SCTP's
    /// lookup by TSN). Started messages lie in the order of their first TSNs, but
    /// their chunks mix with other streams', so a message is found by its own list of
    /// TSNs: among those begun at or before `rel`, the latest whose list holds it.
    pub(super) fn find_interleaved(&self, rel: u32) -> Option<usize> {
        // Started messages all lie before `cursor`, so they are the prefix.
        let end = self
            .msgs
            .partition_point(|m| m.started() && (m.first_rel as i32).wrapping_sub(rel as i32) <= 0);
        (0..end).rev().find(|&k| {
            let m = &self.msgs[k];
            (m.last_rel as i32).wrapping_sub(rel as i32) >= 0
                && m.tsns
                    .binary_search_by(|&t| (t.wrapping_sub(rel) as i32).cmp(&0))
                    .is_ok()
        })
    }

    /// After a stream reset (RFC 8260 sec. 2.3.2 with RFC 6525): the reset streams'
    /// MIDs start again at 0; added streams start at 0.
    pub(super) fn reset_mids(&mut self, streams: &[u16], add: u16) {
        if streams.is_empty() && add == 0 {
            self.mids.fill(0);
        }
        for &s in streams {
            if let Some(x) = self.mids.get_mut(usize::from(s)) {
                *x = 0;
            }
        }
        self.mids.resize(self.mids.len() + usize::from(add), 0);
        self.in_progress.resize(self.mids.len(), None);
    }
}

#[cfg(test)]
mod tests;
