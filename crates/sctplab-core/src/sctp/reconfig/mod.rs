//! Stream reconfiguration (RFC 6525): the request and response sequence numbers, one
//! outstanding request at a time, its retransmission timer, the "in progress" answer
//! and the receiver's handling of every request type. The association
//! (`sctp/assoc/reconfig.rs`) feeds it and applies what it decides to the streams.
//!
//! What is modelled and what is not (docs/models/sctp.md "Stream reconfiguration"):
//! the sender of an Outgoing SSN Reset Request begins no new message on any stream
//! while the request is pending or outstanding (RFC 6525 5.1.2 asks this only of the
//! streams being reset), so no data of the new SSN epoch can reach the peer before
//! the reset is performed. The sender of an SSN/TSN Reset Request (5.1.4) waits until
//! every chunk it sent is acknowledged and no message is half cut, and begins none
//! until the answer; its receiver (5.2.4) performs it when it has no data of its own
//! in flight (else "in progress", as Linux does, without using up the request's
//! sequence number, so the retransmission is decided afresh).

use crate::net::wire::{ReconfigChunk, ReconfigParam, ReconfigResult};
use crate::sctp::outbound::tsn_le;
use std::collections::VecDeque;

pub mod summary;
#[cfg(test)]
mod tests;

/// A scripted request (`[[faults]]` `reset_streams`, `add_streams`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Outgoing SSN Reset of these streams (all if empty).
    ResetStreams(Vec<u16>),
    /// Add Outgoing Streams.
    AddStreams(u16),
    /// Incoming SSN Reset: ask the peer to reset its outgoing streams.
    ResetIncoming(Vec<u16>),
    /// SSN/TSN Reset (`[[faults]]` `reset_assoc`).
    ResetAll,
}

/// What the requester learnt from a response: the association applies it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Our outgoing streams (all if empty) start again at SSN 0.
    StreamsReset(Vec<u16>),
    /// `n` outgoing streams were added.
    StreamsAdded(u16),
    /// The SSN/TSN reset was performed (RFC 6525 5.2.7 with 5.2.4): this end's next
    /// TSN is `receivers_next`, it expects the peer's next at `senders_next`, and every
    /// SSN both ways starts again at 0.
    AssocReset {
        senders_next: u32,
        receivers_next: u32,
    },
    /// The request was refused or failed; nothing changes.
    Refused(ReconfigResult),
}

/// What the receiver of a request does to its own streams.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Reset these incoming streams (all if empty) to expect SSN 0.
    ResetIncoming(Vec<u16>),
    /// Add `n` incoming streams.
    AddIncoming(u16),
    /// Add `n` outgoing streams.
    AddOutgoing(u16),
    /// SSN/TSN reset performed here (RFC 6525 5.2.4): the peer's next TSN is
    /// `receivers_next` (everything before it counts as received, G4) and every SSN
    /// both ways starts again at 0 (G5).
    ResetAssoc { receivers_next: u32 },
}

/// The receiver's view of its streams, to decide a request.
#[derive(Copy, Clone, Debug)]
pub struct Local {
    /// Cumulative TSN received from the peer.
    pub cum_tsn: u32,
    pub in_streams: u16,
    pub out_streams: u16,
    /// The last TSN this end assigned (its own Sender's Last Assigned TSN).
    pub last_assigned_tsn: u32,
    /// This end has sent data not yet acknowledged (an SSN/TSN reset waits).
    pub in_flight: bool,
}

/// Counters (summary.json `reconfig_*`, `streams_reset`, `streams_added`).
#[derive(Clone, Debug, Default)]
pub struct ReconfigStats {
    /// Requests sent for the first time.
    pub requests: u64,
    /// Requests resent by the timer.
    pub retransmissions: u64,
    /// Responses sent.
    pub responses: u64,
    /// Streams reset and added by performed requests, on either side.
    pub streams_reset: u64,
    pub streams_added: u64,
    /// Requests refused (any result other than performed, nothing to do, in progress).
    pub refused: u64,
}

#[derive(Clone, Debug)]
struct Outstanding {
    request: Request,
    chunk: ReconfigChunk,
    req_seq: u32,
    retries: u32,
}

/// A receiver's Outgoing SSN Reset it answered "in progress": performed once the
/// cumulative TSN reaches `last_tsn` (RFC 6525 5.2.2).
#[derive(Clone, Debug)]
struct Deferred {
    last_tsn: u32,
    streams: Vec<u16>,
}

