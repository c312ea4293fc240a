//! Loss models on one direction of a link.
//!
//! Several models may be active on the same link direction; a packet is lost if any of
//! them says so. Each model draws from its own random stream, so enabling one does not
//! change the draws of another. Models can be limited to data packets ("acknowledgements
//! were never dropped", seed 000 sec. 5).

use super::ids::FlowId;
use super::packet::{Packet, PacketKind};
use crate::sim::RngStream;

/// Gilbert-Elliott two-state channel. The state moves once per packet; the mean burst
/// length of the bad state is 1 / `p_bad_good` packets.
#[derive(Clone, Debug)]
pub struct GilbertElliott {
    pub p_good_bad: f64,
    pub p_bad_good: f64,
    pub loss_good: f64,
    pub loss_bad: f64,
    bad: bool,
    rng: RngStream,
}

impl GilbertElliott {
    pub fn new(
        p_good_bad: f64,
        p_bad_good: f64,
        loss_good: f64,
        loss_bad: f64,
        rng: RngStream,
    ) -> Self {
        GilbertElliott {
            p_good_bad,
            p_bad_good,
            loss_good,
            loss_bad,
            bad: false,
            rng,
        }
    }

    fn lose(&mut self) -> bool {
        // Transition first, then draw the loss in the new state: a burst starts with the
        // packet that finds the channel bad.
        let flip = if self.bad {
            self.p_bad_good
        } else {
            self.p_good_bad
        };
        if self.rng.bernoulli(flip) {
            self.bad = !self.bad;
        }
        let p = if self.bad {
            self.loss_bad
        } else {
            self.loss_good
        };
        self.rng.bernoulli(p)
    }
}

/// An explicit list of packet numbers of one flow to drop. Each listed number is dropped
/// once, the first time a packet carrying it crosses the link, so a retransmission of a
/// listed packet gets through (the Fall & Floyd 1996 drop scenarios).
#[derive(Clone, Debug)]
pub struct DropList {
    pub flow: FlowId,
    /// Sorted, deduplicated packet numbers not yet dropped.
    pending: Vec<u32>,
}

impl DropList {
    pub fn new(flow: FlowId, mut numbers: Vec<u32>) -> Self {
        numbers.sort_unstable();
        numbers.dedup();
        DropList {
            flow,
            pending: numbers,
        }
    }

    fn lose(&mut self, pkt: &Packet) -> bool {
        if pkt.flow != self.flow || pkt.data_num == 0 {
            return false;
        }
        match self.pending.binary_search(&pkt.data_num) {
            Ok(i) => {
                self.pending.remove(i);
                true
            }
            Err(_) => false,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct LossModel {
    /// Lose packets as they enter the link (before the queue) rather than on the wire.
    pub at_entry: bool,
    pub data_only: bool,
    pub bernoulli: Option<(f64, RngStream)>,
    /// Bit error rate: a packet of `n` bytes survives with probability (1 - ber)^(8n).
    pub ber: Option<(f64, RngStream)>,
    pub gilbert: Option<GilbertElliott>,
    pub drops: Option<DropList>,
}

impl LossModel {
    pub fn is_active(&self) -> bool {
        self.bernoulli.is_some()
            || self.ber.is_some()
            || self.gilbert.is_some()
            || self.drops.is_some()
    }

    /// Decides the fate of one packet crossing the link. Every active random model draws
    /// for every eligible packet, whatever the others decide, so each stream advances
    /// the same way whichever combination of models is enabled.
    pub fn lose(&mut self, pkt: &Packet) -> bool {
        if self.data_only && pkt.kind != PacketKind::Data {
            return false;
        }
        let mut lost = false;
        if let Some(drops) = &mut self.drops {
            lost |= drops.lose(pkt);
        }
        if let Some((p, rng)) = &mut self.bernoulli {
            lost |= rng.bernoulli(*p);
        }
        if let Some((ber, rng)) = &mut self.ber {
            let p = 1.0 - (1.0 - *ber).powf(8.0 * f64::from(pkt.size));
            lost |= rng.bernoulli(p);
        }
        if let Some(ge) = &mut self.gilbert {
            lost |= ge.lose();
        }
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data_packet(num: u32) -> Packet {
        Packet {
            data_num: num,
            size: 1000,
            ..Packet::default()
        }
    }

    #[test]
    fn bernoulli_loss_is_within_binomial_band() {
        let mut m = LossModel {
            bernoulli: Some((0.01, RngStream::new(1, "t"))),
            ..LossModel::default()
        };
        let n = 100_000;
        let lost = (0..n).filter(|_| m.lose(&data_packet(1))).count() as f64;
        // Binomial(n, 0.01): mean 1000, sd sqrt(n p (1-p)) = 31.46; accept 4 sd.
        assert!((lost - 1000.0).abs() < 4.0 * 31.46, "lost {lost}");
    }

    #[test]
    fn drop_list_drops_each_listed_number_once() {
        let mut m = LossModel {
            drops: Some(DropList::new(FlowId(0), vec![29, 15])),
            ..LossModel::default()
        };
        let lost: Vec<u32> = (1..=40).filter(|&n| m.lose(&data_packet(n))).collect();
        assert_eq!(lost, vec![15, 29]);
        // The retransmission of 15 gets through.
        assert!(!m.lose(&data_packet(15)));
        // Other flows are untouched.
        let mut other = DropList::new(FlowId(0), vec![3]);
        let mut p = data_packet(3);
        p.flow = FlowId(1);
        assert!(!other.lose(&p));
    }

    #[test]
    fn data_only_spares_acks() {
        let mut m = LossModel {
            data_only: true,
            bernoulli: Some((1.0, RngStream::new(1, "t"))),
            ..LossModel::default()
        };
        let mut ack = data_packet(0);
        ack.kind = PacketKind::Ack;
        assert!(!m.lose(&ack));
        assert!(m.lose(&data_packet(1)));
    }

    #[test]
    fn ber_loss_probability_follows_packet_size() {
        // ber 1e-5 on 1000-byte packets: 1 - (1 - 1e-5)^8000 = 0.07688 (hand calculation).
        let mut m = LossModel {
            ber: Some((1e-5, RngStream::new(9, "ber"))),
            ..LossModel::default()
        };
        let n = 100_000;
        let lost = (0..n).filter(|_| m.lose(&data_packet(1))).count() as f64;
        let p = 0.07688;
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        assert!((lost - n as f64 * p).abs() < 4.0 * sd, "lost {lost}");
    }

    #[test]
    fn gilbert_elliott_mean_burst_length() {
        // Bad state loses everything, good state nothing: bursts are sojourns in the bad
        // state, geometric with mean 1 / p_bad_good = 4 packets.
        let mut ge = GilbertElliott::new(0.05, 0.25, 0.0, 1.0, RngStream::new(5, "ge"));
        let (mut bursts, mut lost_total, mut run) = (0u64, 0u64, 0u64);
        for _ in 0..400_000 {
            if ge.lose() {
                run += 1;
            } else if run > 0 {
                bursts += 1;
                lost_total += run;
                run = 0;
            }
        }
        let mean = lost_total as f64 / bursts as f64;
        // Geometric(0.25): sd 3.46; ~4000 bursts give a standard error ~0.055; accept 5 se.
        assert!((mean - 4.0).abs() < 0.3, "mean burst {mean}");
        // Stationary loss fraction p_gb / (p_gb + p_bg) = 0.05 / 0.30 = 1/6.
        let frac = lost_total as f64 / 400_000.0;
        assert!((frac - 1.0 / 6.0).abs() < 0.01, "loss fraction {frac}");
    }
}
