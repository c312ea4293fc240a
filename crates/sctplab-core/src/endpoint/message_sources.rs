//! The stepping `stream_traffic`'s sources share on every transport that takes them
//! (SCTP's send buffer, `sctp/streams/mod.rs`; TCP's byte stream, `tcp/messages.rs`):
//! the sources start with the connection, count their due messages, and offer them
//! first come first served. What a transport does with the message it is offered (the
//! room it needs, a PR-SCTP policy) stays with the transport.

use crate::sctp::streams::StreamSourceCfg;
use crate::sctp::streams::source::Source;
use crate::sim::SimTime;

/// The sending application's sources and whose turn it is.
#[derive(Clone, Debug)]
pub(crate) struct MessageSources {
    sources: Vec<Source>,
    /// Backlog sources take turns in entry order.
    rr_next: usize,
    /// The first `advance` (the connection is established) has happened.
    begun: bool,
}

impl MessageSources {
    pub(crate) fn new(cfgs: &[StreamSourceCfg]) -> Self {
        MessageSources {
            sources: cfgs.iter().map(Source::new).collect(),
            rr_next: 0,
            begun: false,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.sources.len()
    }

    pub(crate) fn iter(&self) -> std::slice::Iter<'_, Source> {
        self.sources.iter()
    }

    /// Source `i`'s entry.
    pub(crate) fn cfg(&self, i: usize) -> &StreamSourceCfg {
        &self.sources[i].cfg
    }

    /// Brings the sources up to `now`; the first call starts them (the application
    /// starts with the connection).
    pub(crate) fn advance(&mut self, now: SimTime) {
        if !self.begun {
            self.begun = true;
            for s in &mut self.sources {
                s.begin(now);
            }
        }
        for s in &mut self.sources {
            s.advance(now);
        }
    }

    /// The source whose message is due first: interval sources by the tick their
    /// oldest waiting message fell due (then entry order), else the next backlog
    /// source in turn.
    pub(crate) fn pick(&self) -> Option<usize> {
        let timed = self
            .sources
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.due_at().map(|t| (t, i)))
            .min();
        if let Some((_, i)) = timed {
            return Some(i);
        }
        let n = self.sources.len();
        (0..n)
            .map(|k| (self.rr_next + k) % n)
            .find(|&i| self.sources[i].backlog_ready())
    }

    /// Source `i`'s message is submitted; a backlog source passes the turn on.
    pub(crate) fn take(&mut self, i: usize, now: SimTime) {
        let s = &mut self.sources[i];
        s.take(now);
        if s.cfg.interval.is_none() {
            self.rr_next = i + 1;
        }
    }

    /// When a source next has something to do, if ever.
    pub(crate) fn next_wakeup(&self) -> Option<SimTime> {
        self.sources.iter().filter_map(Source::next_wakeup).min()
    }
}
