//! BBR v1 as Linux's `net/ipv4/tcp_bbr.c` (4.9, with 5.x's target window) and ns-3.37's
//! `TcpBbr` (`src/internet/model/tcp-bbr.cc`) run it: a model of the path (the windowed maximum of
//! per-packet delivery-rate samples, BtlBw, over 10 round trips; the windowed minimum of
//! RTT samples, RTprop, over 10 s) and a state machine (Startup, Drain, ProbeBW's
//! eight-phase gain cycle, ProbeRTT) that sets the pacing rate to gain x BtlBw and cwnd
//! to gain x BtlBw x RTprop. Loss does not cut the model; in recovery cwnd follows
//! packet conservation for a round trip, loses what each ack newly deems lost (none,
//! as the TCP sender reports them today: docs/models/cc.md), and is restored when
//! recovery ends.
//! Windows are in segments, rates in segments per second, times in seconds.

use super::{RateSample, WindowState};
use crate::sim::{SimDuration, SimTime};

/// 2 / ln 2: the smallest gain that doubles the sending rate every round trip
/// (tcp_bbr.c `bbr_high_gain`, 2885/1000 there).
pub const HIGH_GAIN: f64 = 2.885;
/// Drain's gain, the inverse of Startup's (tcp_bbr.c `bbr_drain_gain`).
pub const DRAIN_GAIN: f64 = 1.0 / HIGH_GAIN;
/// ProbeBW's cwnd gain (tcp_bbr.c `bbr_cwnd_gain`).
pub const CWND_GAIN: f64 = 2.0;
/// ProbeBW's pacing gains: probe, drain what probing queued, then cruise six round trips
/// (tcp_bbr.c `bbr_pacing_gain`, ns-3 `PACING_GAIN_CYCLE`).
pub const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// BtlBw's window in round trips (tcp_bbr.c `bbr_bw_rtts`).
pub const BW_WINDOW_ROUNDS: u64 = 10;
/// RTprop's window (tcp_bbr.c `bbr_min_rtt_win_sec`).
pub const MIN_RTT_WINDOW: SimDuration = SimDuration::from_secs(10);
/// ProbeRTT holds cwnd at `MIN_CWND` this long, and at least a round trip
/// (tcp_bbr.c `bbr_probe_rtt_mode_ms`).
pub const PROBE_RTT_DURATION: SimDuration = SimDuration::from_millis(200);
/// The smallest cwnd, and ProbeRTT's (tcp_bbr.c `bbr_cwnd_min_target`).
pub const MIN_CWND: f64 = 4.0;
/// Startup has found the bottleneck when BtlBw grew less than 25 % in three round trips
/// (tcp_bbr.c `bbr_full_bw_thresh`, `bbr_full_bw_cnt`).
pub const FULL_BW_THRESH: f64 = 1.25;
pub const FULL_BW_COUNT: u32 = 3;
/// Segments sent back to back, the unit of the target's allowance of 3 (tcp_bbr.c
/// `bbr_tso_segs_goal`, a TSO burst of about 1 ms there): one here, as ns-3's
/// `SetSendQuantum`, since the sender releases one segment per pacing gap and has no
/// TSO.
pub const SEND_QUANTUM: f64 = 1.0;