#[derive(Clone, Debug)]
pub struct Reconfig {
    /// The next Re-configuration Request Sequence Number this end uses (5.1.1:
    /// initialized to its initial TSN).
    next_req_seq: u32,
    /// The one the peer's next request must carry (its initial TSN at first).
    peer_next_seq: u32,
    /// The result of the peer's last request, repeated to a retransmission of it
    /// (5.2.1: a request with the previous sequence number is answered again).
    last_result: Option<ReconfigResult>,
    /// The (Sender's, Receiver's) Next TSN of the peer's last request if it was a
    /// performed SSN/TSN reset: a retransmission of it gets the same pair (4.4).
    last_tsns: Option<(u32, u32)>,
    deferred: Option<Deferred>,
    outstanding: Option<Outstanding>,
    queue: VecDeque<Request>,
    pub stats: ReconfigStats,
}

impl Reconfig {
    pub fn new(local_initial_tsn: u32, peer_initial_tsn: u32) -> Self {
        Reconfig {
            next_req_seq: local_initial_tsn,
            peer_next_seq: peer_initial_tsn,
            last_result: None,
            last_tsns: None,
            deferred: None,
            outstanding: None,
            queue: VecDeque::new(),
            stats: ReconfigStats::default(),
        }
    }

    pub fn queue(&mut self, r: Request) {
        self.queue.push_back(r);
    }

    /// An outgoing or SSN/TSN reset is queued or outstanding: no new message may begin.
    pub fn holds_data(&self) -> bool {
        let resets = |r: &Request| matches!(r, Request::ResetStreams(_) | Request::ResetAll);
        self.queue.iter().any(resets)
            || self
                .outstanding
                .as_ref()
                .is_some_and(|o| resets(&o.request))
    }

    pub fn is_outstanding(&self) -> bool {
        self.outstanding.is_some()
    }

    /// The next queued request as a RE-CONFIG chunk, if none is outstanding (5.1.1:
    /// one at a time) and, for a reset, no message is half cut (`mid_message`); an
    /// SSN/TSN reset also waits until none of this end's data is in flight
    /// (`in_flight`): its receiver treats everything sent before it as acknowledged
    /// (5.2.4 G3), so nothing may still need retransmitting.
    pub fn poll(
        &mut self,
        last_assigned_tsn: u32,
        mid_message: bool,
        in_flight: bool,
    ) -> Option<ReconfigChunk> {
        if self.outstanding.is_some() {
            return None;
        }
        let front = self.queue.front()?;
        let waits = match front {
            Request::ResetStreams(_) => mid_message,
            Request::ResetAll => mid_message || in_flight,
            _ => false,
        };
        if waits {
            return None;
        }
        let request = self.queue.pop_front()?;
        let req_seq = self.next_req_seq;
        self.next_req_seq = self.next_req_seq.wrapping_add(1);
        let param = match &request {
            Request::ResetStreams(streams) => ReconfigParam::OutgoingSsnReset {
                req_seq,
                // 4.1: the last request received from the peer's sequence number space
                // (the one before its next expected).
                resp_seq: self.peer_next_seq.wrapping_sub(1),
                last_tsn: last_assigned_tsn,
                streams: streams.clone(),
            },
            Request::AddStreams(n) => ReconfigParam::AddOutgoingStreams { req_seq, count: *n },
            Request::ResetIncoming(streams) => ReconfigParam::IncomingSsnReset {
                req_seq,
                streams: streams.clone(),
            },
            Request::ResetAll => ReconfigParam::SsnTsnReset { req_seq },
        };
        let chunk = ReconfigChunk {
            params: vec![param],
        };
        self.stats.requests += 1;
        self.outstanding = Some(Outstanding {
            request,
            chunk: chunk.clone(),
            req_seq,
            retries: 0,
        });
        Some(chunk)
    }

    /// The timer expired: the outstanding request goes again, unchanged (5.1.1), and
    /// the number of expiries so far (the RTO backs off with it).
    pub fn on_timer(&mut self) -> Option<(ReconfigChunk, u32)> {
        let o = self.outstanding.as_mut()?;
        o.retries += 1;
        self.stats.retransmissions += 1;
        Some((o.chunk.clone(), o.retries))
    }

