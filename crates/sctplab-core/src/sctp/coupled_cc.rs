//! Coupled congestion control for a CMT association (`coupled_cc`, docs/models/cc.md
//! "Coupled congestion control"): the destinations' congestion-avoidance increase is
//! LIA's (RFC 6356) or OLIA's (Khalili et al. 2012) over every active destination
//! (`cc/coupled.rs`); slow start, the cuts at a fast retransmit and a T3 expiry, and
//! every SCTP rule of when cwnd may grow (full window, partial_bytes_acked, CUC) stay
//! the preset's. This file keeps what the formulas need beyond the paths' windows and
//! RTTs: OLIA's inter-loss distances per destination.

use super::path::Path;
use crate::cc::coupled::{self, Subflow};

/// `coupled_cc`'s algorithms (`"none"` is no `Coupled` at all).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Coupling {
    /// RFC 6356.
    Lia,
    /// Khalili et al., CoNEXT 2012 / draft-khalili-mptcp-congestion-control.
    Olia,
}

/// Bytes acknowledged on one destination, and where its last two losses fell.
#[derive(Copy, Clone, Debug, Default)]
struct LossIntervals {
    acked: f64,
    at_last_loss: f64,
    /// Bytes acked between the last two losses (OLIA's l1_r).
    between_last_two: f64,
}

impl LossIntervals {
    /// OLIA's l_r = max(l1_r, l2_r), l2_r being the bytes acked since the last loss.
    fn inter_loss(&self) -> f64 {
        self.between_last_two.max(self.acked - self.at_last_loss)
    }
}

#[derive(Clone, Debug)]
pub struct Coupled {
    pub alg: Coupling,
    dests: Vec<LossIntervals>,
}

impl Coupled {
    pub fn new(alg: Coupling) -> Self {
        Coupled {
            alg,
            dests: Vec::new(),
        }
    }

    fn dest(&mut self, d: usize) -> &mut LossIntervals {
        if self.dests.len() <= d {
            self.dests.resize(d + 1, LossIntervals::default());
        }
        &mut self.dests[d]
    }

    /// A SACK newly acknowledged `bytes` sent to destination `d`.
    pub fn on_acked(&mut self, d: usize, bytes: f64) {
        self.dest(d).acked += bytes;
    }

    /// A congestion event on `d` (a fast retransmit's cut, a T3 expiry, an ECN echo).
    /// As the authors' Linux code, an event with nothing acked since the previous one
    /// (a back-off of the same loss) does not end an interval.
    pub fn on_loss(&mut self, d: usize) {
        let l = self.dest(d);
        if l.acked > l.at_last_loss {
            l.between_last_two = l.acked - l.at_last_loss;
            l.at_last_loss = l.acked;
        }
    }

