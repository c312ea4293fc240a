//! What a received packet may do before any of its chunks is processed: the bundling
//! rules (RFC 9260 3.1, 5.1, 6.10), the verification tag rules (8.5, 8.5.1) and the
//! handling of out-of-the-blue packets (8.4). A pure function of the packet and the
//! tags, so every rule is decided in one place and the chunk handlers never see a
//! packet that broke one.

use super::{Association, State};
use crate::net::wire::{Chunk, SctpRepr, cause};

/// The outcome for one packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Screen {
    /// A bundling rule broken, or tag 0 on anything but an INIT: discarded whole.
    RuleBroken,
    /// The verification tag is not ours (8.5): discarded whole.
    BadTag,
    /// Out of the blue, silently discarded (8.4 (2), (6), (7)).
    OotbDiscard,
    /// Out of the blue with a SHUTDOWN ACK: a SHUTDOWN COMPLETE with the T bit under
    /// the packet's own tag answers it (8.4 (5); 8.5.1 (E) in COOKIE-WAIT and
    /// COOKIE-ECHOED).
    OotbShutdownComplete,
    /// Out of the blue otherwise: an ABORT with the T bit under the packet's own tag
    /// (8.4 (8)).
    OotbAbort,
    /// An INIT, alone and under tag 0 (8.5.1 (A)).
    Init,
    /// A COOKIE ECHO first: the cookie decides the tag, and the chunks behind it are
    /// processed only once it has been accepted (5.1.5, 8.5.1 (D)).
    CookieEcho,
    /// ABORT or SHUTDOWN COMPLETE with the T bit under our peer's tag (8.5.1 (B),
    /// (C)): only those chunks are acted on.
    Reflected,
    /// Our own tag: every chunk is processed.
    Ours,
}

/// The receiving end's side of the checks.
#[derive(Copy, Clone, Debug)]
pub(super) struct Tags {
    pub vtag: u32,
    pub local: u32,
    pub peer: u32,
    /// Whether a TCB exists for the packet to belong to.
    pub tcb: bool,
    /// COOKIE-WAIT or COOKIE-ECHOED.
    pub setting_up: bool,
}

/// What a packet holds, gathered in one pass (every packet comes through here).
#[derive(Default)]
struct Holds {
    /// An INIT, INIT ACK or SHUTDOWN COMPLETE: chunks that must travel alone.
    alone: bool,
    cookie_echo_later: bool,
    abort: bool,
    shutdown_ack: bool,
    shutdown_complete: bool,
    reflected: bool,
    cookie_ack: bool,
    stale_cookie_error: bool,
}

fn holds(chunks: &[Chunk]) -> Holds {
    let mut h = Holds::default();
    for (i, c) in chunks.iter().enumerate() {
        match c {
            Chunk::Data(_) | Chunk::Sack(_) => {}
            Chunk::Init(_) | Chunk::InitAck(_) => h.alone = true,
            Chunk::ShutdownComplete { t_bit } => {
                h.alone = true;
                h.shutdown_complete = true;
                h.reflected |= *t_bit;
            }
            Chunk::CookieEcho { .. } => h.cookie_echo_later |= i > 0,
            Chunk::Abort { t_bit } => {
                h.abort = true;
                h.reflected |= *t_bit;
            }
            Chunk::ShutdownAck => h.shutdown_ack = true,
            Chunk::CookieAck => h.cookie_ack = true,
            Chunk::Error { causes, .. } => {
                h.stale_cookie_error |= causes.iter().any(|e| e.code == cause::STALE_COOKIE);
            }
            _ => {}
        }
    }
    h
}