    /// A response to our outstanding request. "In progress" keeps it outstanding (the
    /// timer resends it, 5.2.2); any other result ends it. A response to anything
    /// else is ignored. `tsns`: the response's (Sender's, Receiver's) Next TSN.
    pub fn on_response(
        &mut self,
        resp_seq: u32,
        result: ReconfigResult,
        tsns: Option<(u32, u32)>,
    ) -> Option<Outcome> {
        let o = self.outstanding.as_ref()?;
        if o.req_seq != resp_seq || result == ReconfigResult::InProgress {
            return None;
        }
        let o = self.outstanding.take()?;
        Some(match (o.request, result) {
            (Request::ResetStreams(s), ReconfigResult::Performed | ReconfigResult::NothingToDo) => {
                self.stats.streams_reset += s.len() as u64;
                Outcome::StreamsReset(s)
            }
            (Request::AddStreams(n), ReconfigResult::Performed) => {
                self.stats.streams_added += u64::from(n);
                Outcome::StreamsAdded(n)
            }
            // 4.4: a performed SSN/TSN reset is answered with both TSNs; without them
            // there is nothing to apply, and the request counts as failed.
            (Request::ResetAll, ReconfigResult::Performed) => match tsns {
                Some((senders_next, receivers_next)) => Outcome::AssocReset {
                    senders_next,
                    receivers_next,
                },
                None => {
                    self.stats.refused += 1;
                    Outcome::Refused(ReconfigResult::Performed)
                }
            },
            (_, r @ (ReconfigResult::Performed | ReconfigResult::NothingToDo)) => {
                Outcome::Refused(r)
            }
            (_, r) => {
                self.stats.refused += 1;
                Outcome::Refused(r)
            }
        })
    }

    /// A request from the peer (5.2): the parameters to send back (a response, or for
    /// an Incoming SSN Reset our Outgoing SSN Reset request) and what to do to our
    /// streams.
    pub fn on_request(
        &mut self,
        p: &ReconfigParam,
        local: Local,
    ) -> (Vec<ReconfigParam>, Vec<Action>) {
        let Some(seq) = p.req_seq() else {
            return (Vec::new(), Vec::new());
        };
        let respond = |result| ReconfigParam::Response {
            resp_seq: seq,
            result,
            tsns: None,
        };
        // 5.2.1: the expected number is processed; the previous one is a
        // retransmission, answered with the result it got (a deferred reset done since
        // is reported as performed); any other is a bad sequence number.
        if seq != self.peer_next_seq {
            let result = if seq == self.peer_next_seq.wrapping_sub(1) {
                self.deferred_result(local)
            } else {
                None
            };
            let result = result.unwrap_or(ReconfigResult::BadSequenceNumber);
            self.stats.responses += 1;
            // A retransmitted SSN/TSN reset gets the TSNs it was answered with.
            let tsns = self
                .last_tsns
                .filter(|_| result == ReconfigResult::Performed)
                .filter(|_| matches!(p, ReconfigParam::SsnTsnReset { .. }));
            return (
                vec![ReconfigParam::Response {
                    resp_seq: seq,
                    result,
                    tsns,
                }],
                Vec::new(),
            );
        }
        if let ReconfigParam::SsnTsnReset { .. } = p {
            return self.on_tsn_reset(seq, local);
        }
        self.last_tsns = None;
        self.peer_next_seq = seq.wrapping_add(1);
        let mut actions = Vec::new();
        let mut out = Vec::new();
        let result = match p {
            ReconfigParam::OutgoingSsnReset {
                last_tsn,
                streams,
                resp_seq,
                ..
            } => {
                // 5.2.3: the peer's answer to our Incoming SSN Reset Request.
                if self.outstanding.as_ref().is_some_and(|o| {
                    o.req_seq == *resp_seq && matches!(o.request, Request::ResetIncoming(_))
                }) {
                    self.outstanding = None;
                }
                if streams.iter().any(|&s| s >= local.in_streams) {
                    ReconfigResult::Denied
                } else if tsn_le(*last_tsn, local.cum_tsn) {
                    self.stats.streams_reset += streams.len() as u64;
                    actions.push(Action::ResetIncoming(streams.clone()));
                    ReconfigResult::Performed
                } else {
                    // 5.2.2: not every TSN up to the sender's last is here yet.
                    self.deferred = Some(Deferred {
                        last_tsn: *last_tsn,
                        streams: streams.clone(),
                    });
                    ReconfigResult::InProgress
                }
            }
            ReconfigParam::IncomingSsnReset { streams, .. } => {
                if streams.iter().any(|&s| s >= local.out_streams) {
                    ReconfigResult::Denied
                } else if self.outstanding.is_some() {
                    ReconfigResult::AlreadyInProgress
                } else {
                    // 5.2.3: answered by an Outgoing SSN Reset Request of our own whose
                    // response sequence number is this request's.
                    let req_seq = self.next_req_seq;
                    self.next_req_seq = req_seq.wrapping_add(1);
                    let param = ReconfigParam::OutgoingSsnReset {
                        req_seq,
                        resp_seq: seq,
                        last_tsn: local.last_assigned_tsn,
                        streams: streams.clone(),
                    };
                    self.stats.requests += 1;
                    self.outstanding = Some(Outstanding {
                        request: Request::ResetStreams(streams.clone()),
                        chunk: ReconfigChunk {
                            params: vec![param.clone()],
                        },
                        req_seq,
                        retries: 0,
                    });
                    out.push(param);
                    self.last_result = Some(ReconfigResult::Performed);
                    return (out, actions);
                }
            }
            ReconfigParam::SsnTsnReset { .. } => return self.on_tsn_reset(seq, local),
            ReconfigParam::AddOutgoingStreams { count, .. }
            | ReconfigParam::AddIncomingStreams { count, .. } => {
                let outgoing = matches!(p, ReconfigParam::AddIncomingStreams { .. });
                let have = if outgoing {
                    local.out_streams
                } else {
                    local.in_streams
                };
                // 5.2.5, 5.2.6: more than 65535 streams in all is denied.
                if u32::from(have) + u32::from(*count) > u32::from(u16::MAX) {
                    ReconfigResult::Denied
                } else {
                    self.stats.streams_added += u64::from(*count);
                    actions.push(if outgoing {
                        Action::AddOutgoing(*count)
                    } else {
                        Action::AddIncoming(*count)
                    });
                    ReconfigResult::Performed
                }
            }
            ReconfigParam::Response { .. } => return (out, actions),
        };
        if result == ReconfigResult::Denied {
            self.stats.refused += 1;
        }
        self.last_result = Some(result);
        self.stats.responses += 1;
        out.push(respond(result));
        (out, actions)
    }

