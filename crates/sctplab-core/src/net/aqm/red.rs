//! RED as ns-2.35's `Queue/RED` (queue/red.cc, defaults from tcl/lib/ns-default.tcl):
//! the average queue in packets or bytes (`queue_in_bytes_`), the automatic thresholds
//! and weight from the link's rate and delay (`initialize_params`), gentle mode, the
//! uniform inter-drop spacing of `wait_` (`modify_p`), the byte-scaled probability of
//! `bytes_`, and `setbit_` (our `ecn`) with `use_mark_p_`/`mark_p_`. Adaptive RED,
//! `cautious_`, `drop_front_`/`drop_rand_` and `doubleq_` are not modelled (all off by
//! default in ns-2.35).

use super::{Admit, AqmRng, DropCause, LinkState};

/// The user's knobs, as ns-2.35's bound variables (0 or -1 meaning "automatic" where
/// ns-2 says so).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RedParams {
    /// `thresh_`: minimum threshold in packets; 0 = automatic.
    pub thresh: f64,
    /// `maxthresh_`: maximum threshold in packets; 0 = automatic (3 x thresh).
    pub maxthresh: f64,
    /// `q_weight_`: the EWMA weight; -1, 0 or -2 = ns-2's automatic choices.
    pub q_weight: f64,
    /// `linterm_`: 1 / max_p.
    pub linterm: f64,
    /// `mean_pktsize_` in bytes.
    pub mean_pktsize: u32,
    pub gentle: bool,
    pub wait: bool,
    /// `bytes_`: the drop probability scales with the packet's size.
    pub bytes: bool,
    /// `queue_in_bytes_`: the average and the thresholds in bytes.
    pub queue_in_bytes: bool,
    /// `targetdelay_` in seconds (automatic thresh).
    pub targetdelay: f64,
    pub mark_p: f64,
    pub use_mark_p: bool,
    /// `setbit_`: mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

impl Default for RedParams {
    /// ns-2.35's defaults (`ns` prints them: `Queue/RED set thresh_` etc.).
    fn default() -> Self {
        RedParams {
            thresh: 0.0,
            maxthresh: 0.0,
            q_weight: -1.0,
            linterm: 10.0,
            mean_pktsize: 500,
            gentle: true,
            wait: true,
            bytes: true,
            queue_in_bytes: true,
            targetdelay: 0.005,
            mark_p: 0.1,
            use_mark_p: true,
            ecn: false,
        }
    }
}

/// The parameters once the link is known (`REDQueue::reset` after `initialize_params`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RedResolved {
    /// Packets per second of mean size the link carries (`ptc`).
    pub ptc: f64,
    pub q_w: f64,
    /// Thresholds in the average's unit (packets, or bytes with `queue_in_bytes`).
    pub th_min: f64,
    pub th_max: f64,
    pub max_p: f64,
    /// 1 - q_w, the average's decay per packet time.
    pub keep: f64,
    v_a: f64,
    v_b: f64,
    v_c: f64,
    v_d: f64,
}

impl RedResolved {
    /// `initialize_params` and `reset` of red.cc for a link of `rate_bps` and one-way
    /// `delay_s`.
    pub fn new(p: &RedParams, rate_bps: u64, delay_s: f64) -> Self {
        let ptc = rate_bps as f64 / (8.0 * f64::from(p.mean_pktsize));
        let q_w = if p.q_weight == 0.0 {
            1.0 - (-1.0 / ptc).exp()
        } else if p.q_weight == -1.0 {
            let rtt = (3.0 * (delay_s + 1.0 / ptc)).max(0.1);
            1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
        } else if p.q_weight == -2.0 {
            1.0 - (-10.0 / ptc).exp()
        } else {
            p.q_weight
        };
        let mut th_min_pkts = p.thresh;
        if th_min_pkts == 0.0 {
            th_min_pkts = (p.targetdelay * ptc / 2.0).max(5.0);
        }
        let th_max_pkts = if p.maxthresh == 0.0 {
            3.0 * th_min_pkts
        } else {
            p.maxthresh
        };
        let scale = if p.queue_in_bytes {
            f64::from(p.mean_pktsize)
        } else {
            1.0
        };
        let (th_min, th_max) = (th_min_pkts * scale, th_max_pkts * scale);
        let mut th_diff = th_max - th_min;
        if th_diff == 0.0 {
            th_diff = 1.0;
        }
        let max_p = 1.0 / p.linterm;
        RedResolved {
            ptc,
            q_w,
            th_min,
            th_max,
            max_p,
            keep: 1.0 - q_w,
            v_a: 1.0 / th_diff,
            v_b: -th_min / th_diff,
            v_c: (1.0 - max_p) / th_max,
            v_d: 2.0 * max_p - 1.0,
        }
    }