/// `x.ceil()` for a finite x >= 0 without the libm call `ceil` is on a baseline x86-64
/// build (it runs on every ack).
fn ceil_positive(x: f64) -> f64 {
    let t = x as u64 as f64;
    if t < x { t + 1.0 } else { t }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Room for the most rounds a `MaxFilter` window spans (BtlBw's 10), a power of two so
/// that a place in the ring is a mask, not a division.
const MAX_FILTER_CAP: usize = (BW_WINDOW_ROUNDS as usize).next_power_of_two();
const MAX_FILTER_MASK: usize = MAX_FILTER_CAP - 1;

/// A windowed maximum over round counts: (round, value) pairs with values decreasing
/// and rounds increasing, so the front is the maximum of the window (exact, where
/// Linux's `minmax` keeps three estimates). A sample no larger than the newest entry of
/// its own round is not kept: it leaves the window with that entry and never exceeds
/// it. So there is at most one entry per round of the window, and they fit in a fixed
/// ring (no deque code on every ack).
#[derive(Clone, Debug, Default)]
struct MaxFilter {
    q: [(u64, f64); MAX_FILTER_CAP],
    /// Index of the front entry and the number of entries.
    head: usize,
    len: usize,
}

impl MaxFilter {
    fn at(&self, i: usize) -> (u64, f64) {
        self.q[(self.head + i) & MAX_FILTER_MASK]
    }

    fn update(&mut self, round: u64, v: f64, window: u64) {
        debug_assert!(window as usize <= MAX_FILTER_CAP);
        // Entries out of the window first (the new one, of this round, never is).
        while self.len > 0 && self.at(0).0 + window <= round {
            self.head = (self.head + 1) & MAX_FILTER_MASK;
            self.len -= 1;
        }
        while self.len > 0 && self.at(self.len - 1).1 <= v {
            self.len -= 1;
        }
        if self.len > 0 && self.at(self.len - 1).0 == round {
            // A larger value of the same round is kept (see above).
            return;
        }
        if self.len == MAX_FILTER_CAP {
            // Only with rounds going backwards: the oldest goes.
            self.head = (self.head + 1) & MAX_FILTER_MASK;
            self.len -= 1;
        }
        self.q[(self.head + self.len) & MAX_FILTER_MASK] = (round, v);
        self.len += 1;
    }

    fn get(&self) -> f64 {
        if self.len == 0 { 0.0 } else { self.at(0).1 }
    }
}

#[derive(Clone, Debug)]
pub struct Bbr {
    mode: Mode,
    bw: MaxFilter,
    /// RTprop and when it was last set.
    min_rtt: f64,
    min_rtt_stamp: SimTime,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Packet-timed round trips (tcp_bbr.c `rtt_cnt`, `next_rtt_delivered`).
    round_count: u64,
    next_rtt_delivered: f64,
    round_start: bool,
    full_bw: f64,
    full_bw_count: u32,
    full_bw_reached: bool,
    cycle_index: usize,
    cycle_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    /// cwnd before recovery or ProbeRTT, restored after them (tcp_bbr.c `prior_cwnd`).
    prior_cwnd: f64,
    packet_conservation: bool,
    in_recovery: bool,
    /// Segments per second; 0 until set from the first RTT.
    pacing_rate: f64,
    initial_cwnd: f64,
    /// The ProbeBW phase to start from (tcp_bbr.c draws it at random).
    start_phase: usize,
    delivered: f64,
    smss: f64,
}

impl Bbr {
    /// `start_phase`: ProbeBW's first phase after Drain, one of 0 and 2..=7 (never the
    /// 0.75 phase, as in Linux's `bbr_reset_probe_bw_mode`); the caller draws it.
    pub fn new(initial_cwnd: f64, smss: f64, start_phase: usize) -> Self {
        let start_phase = if start_phase % 8 == 1 {
            2
        } else {
            start_phase % 8
        };
        Bbr {
            mode: Mode::Startup,
            bw: MaxFilter::default(),
            min_rtt: f64::INFINITY,
            min_rtt_stamp: SimTime::ZERO,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            round_count: 0,
            next_rtt_delivered: 0.0,
            round_start: false,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_reached: false,
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0.0,
            packet_conservation: false,
            in_recovery: false,
            pacing_rate: 0.0,
            initial_cwnd,
            start_phase,
            delivered: 0.0,
            smss,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }
    pub fn cycle_index(&self) -> usize {
        self.cycle_index
    }
    pub fn round_count(&self) -> u64 {
        self.round_count
    }
    /// Whether the next sample's `prior_in_flight` can be read: only ProbeBW's probe
    /// and drain phases end on it (`is_next_cycle_phase`). The mode and the gain change
    /// only in `on_sample`, so asked before an ack is processed this answers for that
    /// ack's sample, and the sender computes its flight before the ack only then.
    pub fn reads_prior_in_flight(&self) -> bool {
        self.mode == Mode::ProbeBw && self.pacing_gain != 1.0
    }
    /// BtlBw, segments per second.
    pub fn btl_bw(&self) -> f64 {
        self.bw.get()
    }
    /// RTprop, seconds (infinite before a sample).
    pub fn min_rtt(&self) -> f64 {
        self.min_rtt
    }
    /// Pacing rate in bytes per second (0 before the first RTT sample).
    pub fn pacing_rate_bytes(&self) -> f64 {
        self.pacing_rate * self.smss
    }

    /// What `gain` BDPs in flight are (Linux 5.x tcp_bbr.c `bbr_inflight`: `bbr_bdp`
    /// then `bbr_quantization_budget`; ns-3.37 `InFlight`); the initial window before
    /// an RTT sample.
    fn target_cwnd(&self, gain: f64) -> f64 {
        if !self.min_rtt.is_finite() {
            return self.initial_cwnd;
        }
        let bdp = self.btl_bw() * self.min_rtt * gain;
        // Three send quanta, rounded up to an even number (Linux: fewer delayed acks).
        let cwnd = 2.0 * ceil_positive((bdp + 3.0 * SEND_QUANTUM) / 2.0);
        // The probe phase's allowance, so that it gets in-flight above a BDP even when
        // the BDP is small (Linux 5.x `bbr_quantization_budget`, ns-3.37 `InFlight`).
        if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
            cwnd + 2.0
        } else {
            cwnd
        }
    }

    /// A congestion event: save cwnd (tcp_bbr.c `bbr_save_cwnd`); a fast retransmit
    /// starts packet conservation (`bbr_set_cwnd_to_recover_or_restore`), a timeout
    /// forgets the full-bandwidth estimate (`bbr_set_state` on TCP_CA_Loss). The
    /// recovery algorithm sets cwnd itself (one segment after a timeout).
    pub fn on_congestion(&mut self, w: &mut WindowState, timeout: bool, flight: f64) {
        self.prior_cwnd = if !self.in_recovery && self.mode != Mode::ProbeRtt {
            w.cwnd
        } else {
            self.prior_cwnd.max(w.cwnd)
        };
        self.in_recovery = true;
        if timeout {
            self.full_bw = 0.0;
            self.round_start = true;
            w.cwnd = 1.0;
        } else {
            self.packet_conservation = true;
            self.next_rtt_delivered = self.delivered;
            w.cwnd = (flight + 1.0).max(1.0);
        }
    }

    /// One ack's rate sample (tcp_bbr.c `bbr_main`): update the model and the state,
    /// then the pacing rate and cwnd.
    pub fn on_sample(&mut self, w: &mut WindowState, rs: &RateSample) {
        self.delivered = rs.total_delivered;
        self.update_bw(rs);
        self.update_cycle_phase(rs);
        self.check_full_bw_reached(rs);
        self.check_drain(w, rs);
        self.update_min_rtt(w, rs);
        self.set_pacing_rate(self.pacing_gain);
        self.set_cwnd(w, rs);
    }

    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        if rs.delivered <= 0.0 || rs.interval <= 0.0 {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = rs.total_delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let bw = rs.delivered / rs.interval;
        // App-limited samples underestimate, so they only count when they raise it.
        if !rs.app_limited || bw >= self.btl_bw() {
            self.bw.update(self.round_count, bw, BW_WINDOW_ROUNDS);
        }
    }

    fn update_cycle_phase(&mut self, rs: &RateSample) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs) {
            self.advance_cycle_phase(rs.now);
        }
    }

    /// tcp_bbr.c `bbr_is_next_cycle_phase`: each phase lasts at least RTprop; the probe
    /// phase also until inflight reaches 1.25 BDP (or a loss), the drain phase ends as
    /// soon as inflight is down to one BDP.
    fn is_next_cycle_phase(&self, rs: &RateSample) -> bool {
        let full_length = rs.now.saturating_since(self.cycle_stamp).as_secs_f64() > self.min_rtt;
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        if self.pacing_gain > 1.0 {
            return full_length
                && (rs.losses > 0.0 || rs.prior_in_flight >= self.inflight(self.pacing_gain));
        }
        full_length || rs.prior_in_flight <= self.inflight(1.0)
    }

    /// What `gain` BDPs in flight are (Linux 5.x `bbr_inflight`).
    fn inflight(&self, gain: f64) -> f64 {
        self.target_cwnd(gain)
    }

    fn advance_cycle_phase(&mut self, now: SimTime) {
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.cycle_stamp = now;
        self.pacing_gain = PACING_GAIN_CYCLE[self.cycle_index];
    }

    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.app_limited {
            return;
        }
        if self.btl_bw() >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = self.btl_bw();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= FULL_BW_COUNT;
    }

    fn check_drain(&mut self, w: &mut WindowState, rs: &RateSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.pacing_gain = DRAIN_GAIN;
            self.cwnd_gain = HIGH_GAIN;
            w.ssthresh = self.inflight(1.0);
        }
        if self.mode == Mode::Drain && rs.in_flight <= self.inflight(1.0) {
            self.reset_probe_bw_mode(rs.now);
        }
    }

    fn reset_probe_bw_mode(&mut self, now: SimTime) {
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = CWND_GAIN;
        // Linux: cycle_idx = CYCLE_LEN - 1 - random(0..7), then advance: any phase but
        // the 0.75 one. Here the phase before `start_phase`, then advance.
        self.cycle_index =
            (self.start_phase + PACING_GAIN_CYCLE.len() - 1) % PACING_GAIN_CYCLE.len();
        self.advance_cycle_phase(now);
    }

    fn reset_mode(&mut self, now: SimTime) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(now);
        } else {
            self.mode = Mode::Startup;
            self.pacing_gain = HIGH_GAIN;
            self.cwnd_gain = HIGH_GAIN;
        }
    }

    /// tcp_bbr.c `bbr_update_min_rtt`: RTprop takes every sample at or below it, and any
    /// sample once it is 10 s old; an expired RTprop sends BBR to ProbeRTT, which holds
    /// cwnd at 4 segments for 200 ms and a round trip, then returns.
    fn update_min_rtt(&mut self, w: &mut WindowState, rs: &RateSample) {
        let expired = rs.now > self.min_rtt_stamp + MIN_RTT_WINDOW;
        if let Some(rtt) = rs.rtt {
            if rtt <= self.min_rtt || expired {
                self.min_rtt = rtt;
                self.min_rtt_stamp = rs.now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.prior_cwnd = if !self.in_recovery {
                w.cwnd
            } else {
                self.prior_cwnd.max(w.cwnd)
            };
            self.probe_rtt_done = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        match self.probe_rtt_done {
            None if rs.in_flight <= MIN_CWND => {
                self.probe_rtt_done = Some(rs.now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = rs.total_delivered;
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && rs.now > done {
                    self.min_rtt_stamp = rs.now;
                    w.cwnd = w.cwnd.max(self.prior_cwnd);
                    self.reset_mode(rs.now);
                }
            }
        }
    }

    /// tcp_bbr.c `bbr_set_pacing_rate`: gain x BtlBw, or before a bandwidth sample
    /// high_gain x cwnd / RTT; lowered only once Startup has filled the pipe.
    fn set_pacing_rate(&mut self, gain: f64) {
        let rate = gain * self.btl_bw();
        if rate <= 0.0 {
            return;
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// The first pacing rate, from the first RTT (tcp_bbr.c `bbr_init_pacing_rate_from_rtt`).
    pub fn init_pacing_rate(&mut self, cwnd: f64, rtt: f64) {
        if self.pacing_rate == 0.0 && rtt > 0.0 {
            self.pacing_rate = HIGH_GAIN * cwnd / rtt;
        }
    }

    /// tcp_bbr.c `bbr_set_cwnd` with `bbr_set_cwnd_to_recover_or_restore`: every ack
    /// first takes the segments it newly deems lost off cwnd (Linux does so in any
    /// state; ns-3.37 only in fast recovery), then packet conservation or growth
    /// towards the target.
    fn set_cwnd(&mut self, w: &mut WindowState, rs: &RateSample) {
        if rs.acked > 0.0 {
            let mut cwnd = w.cwnd;
            if rs.losses > 0.0 {
                cwnd = (cwnd - rs.losses).max(1.0);
            }
            if self.in_recovery && !rs.in_recovery {
                // Recovery is over: back to the window before it.
                self.in_recovery = false;
                self.packet_conservation = false;
                cwnd = cwnd.max(self.prior_cwnd);
            }
            if self.packet_conservation {
                cwnd = cwnd.max(rs.in_flight + rs.acked);
            } else {
                let target = self.target_cwnd(self.cwnd_gain);
                if self.full_bw_reached {
                    cwnd = (cwnd + rs.acked).min(target);
                } else if cwnd < target || self.delivered < self.initial_cwnd {
                    cwnd += rs.acked;
                }
                cwnd = cwnd.max(MIN_CWND);
            }
            w.cwnd = cwnd;
        }
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(MIN_CWND);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lossless path of `bw` segments per second and base RTT `rtt`, driven a round trip
    /// at a time. A round delivers what was in flight at its start, I segments, evenly
    /// over max(RTT, I / bw) (beyond a BDP in flight, the bottleneck's queue holds the
    /// rest), each delivery acked with the round's rate sample, I / that time. After each
    /// ack the sender sends what the pacing rate allows since the last ack, within cwnd.
    /// RTT samples after the first round carry `jitter` seconds more, so RTprop is set
    /// once and expires after 10 s, as on a real path where the exact minimum recurs
    /// rarely.
    struct Path {
        bw: f64,
        rtt: f64,
        jitter: f64,
        now: f64,
        delivered: f64,
        in_flight: f64,
        credit: f64,
        rounds: Vec<(f64, f64, f64)>,
        /// (time, mode, cycle index, cwnd, in flight) at every change of mode or phase.
        changes: Vec<(f64, Mode, usize, f64, f64)>,
    }

    impl Path {
        fn round(&mut self, b: &mut Bbr, w: &mut WindowState) {
            let start = self.now;
            if self.in_flight == 0.0 {
                self.in_flight = w.cwnd.floor();
            }
            let n = self.in_flight;
            let duration = self.rtt.max(n / self.bw);
            let rtt = duration
                + if self.rounds.is_empty() {
                    0.0
                } else {
                    self.jitter
                };
            let prior_delivered = self.delivered;
            let dt = duration / n;
            let mut in_flight = n;
            for k in 1..=n as u32 {
                self.now = start + dt * f64::from(k);
                self.delivered += 1.0;
                let prior = in_flight;
                in_flight -= 1.0;
                let rs = RateSample {
                    now: SimTime::ZERO + SimDuration::from_secs_f64(self.now),
                    delivered: n,
                    interval: duration,
                    rtt: Some(rtt),
                    prior_delivered,
                    total_delivered: self.delivered,
                    acked: 1.0,
                    losses: 0.0,
                    in_flight,
                    prior_in_flight: prior,
                    app_limited: false,
                    in_recovery: false,
                };
                b.init_pacing_rate(w.cwnd, rtt);
                b.on_sample(w, &rs);
                let last = self.changes.last().map(|c| (c.1, c.2));
                if last != Some((b.mode(), b.cycle_index())) {
                    self.changes
                        .push((self.now, b.mode(), b.cycle_index(), w.cwnd, in_flight));
                }
                self.credit += b.pacing_rate * dt;
                while self.credit >= 1.0 && in_flight + 1.0 <= w.cwnd {
                    in_flight += 1.0;
                    self.credit -= 1.0;
                }
                self.credit = self.credit.min(1.0);
            }
            self.in_flight = in_flight.max(1.0);
            self.rounds.push((start, self.now, n));
        }
    }

    fn setup() -> (Path, Bbr, WindowState) {
        // 1000 segments per second, 100 ms: a BDP of 100 segments.
        let path = Path {
            bw: 1000.0,
            rtt: 0.1,
            jitter: 0.0005,
            now: 0.0,
            delivered: 0.0,
            in_flight: 0.0,
            credit: 0.0,
            rounds: Vec::new(),
            changes: Vec::new(),
        };
        let w = WindowState {
            cwnd: 10.0,
            ssthresh: f64::INFINITY,
        };
        (path, Bbr::new(10.0, 1000.0, 2), w)
    }

    /// A BBR in ProbeBW with BtlBw 1000 segments/s and RTprop 100 ms (a BDP of 100).
    fn in_probe_bw(cycle_index: usize) -> Bbr {
        let mut b = Bbr::new(10.0, 1000.0, 2);
        b.bw.update(1, 1000.0, BW_WINDOW_ROUNDS);
        b.min_rtt = 0.1;
        b.full_bw_reached = true;
        b.mode = Mode::ProbeBw;
        b.cwnd_gain = CWND_GAIN;
        b.cycle_index = cycle_index;
        b.pacing_gain = PACING_GAIN_CYCLE[cycle_index];
        b
    }

    #[test]
    fn the_flight_before_an_ack_is_read_only_in_probe_bw_s_probe_and_drain_phases() {
        // `is_next_cycle_phase` compares prior_in_flight with the target only when the
        // gain is not 1: ProbeBW's 1.25 (phase 0) and 0.75 (phase 1) phases.
        assert!(
            !Bbr::new(10.0, 1000.0, 2).reads_prior_in_flight(),
            "Startup"
        );
        let read: Vec<bool> = (0..8)
            .map(|i| in_probe_bw(i).reads_prior_in_flight())
            .collect();
        assert_eq!(read, [true, true, false, false, false, false, false, false]);
    }

    fn ack(now_ms: u64, acked: f64, losses: f64, in_flight: f64) -> RateSample {
        RateSample {
            now: SimTime::ZERO + SimDuration::from_millis(now_ms),
            delivered: 100.0,
            interval: 0.1,
            rtt: Some(0.1),
            prior_delivered: 0.0,
            total_delivered: 1000.0,
            acked,
            losses,
            in_flight,
            prior_in_flight: in_flight + acked,
            app_limited: false,
            in_recovery: losses > 0.0,
        }
    }

    #[test]
    fn target_is_the_bdp_times_gain_plus_three_quanta_even_and_two_more_when_probing() {
        // Linux 5.x bbr_inflight: ceil(100 x 2) = 200, + 3 quanta of 1 segment = 203,
        // rounded up to even: 204; in phase 0 (gain 1.25) 2 more: 206.
        assert_eq!(in_probe_bw(2).target_cwnd(CWND_GAIN), 204.0);
        assert_eq!(in_probe_bw(0).target_cwnd(CWND_GAIN), 206.0);
        // The probe phase ends once 1.25 BDP is in flight: 125 + 3 = 128, + 2 = 130.
        assert_eq!(in_probe_bw(0).inflight(1.25), 130.0);
    }

    #[test]
    fn an_ack_in_recovery_takes_what_it_deems_lost_off_cwnd() {
        // In ProbeBW with cwnd 204 (the target), recovery past its first round trip: an
        // ack that delivers 1 segment and deems 3 lost: 204 - 3 = 201, then + 1 (below
        // the target): 202 (tcp_bbr.c bbr_set_cwnd_to_recover_or_restore, bbr_set_cwnd).
        let mut b = in_probe_bw(2);
        b.in_recovery = true;
        let mut w = WindowState {
            cwnd: 204.0,
            ssthresh: 100.0,
        };
        b.set_cwnd(&mut w, &ack(10, 1.0, 3.0, 150.0));
        assert_eq!(w.cwnd, 202.0);
        // In packet conservation cwnd is at least in-flight + acked: 201 - 1 lost = 200,
        // but 250 in flight + 1 acked = 251.
        b.packet_conservation = true;
        w.cwnd = 201.0;
        b.set_cwnd(&mut w, &ack(11, 1.0, 1.0, 250.0));
        assert_eq!(w.cwnd, 251.0);
    }

    #[test]
    fn max_filter_keeps_the_largest_of_the_last_rounds() {
        let mut f = MaxFilter::default();
        f.update(1, 5.0, 10);
        f.update(2, 9.0, 10);
        f.update(3, 7.0, 10);
        assert_eq!(f.get(), 9.0);
        f.update(12, 6.0, 10);
        // Round 2's 9 is out of the window (rounds 3..=12), 7 is the largest left.
        assert_eq!(f.get(), 7.0);
        // Round 13: rounds 4..=13, so round 3's 7 is out too.
        f.update(13, 1.0, 10);
        assert_eq!(f.get(), 6.0);
        f.update(22, 0.5, 10);
        assert_eq!(f.get(), 1.0);
    }

    #[test]
    fn max_filter_samples_of_one_round_leave_together() {
        let mut f = MaxFilter::default();
        // Round 1: 9 then 5 (the 5 leaves with the 9), round 2: 4.
        f.update(1, 9.0, 10);
        f.update(1, 5.0, 10);
        f.update(2, 4.0, 10);
        assert_eq!(f.get(), 9.0);
        // Round 11: rounds 2..=11, both of round 1's samples are out.
        f.update(11, 3.0, 10);
        assert_eq!(f.get(), 4.0);
        // Eleven rounds of falling samples: the window keeps the last ten.
        for r in 20..31 {
            f.update(r, 100.0 - r as f64, 10);
        }
        assert_eq!(f.get(), 79.0);
    }

    #[test]
    fn startup_drain_probe_bw_and_probe_rtt_on_a_lossless_path() {
        let (mut p, mut b, mut w) = setup();
        while p.now < 12.0 {
            p.round(&mut b, &mut w);
        }
        let at = |mode: Mode| p.changes.iter().position(|c| c.1 == mode).expect("mode");
        // Startup grows what is in flight by 2.885 a round trip until the rounds deliver
        // at the bottleneck's 1000/s (the plateau: the first round with more than a BDP
        // in flight). It ends when three round trips in a row grew BtlBw by less than 25 %:
        // no more than 3 whole round trips after the plateau's (tcp_bbr.c
        // `bbr_check_full_bw_reached`).
        let plateau = p
            .rounds
            .iter()
            .position(|r| r.2 >= p.bw * p.rtt)
            .expect("plateau");
        let drain = p.changes[at(Mode::Drain)];
        let whole = p.rounds[plateau + 1..]
            .iter()
            .filter(|r| r.1 <= drain.0 + 1e-9)
            .count();
        assert!(whole <= 3, "{whole} rounds after the plateau at {plateau}");
        assert!((b.btl_bw() - 1000.0).abs() < 1e-6, "{}", b.btl_bw());
        // Drain at gain 1/2.885 until what is in flight is down to the BDP (100 segments
        // plus 3 send quanta of 1, rounded up to even: 104), then ProbeBW.
        let probe = p.changes[at(Mode::ProbeBw)];
        assert!(probe.0 > drain.0);
        assert!(probe.4 <= 104.0, "{probe:?}");
        // ProbeBW: the eight phases in order from the start phase (2 here), the cruise
        // phases (gain 1) one RTprop (100 ms) long each, the probe phase until 1.25 BDP
        // are in flight (125 + 3 quanta, 128, + 2 in phase 0: 130), the drain phase
        // until one BDP is (104).
        let cycle: Vec<_> = p.changes[at(Mode::ProbeBw)..]
            .iter()
            .take_while(|c| c.1 == Mode::ProbeBw)
            .collect();
        assert!(cycle.len() >= 16, "{cycle:?}");
        for (i, c) in cycle.iter().take(16).enumerate() {
            assert_eq!(c.2, (2 + i) % 8, "{cycle:?}");
            let next = cycle[i + 1];
            let gain = PACING_GAIN_CYCLE[c.2];
            if gain == 1.0 {
                assert!(next.0 - c.0 >= 0.1, "{i}: {cycle:?}");
            } else if gain > 1.0 {
                // In flight after the ack that ended it: one less than before it.
                assert!(next.4 + 1.0 >= 130.0, "{i}: {cycle:?}");
            } else {
                assert!(next.4 <= 104.0 || next.0 - c.0 >= 0.1, "{i}: {cycle:?}");
            }
        }
        // ProbeRTT 10 s after RTprop was last set (the first round, 0.1 s): cwnd 4
        // segments for at least 200 ms and a round trip, then back to ProbeBW with the
        // window restored.
        let i = at(Mode::ProbeRtt);
        let prt = p.changes[i];
        assert!(prt.0 > 10.1 && prt.0 < 10.3, "{prt:?}");
        assert!(prt.3 <= MIN_CWND, "{prt:?}");
        let back = p.changes[i + 1];
        assert_eq!(back.1, Mode::ProbeBw);
        assert!(back.0 - prt.0 >= 0.2, "{back:?}");
        assert!(back.3 >= 200.0, "{back:?}");
        // RTprop: the first round's 100 ms until it expired; ProbeRTT then took the
        // path's next sample (100.5 ms).
        assert!((b.min_rtt() - 0.1005).abs() < 1e-12, "{}", b.min_rtt());
    }
}