    /// The congestion-avoidance step of destination `i` where SCTP's own rule adds one
    /// MTU (RFC 9260 7.2.2: once partial_bytes_acked reaches cwnd): the coupled increase
    /// for cwnd_i bytes acknowledged, the formulas' per-ack increase summed over the
    /// window, in bytes. The destinations taking part are the active ones with an RTT
    /// estimate (a potentially-failed or inactive destination gets no new data, as
    /// Linux's OLIA counts only subflows that can send); None when `i` has no RTT
    /// estimate yet (SCTP's own step then). Never takes cwnd below one MTU.
    pub fn ca_step(&self, paths: &[Path], i: usize) -> Option<f64> {
        paths[i].rto.srtt()?;
        let mut subs: Vec<Subflow> = Vec::with_capacity(paths.len());
        let mut me = 0;
        for (j, p) in paths.iter().enumerate() {
            let Some(rtt) = p.rto.srtt().filter(|&r| r > 0.0) else {
                continue;
            };
            if j != i && !p.is_active() {
                continue;
            }
            if j == i {
                me = subs.len();
            }
            let inter_loss = self.dests.get(j).map_or(0.0, LossIntervals::inter_loss);
            subs.push(Subflow {
                cwnd: p.cwnd,
                rtt,
                inter_loss,
            });
        }
        let p = &paths[i];
        let step = match self.alg {
            Coupling::Lia => coupled::lia_increase(&subs, me, p.cwnd, p.mtu),
            Coupling::Olia => coupled::olia_increase(&subs, me, p.cwnd, p.mtu),
        };
        Some(step.max(p.mtu - p.cwnd))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sctp::path::Rto;
    use crate::sim::SimDuration;

    const M: f64 = 1468.0;

    fn path(cwnd_mtus: f64, rtt: Option<f64>) -> Path {
        let rto = Rto::new(
            SimDuration::from_secs(3),
            SimDuration::from_secs(1),
            SimDuration::from_secs(60),
        );
        let mut p = Path::new([10, 0, 0, 2], 1468, cwnd_mtus * M, 1e12, rto);
        if let Some(r) = rtt {
            p.rto.sample(r);
        }
        p
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn lia_step_is_the_rfc_increase_summed_over_one_window() {
        // Two destinations of 10 and 30 MTU at srtt 100 ms (one sample: SRTT = R, RFC
        // 9260 6.3.1 C2): alpha = 40 * (30 / 0.01) / (400)^2 = 0.75 (in MTUs). Summed
        // over cwnd_0 = 10 MTU acked: min(0.75 * 10 M * M / 40 M, 10 M * M / 10 M)
        // = min(0.1875 M, M) = 0.1875 MTU.
        let ps = [path(10.0, Some(0.1)), path(30.0, Some(0.1))];
        let c = Coupled::new(Coupling::Lia);
        assert!(close(c.ca_step(&ps, 0).unwrap_or(0.0), 0.1875 * M));
        // Destination 1: min(0.75 * 30 M * M / 40 M, M) = 0.5625 MTU.
        assert!(close(c.ca_step(&ps, 1).unwrap_or(0.0), 0.5625 * M));
    }

    #[test]
    fn inactive_destinations_and_ones_without_rtt_are_left_out() {
        // Destination 1 inactive: destination 0 alone, Reno's one MTU.
        let mut ps = [path(10.0, Some(0.1)), path(30.0, Some(0.1))];
        ps[1].state = crate::sctp::PathState::Inactive;
        let c = Coupled::new(Coupling::Lia);
        assert!(close(c.ca_step(&ps, 0).unwrap_or(0.0), M));
        // No RTT estimate on destination 1: likewise; none on 0 itself: SCTP's step.
        let ps = [path(10.0, Some(0.1)), path(30.0, None)];
        assert!(close(c.ca_step(&ps, 0).unwrap_or(0.0), M));
        assert_eq!(c.ca_step(&ps, 1), None);
    }

    #[test]
    fn olia_inter_loss_is_the_larger_of_the_last_two_intervals() {
        let mut c = Coupled::new(Coupling::Olia);
        c.on_acked(0, 1000.0);
        c.on_loss(0);
        assert_eq!(c.dests[0].inter_loss(), 1000.0);
        c.on_acked(0, 300.0);
        // l1 = 1000 (between the last two losses: start and the first), l2 = 300.
        assert_eq!(c.dests[0].inter_loss(), 1000.0);
        c.on_loss(0);
        // A second event with nothing acked since: the same loss backing off.
        c.on_loss(0);
        assert_eq!(c.dests[0].inter_loss(), 300.0);
        c.on_acked(0, 500.0);
        assert_eq!(c.dests[0].inter_loss(), 500.0);
    }

    #[test]
    fn olia_step_gives_way_on_the_largest_window_and_floors_at_one_mtu() {
        // Windows 20 and 10 MTU, srtt 100 ms both; l = 0 on 0, 1000 B on 1: M = {0},
        // B = {1}, alpha_0 = -1/2, alpha_1 = 1/2 (n = 2). Summed over cwnd_0 = 20 MTU:
        // 20 * ((20 / 0.01) / 300^2 - 0.5 / 20) = 20 * (0.0222222 - 0.025) = -0.0555556
        // MTU.
        let ps = [path(20.0, Some(0.1)), path(10.0, Some(0.1))];
        let mut c = Coupled::new(Coupling::Olia);
        c.on_acked(1, 1000.0);
        let step0 = 20.0 * (2000.0 / 90_000.0 - 0.025);
        assert!(close(c.ca_step(&ps, 0).unwrap_or(0.0), step0 * M));
        // Destination 1: 10 * ((10 / 0.01) / 90000 + 0.5 / 10) = 0.6111 MTU.
        let step1 = 10.0 * (1000.0 / 90_000.0 + 0.05);
        assert!(close(c.ca_step(&ps, 1).unwrap_or(0.0), step1 * M));
        // At one MTU a negative step does not shrink the window further.
        let ps = [path(1.0, Some(0.1)), path(0.5, Some(0.1))];
        let mut c = Coupled::new(Coupling::Olia);
        c.on_acked(1, 1000.0);
        let s = c.ca_step(&ps, 0).unwrap_or(-1.0);
        assert!(s >= 0.0 && ps[0].cwnd + s >= M);
    }
}
