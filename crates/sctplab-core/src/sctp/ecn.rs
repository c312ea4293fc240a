//! SCTP's ECN (RFC 9260 appendix A, following RFC 3168 where the appendix defers to it;
//! usrsctp's `sctp_handle_ecn_echo` / `sctp_handle_ecn_cwr` for what the appendix leaves
//! open) for an association whose flow has `ecn = true`:
//!
//! - **Negotiation**: the INIT carries the ECN Capable parameter (0x8000); an ECN-capable
//!   server answers with one in its INIT ACK, and the client uses ECN when it finds it
//!   there. The server keeps no state before the COOKIE ECHO (RFC 9260 5.1.3), so it
//!   answers CE marks whenever it is ECN-capable itself: a CE can only come on an ECT
//!   packet, and only a client that saw the INIT ACK's parameter sends those.
//! - **Receiver**: a packet with DATA that arrives marked CE makes the receiver send an
//!   ECNE chunk carrying the packet's lowest TSN in front of every SACK until a CWR
//!   chunk with a TSN at least as high arrives; a later CE raises the TSN (usrsctp keeps
//!   one ECNE and updates its TSN).
//! - **Sender**: an ECNE cuts the window of the destination the TSN was sent to as a
//!   fast retransmit would (RFC 9260 7.2.4 step 2, or the controller's cut), once per
//!   window: not again for a TSN sent before the last cut's highest TSN (usrsctp's
//!   `cwr_window_tsn`). Nothing is retransmitted. Every ECNE is answered with a CWR
//!   carrying its TSN (appendix A), sent at once as a control chunk, but an ECNE that a
//!   CWR already covers is answered again only after a round trip (the path's RTO), in
//!   case that CWR was lost.
//!
//! docs/models/aqm.md ("ECN") lists the sources and the differences.

use super::outbound::tsn_lt;
use crate::sim::SimTime;

#[derive(Clone, Debug, Default)]
pub struct SctpEcn {
    /// This end is ECN-capable (the flow's `ecn`).
    pub capable: bool,
    /// The client saw the ECN Capable parameter in the INIT ACK: its DATA packets leave
    /// as ECT(0) and it answers ECNEs.
    pub on: bool,
    /// Receiver: the TSN of the ECNE to send with every SACK, until a CWR covers it.
    pub echo: Option<u32>,
    /// Sender: per destination (by index), the highest TSN assigned when its window was
    /// last cut for an ECNE.
    windows: Vec<Option<u32>>,
    /// Sender: the highest TSN a CWR has carried, and when that CWR was sent.
    cwr_sent: Option<(u32, SimTime)>,
    /// Window cuts made for ECNEs in the measurement window (summary `ecn_reductions`).
    pub reductions: u64,
}

/// What the sender does for an ECNE.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EcneAnswer {
    /// Cut destination `dest`'s window.
    pub cut: bool,
    /// Send a CWR carrying this TSN: the ECNE's, or a higher one already sent.
    pub cwr: Option<u32>,
}

impl SctpEcn {
    pub fn new(capable: bool) -> Self {
        SctpEcn {
            capable,
            ..SctpEcn::default()
        }
    }

    /// A packet with DATA whose lowest TSN is `lowest` arrived marked CE.
    pub fn on_ce(&mut self, lowest: u32) {
        if !self.capable {
            return;
        }
        self.echo = Some(match self.echo {
            Some(t) if tsn_lt(lowest, t) => t,
            _ => lowest,
        });
    }

    /// A CWR chunk arrived: it ends the echo if it covers the ECNE's TSN.
    pub fn on_cwr(&mut self, tsn: u32) {
        if self.echo.is_some_and(|t| !tsn_lt(tsn, t)) {
            self.echo = None;
        }
    }