pub(super) fn screen(chunks: &[Chunk], t: Tags) -> Screen {
    let Some(first) = chunks.first() else {
        return Screen::RuleBroken;
    };
    let h = holds(chunks);
    // 3.1 and 5.1: INIT, INIT ACK and SHUTDOWN COMPLETE travel alone; 6.10: a COOKIE
    // ECHO comes first. A packet that breaks either is discarded, not trimmed, so a
    // forged INIT or COOKIE ECHO cannot carry other chunks past the tag check.
    if h.alone && chunks.len() > 1 || h.cookie_echo_later {
        return Screen::RuleBroken;
    }
    if matches!(first, Chunk::Init(_)) {
        return if t.vtag == 0 {
            Screen::Init
        } else {
            Screen::BadTag
        };
    }
    // 8.5.1 (A): tag 0 belongs to an INIT only.
    if t.vtag == 0 {
        return Screen::RuleBroken;
    }
    let cookie_echo = matches!(first, Chunk::CookieEcho { .. });
    if !t.tcb {
        // 8.4, in its order.
        return if h.abort {
            Screen::OotbDiscard
        } else if cookie_echo {
            Screen::CookieEcho
        } else if h.shutdown_ack {
            Screen::OotbShutdownComplete
        } else if h.shutdown_complete || h.cookie_ack || h.stale_cookie_error {
            Screen::OotbDiscard
        } else {
            Screen::OotbAbort
        };
    }
    if cookie_echo {
        return Screen::CookieEcho;
    }
    if t.setting_up && h.shutdown_ack {
        return Screen::OotbShutdownComplete;
    }
    if h.reflected {
        return if t.peer != 0 && t.vtag == t.peer {
            Screen::Reflected
        } else {
            Screen::BadTag
        };
    }
    if t.vtag == t.local {
        Screen::Ours
    } else {
        Screen::BadTag
    }
}

impl Association {
    /// Screens a received packet (`screen`) and acts on what stops it here: counts the
    /// discarded ones, answers out-of-the-blue ones (RFC 9260 8.4), applies the chunks
    /// a reflected tag allows (8.5.1 (B), (C)), validates a leading COOKIE-ECHO. Returns
    /// the index of the first chunk the association then processes, or None.
    #[inline(always)]
    pub(super) fn admit(
        &mut self,
        sctp: &SctpRepr,
        chunks: &[Chunk],
        src: [u8; 4],
    ) -> Option<usize> {
        let verdict = screen(
            &sctp.chunks,
            Tags {
                vtag: sctp.vtag,
                local: self.local_tag,
                peer: self.peer_tag,
                tcb: self.has_tcb(),
                setting_up: matches!(self.state, State::CookieWait | State::CookieEchoed),
            },
        );
        match verdict {
            Screen::Ours | Screen::Init => Some(0),
            Screen::RuleBroken => {
                self.stats.rule_violations += 1;
                None
            }
            Screen::BadTag => {
                self.stats.bad_vtag_drops += 1;
                None
            }
            Screen::OotbDiscard | Screen::OotbShutdownComplete | Screen::OotbAbort => {
                self.stats.ootb_packets += 1;
                // RFC 9260 8.4 (5), (8): the answer reflects the packet's own tag.
                let answer = match verdict {
                    Screen::OotbShutdownComplete => Chunk::ShutdownComplete { t_bit: true },
                    Screen::OotbAbort => Chunk::Abort { t_bit: true },
                    _ => return None,
                };
                self.send_ctrl(sctp.vtag, answer, src);
                None
            }
            Screen::Reflected => {
                for c in chunks {
                    match c {
                        Chunk::Abort { t_bit: true } => {
                            self.stop_timers();
                            self.stats.aborted = true;
                        }
                        Chunk::ShutdownComplete { t_bit: true }
                            if self.state == State::ShutdownAckSent =>
                        {
                            self.stop_timers();
                        }
                        _ => {}
                    }
                }
                None
            }
            Screen::CookieEcho => {
                let Some(Chunk::CookieEcho { cookie }) = chunks.first() else {
                    return None;
                };
                if !self.on_cookie_echo(sctp.vtag, cookie) {
                    return None;
                }
                Some(1)
            }
        }
    }
}