    /// `calculate_p_new`: the drop probability for an average queue `ave`.
    pub fn p_for_average(&self, ave: f64, gentle: bool) -> f64 {
        let p = if gentle && ave >= self.th_max {
            // From max_p at th_max to 1 at 2 th_max.
            self.v_c * ave + self.v_d
        } else if !gentle && ave >= self.th_max {
            1.0
        } else {
            (self.v_a * ave + self.v_b) * self.max_p
        };
        p.min(1.0)
    }
}

/// `modify_p`: uniform rather than geometric spacing between drops. `count` and
/// `count_bytes` are the packets and bytes since the last drop; `size` the packet's.
pub fn modify_p(p: f64, count: u32, count_bytes: u64, size: u32, prm: &RedParams) -> f64 {
    let count1 = if prm.bytes {
        // An integer division in red.cc.
        (count_bytes / u64::from(prm.mean_pktsize)) as f64
    } else {
        f64::from(count)
    };
    let mut p = if prm.wait {
        if count1 * p < 1.0 {
            0.0
        } else if count1 * p < 2.0 {
            p / (2.0 - count1 * p)
        } else {
            1.0
        }
    } else if count1 * p < 1.0 {
        p / (1.0 - count1 * p)
    } else {
        1.0
    };
    if prm.bytes && p < 1.0 {
        p = p * f64::from(size) / f64::from(prm.mean_pktsize);
    }
    p.min(1.0)
}

/// RED decides once, at a packet's arrival, and serves in arrival order, so its packets
/// wait in the link's own drop-tail FIFO (`net/queue.rs`, what ns-2.35's `REDQueue`
/// keeps in its `PacketQueue`): the world asks `decide` and, if the packet is admitted,
/// queues or sends it as on a drop-tail link (`world/aqm.rs`'s `enqueue_red`).
#[derive(Clone, Debug)]
pub struct Red {
    pub params: RedParams,
    pub r: RedResolved,
    /// The average queue (`edv_.v_ave`).
    pub ave: f64,
    count: u32,
    count_bytes: u64,
    /// The average was above th_min at the last arrival (`edv_.old`).
    old: bool,
    /// ns-2's `qlim_` in the average's unit (packets, or bytes with `queue_in_bytes`).
    qlim: f64,
    /// The link's `queue_bytes`.
    limit_bytes: Option<u64>,
    rng: AqmRng,
}

impl Red {
    /// RED on a link of `rate_bps` and one-way `delay_s` whose `queue` is `limit` (ns-2's
    /// `qlim_`) and `queue_bytes` is `limit_bytes`.
    pub fn new(
        params: RedParams,
        rate_bps: u64,
        delay_s: f64,
        limit: u32,
        limit_bytes: Option<u64>,
        rng: AqmRng,
    ) -> Self {
        let qlim = if params.queue_in_bytes {
            f64::from(limit) * f64::from(params.mean_pktsize)
        } else {
            f64::from(limit)
        };
        Red {
            r: RedResolved::new(&params, rate_bps, delay_s),
            params,
            ave: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            qlim,
            limit_bytes,
            rng,
        }
    }

    /// `REDQueue::enque`'s decision for an arriving packet of `size` bytes (`ect`:
    /// ECN-capable) that finds `waiting` packets of `waiting_bytes` bytes in the queue
    /// (not counting the one in transmission), with the average, the count and the draw
    /// it implies. `Queued` or `Marked`: the packet joins the FIFO.
    #[inline]
    pub fn decide(
        &mut self,
        now: u64,
        size: u32,
        ect: bool,
        link: LinkState,
        waiting: usize,
        waiting_bytes: u64,
    ) -> Admit {
        let qlen = if self.params.queue_in_bytes {
            waiting_bytes as f64
        } else {
            waiting as f64
        };
        // (1 - q_w)^(m+1), red.cc's m + 1 multiplications: one when the link was busy
        // (most arrivals under load).
        let decay = if link.busy {
            self.r.keep
        } else {
            self.idle_decay(now, link.idle_since_ns)
        };
        self.ave = self.ave * decay + self.r.q_w * qlen;
        self.count += 1;
        self.count_bytes += u64::from(size);
        let mut admit = Admit::Queued;
        if self.ave >= self.r.th_min && qlen > 1.0 {
            admit = self.early(size, ect);
        } else {
            self.old = false;
        }
        if qlen >= self.qlim
            || self
                .limit_bytes
                .is_some_and(|l| waiting_bytes + u64::from(size) >= l)
        {
            admit = Admit::Dropped(DropCause::Limit);
        }
        if matches!(admit, Admit::Dropped(_)) {
            // A forced drop (red.cc: drop_tail_ picks the arriving packet) resets the
            // count (the "bug-fix from Philip Liu", ns1_compat_ off), as an early drop
            // does.
            self.count = 0;
            self.count_bytes = 0;
        }
        admit
    }

