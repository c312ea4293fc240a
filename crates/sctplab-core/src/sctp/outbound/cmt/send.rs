//! New data under CMT (ns-2.35 `SctpCMTAgent::SendMuch`): round robin over the
//! destinations from the one after the destination new data last went to, each active
//! one filled while its cwnd allows. Chunks marked for retransmission do not hold new
//! data back (they go by the retransmission policy, possibly elsewhere).

use super::*;

impl Outbound {
    pub(in crate::sctp::outbound) fn cmt_send_new(&mut self, now: SimTime, ps: &mut PathSet) {
        let n = ps.len();
        let Some(c) = self.cmt.as_deref_mut() else {
            return;
        };
        if n == 0 {
            return;
        }
        c.ensure(n);
        // CMT-PF: with every destination potentially failed, one becomes active.
        if c.k.pf {
            self.cmt_select_from_pf(ps);
        }
        let Some(c) = self.cmt.as_deref() else {
            return;
        };
        let start = c.last_sent.map_or(0, |l| (l + 1) % n);
        for k in 0..n {
            let d = (start + k) % n;
            if !ps.paths[d].is_active() {
                continue;
            }
            self.decay_idle_cwnd(now, ps, d);
            let limit = self.burst_limit(ps, d);
            // ns-2.35 counts Max.Burst per destination, the retransmissions of this SACK
            // included.
            let before = self.cmt.as_deref().map_or(0, |c| c.dests[d].burst);
            // A full cwnd sends nothing (`send_new_to`'s first test): under CMT most
            // SACKs open room on one destination only.
            if ps.paths[d].outstanding >= ps.paths[d].cwnd {
                continue;
            }
            let first_tsn = self.next_tsn;
            let after = self.send_new_to(now, ps, d, limit, before);
            let sent = self.next_tsn.wrapping_sub(first_tsn);
            if let Some(c) = self.cmt.as_deref_mut() {
                c.dests[d].burst = after;
                c.dests[d].chunks_sent += u64::from(sent);
                if after > before {
                    c.last_sent = Some(d);
                }
            }
        }
        self.apply_max_burst = false;
        if let Some(c) = self.cmt.as_deref_mut() {
            for d in &mut c.dests {
                d.burst = 0;
            }
        }
    }
}