    /// An ECNE for `tsn` arrived; the chunk was sent to destination `dest`, whose RTO is
    /// `rto`; `highest` is the highest TSN assigned so far. Updates the state for the
    /// answer it returns.
    pub fn on_ecne(
        &mut self,
        now: SimTime,
        tsn: u32,
        dest: usize,
        highest: u32,
        rto: crate::sim::SimDuration,
    ) -> EcneAnswer {
        if !self.on {
            return EcneAnswer {
                cut: false,
                cwr: None,
            };
        }
        if self.windows.len() <= dest {
            self.windows.resize(dest + 1, None);
        }
        let cut = self.windows[dest].is_none_or(|w| tsn_lt(w, tsn));
        if cut {
            self.windows[dest] = Some(highest);
        }
        let answer = match self.cwr_sent {
            None => true,
            Some((t, at)) => tsn_lt(t, tsn) || now >= at + rto,
        };
        let cwr = answer.then(|| match self.cwr_sent {
            Some((t, _)) if tsn_lt(tsn, t) => t,
            _ => tsn,
        });
        if let Some(t) = cwr {
            self.cwr_sent = Some((t, now));
        }
        EcneAnswer { cut, cwr }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimDuration;

    fn ms(v: u64) -> SimTime {
        SimTime::from_nanos(v * 1_000_000)
    }

    #[test]
    fn echo_until_a_covering_cwr() {
        let mut r = SctpEcn::new(true);
        assert_eq!(r.echo, None);
        r.on_ce(100);
        assert_eq!(r.echo, Some(100));
        // A later CE raises the TSN (usrsctp); an older one does not lower it.
        r.on_ce(140);
        assert_eq!(r.echo, Some(140));
        r.on_ce(120);
        assert_eq!(r.echo, Some(140));
        // A CWR below the ECNE's TSN does not end the echo; one at or above does.
        r.on_cwr(100);
        assert_eq!(r.echo, Some(140));
        r.on_cwr(140);
        assert_eq!(r.echo, None);
        // Across the TSN wrap.
        r.on_ce(u32::MAX - 1);
        r.on_cwr(3);
        assert_eq!(r.echo, None);
        // An end that is not ECN-capable never echoes.
        let mut off = SctpEcn::new(false);
        off.on_ce(7);
        assert_eq!(off.echo, None);
    }

    #[test]
    fn one_cut_per_window_per_destination() {
        let rto = SimDuration::from_millis(200);
        let mut s = SctpEcn::new(true);
        // Not negotiated: nothing.
        let none = s.on_ecne(ms(0), 10, 0, 50, rto);
        assert_eq!(
            none,
            EcneAnswer {
                cut: false,
                cwr: None
            }
        );
        s.on = true;
        // The first ECNE cuts destination 0 and is answered; TSNs up to 50 were out.
        let a = s.on_ecne(ms(0), 10, 0, 50, rto);
        assert_eq!(
            a,
            EcneAnswer {
                cut: true,
                cwr: Some(10)
            }
        );
        // The same ECNE again within a round trip: no cut, no new CWR.
        let b = s.on_ecne(ms(10), 10, 0, 60, rto);
        assert_eq!(
            b,
            EcneAnswer {
                cut: false,
                cwr: None
            }
        );
        // A newer ECNE from the same window: no cut, but a CWR so the echo stops.
        let c = s.on_ecne(ms(20), 45, 0, 60, rto);
        assert_eq!(
            c,
            EcneAnswer {
                cut: false,
                cwr: Some(45)
            }
        );
        // The old ECNE still coming after the RTO: the CWR was lost, answer again.
        let d = s.on_ecne(ms(230), 45, 0, 70, rto);
        assert_eq!(
            d,
            EcneAnswer {
                cut: false,
                cwr: Some(45)
            }
        );
        // A TSN past the cut window cuts again.
        let e = s.on_ecne(ms(240), 51, 0, 90, rto);
        assert_eq!(
            e,
            EcneAnswer {
                cut: true,
                cwr: Some(51)
            }
        );
        // Each destination has its own window.
        let f = s.on_ecne(ms(250), 52, 1, 90, rto);
        assert!(f.cut);
    }
}