    /// An SSN/TSN Reset Request with the expected sequence number (RFC 6525 5.2.4).
    /// With this end's own request outstanding: "already in progress" (4), as Linux
    /// and usrsctp answer. With data of its own in flight: "in progress" (6), the
    /// sequence number not used up, so the requester's retransmission is decided
    /// afresh (Linux's rule: G3 would otherwise count that data as acknowledged).
    /// Otherwise performed: G1, the Receiver's Next TSN, the peer's next, is the
    /// smallest TSN this end has not acknowledged plus 2^31; G2, the Sender's Next
    /// TSN, this end's own next TSN, unchanged; G4 and G5 are the `ResetAssoc` action.
    fn on_tsn_reset(&mut self, seq: u32, local: Local) -> (Vec<ReconfigParam>, Vec<Action>) {
        self.stats.responses += 1;
        let respond = |result, tsns| {
            vec![ReconfigParam::Response {
                resp_seq: seq,
                result,
                tsns,
            }]
        };
        if local.in_flight && self.outstanding.is_none() {
            return (respond(ReconfigResult::InProgress, None), Vec::new());
        }
        self.peer_next_seq = seq.wrapping_add(1);
        if self.outstanding.is_some() {
            self.stats.refused += 1;
            self.last_tsns = None;
            self.last_result = Some(ReconfigResult::AlreadyInProgress);
            return (respond(ReconfigResult::AlreadyInProgress, None), Vec::new());
        }
        let receivers_next = local.cum_tsn.wrapping_add(1).wrapping_add(1 << 31);
        let senders_next = local.last_assigned_tsn.wrapping_add(1);
        self.stats.streams_reset += u64::from(local.in_streams);
        self.last_tsns = Some((senders_next, receivers_next));
        self.last_result = Some(ReconfigResult::Performed);
        // A deferred Outgoing SSN Reset is overtaken: every stream is reset now.
        self.deferred = None;
        (
            respond(
                ReconfigResult::Performed,
                Some((senders_next, receivers_next)),
            ),
            vec![Action::ResetAssoc { receivers_next }],
        )
    }

    /// The answer to a retransmitted request: its result, or "performed" once a
    /// deferred reset has been done.
    fn deferred_result(&self, local: Local) -> Option<ReconfigResult> {
        match (&self.deferred, self.last_result) {
            (Some(d), Some(ReconfigResult::InProgress)) if tsn_le(d.last_tsn, local.cum_tsn) => {
                Some(ReconfigResult::Performed)
            }
            (_, r) => r,
        }
    }

    /// 5.2.2: a deferred reset whose TSNs have all arrived is performed now; the
    /// streams to reset, once.
    pub fn deferred_due(&mut self, cum_tsn: u32) -> Option<Vec<u16>> {
        let d = self.deferred.as_ref()?;
        if !tsn_le(d.last_tsn, cum_tsn) || self.last_result != Some(ReconfigResult::InProgress) {
            return None;
        }
        let streams = d.streams.clone();
        self.stats.streams_reset += streams.len() as u64;
        self.last_result = Some(ReconfigResult::Performed);
        Some(streams)
    }
}