    /// ns-2's queue is idle from the end of its last transmission until an arrival: it
    /// pretends m packets of mean size left meanwhile, and the average decays by
    /// (1 - q_w)^(m+1).
    #[inline]
    fn idle_decay(&self, now: u64, idle_since_ns: u64) -> f64 {
        let idle_s = now.saturating_sub(idle_since_ns) as f64 / 1e9;
        let m = (self.r.ptc * idle_s).min(f64::from(i32::MAX - 1)) as i32;
        if m == 0 {
            self.r.keep
        } else {
            self.r.keep.powi(m + 1)
        }
    }

    /// The average is at least th_min and more than one packet waits: an early drop or
    /// mark may be due (out of line: below th_min, most arrivals never come here).
    #[inline(never)]
    fn early(&mut self, size: u32, ect: bool) -> Admit {
        let p = &self.params;
        let beyond = if p.gentle {
            self.ave >= 2.0 * self.r.th_max
        } else {
            self.ave >= self.r.th_max
        };
        if !p.use_mark_p && beyond {
            return Admit::Dropped(DropCause::Aqm);
        }
        if !self.old {
            // The average has just crossed th_min (or the queue was empty).
            self.count = 1;
            self.count_bytes = u64::from(size);
            self.old = true;
            return Admit::Queued;
        }
        let p1 = self.r.p_for_average(self.ave, p.gentle);
        let prob = modify_p(p1, self.count, self.count_bytes, size, p);
        if self.rng.uniform() <= prob {
            self.count = 0;
            self.count_bytes = 0;
            if p.ecn && ect && (!p.use_mark_p || p1 <= p.mark_p) {
                return Admit::Marked;
            }
            return Admit::Dropped(DropCause::Aqm);
        }
        Admit::Queued
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkts() -> RedParams {
        RedParams {
            thresh: 5.0,
            maxthresh: 15.0,
            queue_in_bytes: false,
            bytes: false,
            ..RedParams::default()
        }
    }

    /// calculate_p_new by hand: th_min 5, th_max 15, max_p 0.1.
    #[test]
    fn drop_probability_for_an_average() {
        let r = RedResolved::new(&pkts(), 10_000_000, 0.01);
        // Below th_max: max_p (ave - th_min) / (th_max - th_min).
        assert!((r.p_for_average(10.0, true) - 0.05).abs() < 1e-12);
        assert!((r.p_for_average(5.0, true)).abs() < 1e-12);
        // Gentle: from max_p at th_max to 1 at 2 th_max: 0.1 + 0.9 (20 - 15) / 15 = 0.4.
        assert!((r.p_for_average(20.0, true) - 0.4).abs() < 1e-12);
        assert!((r.p_for_average(15.0, true) - 0.1).abs() < 1e-12);
        assert_eq!(r.p_for_average(30.0, true), 1.0);
        assert_eq!(r.p_for_average(40.0, true), 1.0);
        // Not gentle: 1 from th_max on.
        assert_eq!(r.p_for_average(15.0, false), 1.0);
    }

    /// modify_p by hand, with wait_ (uniform spacing 1/p .. 2/p packets) and without.
    #[test]
    fn count_spreads_the_drops() {
        let mut p = pkts();
        // wait_: count * p < 1 gives 0; 1 <= count p < 2 gives p / (2 - count p).
        assert_eq!(modify_p(0.05, 19, 0, 1000, &p), 0.0);
        assert!((modify_p(0.05, 20, 0, 1000, &p) - 0.05).abs() < 1e-12);
        assert!((modify_p(0.05, 30, 0, 1000, &p) - 0.1).abs() < 1e-12);
        assert_eq!(modify_p(0.05, 40, 0, 1000, &p), 1.0);
        // Without wait_: p / (1 - count p).
        p.wait = false;
        assert!((modify_p(0.05, 10, 0, 1000, &p) - 0.1).abs() < 1e-12);
        assert_eq!(modify_p(0.05, 20, 0, 1000, &p), 1.0);
        // bytes_: the count is count_bytes / mean_pktsize (integer division) and the
        // probability scales by size / mean_pktsize: 30999 B / 500 = 61 packets,
        // 61 * 0.02 = 1.22, 0.02 / 0.78, times 1000 / 500.
        let b = RedParams {
            bytes: true,
            ..pkts()
        };
        let want = 0.02 / (2.0 - 61.0 * 0.02) * 2.0;
        assert!((modify_p(0.02, 0, 30_999, 1000, &b) - want).abs() < 1e-12);
    }

    /// initialize_params for 1.5 Mb/s, 10 ms, the ns-2.35 defaults (mean_pktsize 500):
    /// ptc = 375 pkt/s; rtt = max(3 (0.01 + 1/375), 0.1) = 0.1; q_w = 1 - exp(-1/375);
    /// thresh = max(5, 0.005 * 375 / 2) = 5, maxthresh 15, in bytes x 500.
    #[test]
    fn automatic_parameters() {
        let r = RedResolved::new(&RedParams::default(), 1_500_000, 0.01);
        assert_eq!(r.ptc, 375.0);
        assert!((r.q_w - (1.0 - (-1.0f64 / 375.0).exp())).abs() < 1e-15);
        assert_eq!((r.th_min, r.th_max), (2500.0, 7500.0));
        // 100 Mb/s: ptc 25000, thresh = 0.005 * 25000 / 2 = 62.5 packets.
        let r = RedResolved::new(&RedParams::default(), 100_000_000, 0.01);
        assert_eq!(r.th_min, 62.5 * 500.0);
    }

    /// What ns-2.35 itself computes: `$ns duplex-link $a $b BW D RED` then
    /// `[[$ns link $a $b] queue] set q_weight_` (and thresh_, maxthresh_) prints these
    /// (q_weight_ written to the 17 digits that identify the double).
    #[test]
    fn automatic_parameters_match_ns2() {
        for (bw, delay, q_w, th, maxth) in [
            (1_500_000, 0.010, 0.002_663_114_269_499_056, 5.0, 15.0),
            (3_000_000, 0.250, 0.000_176_819_025_266_450_3, 5.0, 15.0),
            (100_000_000, 0.010, 3.999_920_001_063_195e-5, 62.5, 187.5),
        ] {
            let r = RedResolved::new(&RedParams::default(), bw, delay);
            assert!((r.q_w - q_w).abs() < 1e-15, "{bw}: {}", r.q_w);
            assert_eq!((r.th_min, r.th_max), (th * 500.0, maxth * 500.0), "{bw}");
        }
    }

    #[test]
    fn hard_limit_is_a_forced_drop() {
        let mut red = Red::new(pkts(), 10_000_000, 0.01, 3, None, AqmRng::new(1, "t"));
        let busy = LinkState {
            busy: true,
            idle_since_ns: 0,
        };
        for waiting in 0..3 {
            let bytes = waiting as u64 * 1000;
            assert_eq!(
                red.decide(0, 1000, false, busy, waiting, bytes),
                Admit::Queued
            );
        }
        // ns-2's RED refuses when qlen >= qlim: 3 waiting, limit 3.
        assert_eq!(
            red.decide(0, 1000, false, busy, 3, 3000),
            Admit::Dropped(DropCause::Limit)
        );
        // The average moved on every arrival: 0, then q_w * 1, ...
        assert!(red.ave > 0.0);
        // The link's queue_bytes refuses a packet whose bytes would reach it.
        let mut red = Red::new(
            pkts(),
            10_000_000,
            0.01,
            100,
            Some(2500),
            AqmRng::new(1, "t"),
        );
        assert_eq!(red.decide(0, 1000, false, busy, 1, 1000), Admit::Queued);
        assert_eq!(
            red.decide(0, 1000, false, busy, 2, 1500),
            Admit::Dropped(DropCause::Limit)
        );
    }

    /// red.cc's idle correction: after an idle time the average decays as if m =
    /// floor(ptc * idle) packets of mean size had left, (1 - q_w)^(m+1) in all; a busy
    /// link's arrival decays it once. 10 Mb/s, 500-byte packets: ptc = 2500 pkt/s, so
    /// 2 ms idle is m = 5.
    #[test]
    fn idle_time_decays_the_average() {
        let r = RedResolved::new(&pkts(), 10_000_000, 0.01);
        assert_eq!(r.ptc, 2500.0);
        let mut red = Red::new(pkts(), 10_000_000, 0.01, 100, None, AqmRng::new(1, "t"));
        red.ave = 8.0;
        let idle = LinkState {
            busy: false,
            idle_since_ns: 1_000_000,
        };
        red.decide(3_000_000, 500, false, idle, 4, 2000);
        let keep = 1.0 - r.q_w;
        let want = 8.0 * keep.powi(6) + r.q_w * 4.0;
        assert_eq!(red.ave, want);
        let busy = LinkState {
            busy: true,
            idle_since_ns: 0,
        };
        red.decide(3_000_000, 500, false, busy, 5, 2500);
        assert_eq!(red.ave, want * keep + r.q_w * 5.0);
    }
}
