//! What a destination adds when it paces or runs BBR (docs/models/cc.md, SCTP section):
//! per-destination delivery-rate samples (draft-cheng-iccrg-delivery-rate-estimation, the
//! rules of TCP's `tcp/rate.rs`, keyed here by a per-destination packet number that
//! every chunk carries from its last transmission), BBR v1 (`cc/bbr.rs`) fed by them,
//! and the pacing gap between packets sent to the destination.
//!
//! SCTP has no per-path sequence numbers, so a packet's record is found by number: each
//! packet sent to the destination gets the next number, its chunks remember it (`Sent::
//! rec`), and a SACK's sample is the record of the most recently sent packet among the
//! chunks it newly acknowledges there (the highest number: numbers go up in send order).
//! A retransmission is a new packet with a new record (the draft's "P.delivered at send
//! time" is the delivered count when it was resent).

use super::path::Path;
use crate::cc::rate_sample::{RateClocks, SendRecord};
use crate::cc::{Bbr, RateSample, WindowState};
use crate::sim::{SimDuration, SimTime};
use std::collections::VecDeque;

/// One destination's delivery-rate estimator, counts in segments of the path's MTU.
#[derive(Clone, Debug)]
pub struct PathRates {
    /// The sampler's clocks (`cc/rate_sample.rs`): C.delivered and the others.
    clocks: RateClocks,
    next_id: u32,
    /// Records in send order with their packet numbers, consecutive from the front's.
    recs: VecDeque<(u32, SendRecord)>,
}

impl Default for PathRates {
    fn default() -> Self {
        PathRates {
            clocks: RateClocks::default(),
            // 0 is "no record" in a chunk.
            next_id: 1,
            recs: VecDeque::new(),
        }
    }
}

impl PathRates {
    /// A packet leaves with `in_flight` segments already out on the destination before
    /// it (draft sec. 3.2 "Transmitting a data packet"): with nothing in flight the send
    /// and delivery clocks restart here. `app_limited`: the application has nothing
    /// more to send after it. Returns the packet's number.
    pub fn on_send(&mut self, now: SimTime, app_limited: bool, in_flight: f64) -> u32 {
        let r = self
            .clocks
            .on_send(now, in_flight <= 0.0, app_limited, in_flight);
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        self.recs.push_back((id, r));
        id
    }

    /// The place of packet `id`'s record in the list and the record.
    fn record(&self, id: u32) -> Option<(usize, SendRecord)> {
        let &(front, _) = self.recs.front()?;
        let at = id.wrapping_sub(front) as usize;
        self.recs
            .get(at)
            .filter(|r| r.0 == id)
            .map(|&(_, r)| (at, r))
    }

    /// A SACK newly delivered `acked` segments sent to the destination, the most
    /// recently sent of them in packet `newest` (0: none known), with the controller's
    /// RTT sample `rtt` (Karn's rule, `cc_rtt_sample`) (draft sec. 3.3 "Upon receiving
    /// ACK"). The fields the estimator does not know (flight, recovery) are the caller's.
    pub fn on_sack(
        &mut self,
        now: SimTime,
        acked: f64,
        newest: u32,
        rtt: Option<f64>,
    ) -> RateSample {
        let mut rs = self.clocks.on_delivered(now, acked, rtt);
        if let Some(r) = rtt {
            self.clocks.min_rtt = self.clocks.min_rtt.min(r);
        }
        if acked > 0.0 {
            self.clocks.delivered_time = now;
        }
        let Some((at, p)) = self.record(newest) else {
            return rs;
        };
        // Records sent before P can no longer be the newest of a later SACK (a chunk of
        // theirs still missing is resent under a new number).
        self.recs.drain(..at);
        self.clocks.sample(now, &p, &mut rs);
        rs
    }
}

/// A paced destination: when its next packet may leave, and BBR with its rate samples
/// when it runs BBR (else the window controller's rate paces it).
#[derive(Clone, Debug)]
pub struct PathPacing {
    pub next_send: SimTime,
    /// The flow runs BBR: it is made at the destination's first packet, when its
    /// window and MTU are known.
    wants_bbr: bool,
    pub bbr: Option<Box<(Bbr, PathRates)>>,
    /// After a T3 expiry: the highest TSN outstanding then; loss recovery lasts until
    /// the cumulative ack reaches it (as TCP's `recover` after a timeout).
    t3_recover: Option<u32>,
}

/// The pacing state a destination starts with under `k`: paced with BBR (always) or
/// with a window controller when `pacing` is on.
pub fn pacing_for(k: &super::config::Knobs) -> Option<Box<PathPacing>> {
    let bbr = k.congestion_control == crate::cc::Algorithm::Bbr;
    (bbr || k.pacing).then(|| {
        Box::new(PathPacing {
            next_send: SimTime::ZERO,
            wants_bbr: bbr,
            bbr: None,
            t3_recover: None,
        })
    })
}

/// BBR for a destination whose window starts at `initial_cwnd` segments of `mtu` bytes.
/// ProbeBW's first phase is a fixed function of the destination's address (the TCP
/// sender's rule draws it from the ports; never the 0.75 phase, as Linux).
fn bbr_for(initial_cwnd: f64, mtu: f64, addr: [u8; 4]) -> Bbr {
    let draw = usize::from(addr[2] ^ addr[3]) % 7;
    let phase = if draw == 0 { 0 } else { draw + 1 };
    Bbr::new(initial_cwnd, mtu, phase)
}

/// A congestion event on a destination with BBR (`path_cc::on_congestion`): BBR's
/// rules (`Bbr::on_congestion`) instead of CUBIC's cut. Returns false without BBR.
pub fn on_congestion(
    cc: &mut super::path_cc::PathCc,
    w: &mut WindowState,
    ev: &crate::cc::CongestionEvent,
) -> bool {
    let Some((b, _)) = cc.pacing.as_deref_mut().and_then(|x| x.bbr.as_deref_mut()) else {
        return false;
    };
    b.on_congestion(w, ev.kind == crate::cc::Congestion::Timeout, ev.flight);
    true
}

fn pacing(p: &Path) -> Option<&PathPacing> {
    p.cc.as_deref().and_then(|c| c.pacing.as_deref())
}

fn pacing_mut(p: &mut Path) -> Option<&mut PathPacing> {
    p.cc.as_deref_mut().and_then(|c| c.pacing.as_deref_mut())
}

/// Whether the destination paces (and, with BBR, keeps rate records).
#[inline]
pub fn is_paced(p: &Path) -> bool {
    pacing(p).is_some()
}

/// When the destination's next packet may leave, if that is later than `now`.
#[inline]
pub fn wait_until(p: &Path, now: SimTime) -> Option<SimTime> {
    pacing(p).map(|x| x.next_send).filter(|&t| t > now)
}

/// A packet of `bytes` on the wire leaves for `p` now, with `prior_out` chunk bytes in
/// flight there before it: its rate record (BBR) and the pacing gap after it (the
/// packet's size over the pacing rate, as TCP's sender, `tcp/delivery.rs`). Returns
/// the packet's number for its chunks, 0 without BBR.
pub fn on_packet_sent(
    p: &mut Path,
    now: SimTime,
    bytes: f64,
    prior_out: f64,
    app_limited: bool,
) -> u32 {
    let mtu = p.mtu;
    let w = WindowState {
        cwnd: p.cwnd / mtu,
        ssthresh: p.ssthresh / mtu,
    };
    let srtt = p.rto.srtt().unwrap_or(0.0);
    let addr = p.addr;
    let Some(x) = pacing_mut(p) else { return 0 };
    if x.wants_bbr && x.bbr.is_none() {
        x.bbr = Some(Box::new((bbr_for(w.cwnd, mtu, addr), PathRates::default())));
    }
    let (id, rate) = match x.bbr.as_deref_mut() {
        Some((b, rates)) => {
            let id = rates.on_send(now, app_limited, prior_out / mtu);
            let r = b.pacing_rate_bytes();
            (id, (r > 0.0).then_some(r))
        }
        None => (0, crate::cc::window_pacing_rate(&w, mtu, srtt)),
    };
    if let Some(rate) = rate {
        x.next_send = now + SimDuration::from_secs_f64(bytes / rate);
    }
    id
}

/// A SACK newly acknowledged `newly` chunk bytes sent to `p` (BBR only), with
/// `p.outstanding` as before the SACK and `lost` bytes of it marked for retransmission:
/// the destination's rate sample (packet `newest`, RTT `rtt`) goes to its BBR, which
/// sets cwnd (in recovery too, as TCP's `rate_sample`). Returns false without BBR.
pub fn on_sack(
    p: &mut Path,
    now: SimTime,
    (newly, lost): (f64, f64),
    newest: u32,
    rtt: Option<f64>,
    in_recovery: bool,
) -> bool {
    let mtu = p.mtu;
    let mut w = WindowState {
        cwnd: p.cwnd / mtu,
        ssthresh: p.ssthresh / mtu,
    };
    let prior = ((p.outstanding - lost) / mtu).max(0.0);
    let Some((b, rates)) = pacing_mut(p).and_then(|x| x.bbr.as_deref_mut()) else {
        return false;
    };
    let mut rs = rates.on_sack(now, newly / mtu, newest, rtt);
    rs.prior_in_flight = prior;
    rs.in_flight = (prior - newly / mtu).max(0.0);
    rs.in_recovery = in_recovery;
    if let Some(r) = rtt {
        b.init_pacing_rate(w.cwnd, r);
    }
    b.on_sample(&mut w, &rs);
    p.cwnd = w.cwnd * mtu;
    p.ssthresh = w.ssthresh * mtu;
    true
}

/// A T3 expiry on `p` with `highest` the highest TSN sent so far.
pub fn note_t3(p: &mut Path, highest: u32) {
    if let Some(x) = pacing_mut(p) {
        x.t3_recover = Some(highest);
    }
}

/// Whether `p` is in the loss recovery after a T3 expiry, the cumulative ack at `cum`.
pub fn in_t3_recovery(p: &Path, cum: u32) -> bool {
    pacing(p)
        .and_then(|x| x.t3_recover)
        .is_some_and(|r| super::outbound::tsn_lt(cum, r))
}

/// The rate a paced destination paces at, bytes per second (`--series pacing_rate`).
pub fn pacing_rate(p: &Path) -> Option<f64> {
    let x = pacing(p)?;
    match x.bbr.as_deref() {
        Some((b, _)) => Some(b.pacing_rate_bytes()).filter(|&r| r > 0.0),
        None => crate::cc::window_pacing_rate(
            &WindowState {
                cwnd: p.cwnd / p.mtu,
                ssthresh: p.ssthresh / p.mtu,
            },
            p.mtu,
            p.rto.srtt().unwrap_or(0.0),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> SimTime {
        SimTime::from_nanos(t * 1_000_000)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn a_window_sent_at_once_and_acked_over_a_round_trip_gives_the_ack_rate() {
        // 10 packets at t = 0 (nothing in flight before the first), SACKed one per 10 ms
        // from 100 ms. The last SACK's newest packet is number 10: P.delivered = 0,
        // P.delivered_time = 0 (the clock restarted at the first send), P.first_sent =
        // 0, P.sent = 0. delivered = 10, send interval 0, ack interval 190 ms: 10 / 0.19
        // = 52.6 segments/s.
        let mut r = PathRates::default();
        for i in 0..10 {
            assert_eq!(r.on_send(ms(0), false, f64::from(i)), i as u32 + 1);
        }
        let mut last = None;
        for i in 0..10u64 {
            last = Some(r.on_sack(ms(100 + 10 * i), 1.0, i as u32 + 1, Some(0.1)));
        }
        let rs = last.expect("ten SACKs");
        assert_eq!(rs.delivered, 10.0);
        assert_eq!(rs.prior_delivered, 0.0);
        assert!(close(rs.interval, 0.19), "{rs:?}");
        assert_eq!(rs.total_delivered, 10.0);
    }

    #[test]
    fn steady_state_gives_the_sending_rate_and_a_short_interval_is_refused() {
        // A packet every 10 ms, each SACKed 100 ms later (10 in flight): once the
        // window is under way, P was sent 10 ms after the previous one, with 10 fewer
        // delivered: 10 segments over max(send 100 ms, ack 100 ms) = 100/s.
        let mut r = PathRates::default();
        let mut rs = None;
        for i in 0..50u64 {
            let out = if i >= 10 { 10.0 } else { i as f64 };
            let id = r.on_send(ms(10 * i), false, out);
            assert_eq!(id, i as u32 + 1);
            if i >= 10 {
                rs = Some(r.on_sack(ms(10 * i), 1.0, (i - 9) as u32, Some(0.1)));
            }
        }
        let rs = rs.expect("SACKs");
        assert!(close(rs.delivered / rs.interval, 100.0), "{rs:?}");
        // Packet 1 alone, SACKed at 100 ms (RTT 100 ms: min_rtt). Packet 2 leaves at
        // 100 ms with nothing in flight, so the clocks restart there; its SACK comes at
        // 150 ms without an RTT sample (as for a retransmission, Karn's rule): 1 segment
        // over max(send 0, ack 50 ms) = 50 ms, shorter than the minimum RTT: refused.
        let mut r = PathRates::default();
        r.on_send(ms(0), false, 0.0);
        let a = r.on_sack(ms(100), 1.0, 1, Some(0.1));
        assert!(close(a.interval, 0.1), "{a:?}");
        r.on_send(ms(100), false, 0.0);
        let b = r.on_sack(ms(150), 1.0, 2, None);
        assert_eq!(b.delivered, 1.0);
        assert!(b.interval < 0.0, "{b:?}");
    }

    #[test]
    fn the_pacing_gap_is_the_packet_over_the_rate_and_stays_on_its_destination() {
        use crate::sctp::path::Rto;
        let mut k = crate::sctp::config::preset(crate::sctp::config::Variant::Rfc9260);
        k.congestion_control = crate::cc::Algorithm::Cubic;
        k.pacing = true;
        let m = 1468.0;
        let path = |k: &crate::sctp::config::Knobs, last: u8| {
            let rto = Rto::new(
                SimDuration::from_secs(3),
                SimDuration::from_secs(1),
                SimDuration::from_secs(60),
            );
            let mut p = Path::new([10, 0, 0, last], 1468, 10.0 * m, 20.0 * m, rto);
            p.cc = super::super::path_cc::for_knobs(k);
            p.rto.sample(0.1);
            p
        };
        let (mut a, b) = (path(&k, 2), path(&k, 3));
        // CUBIC in slow start (cwnd 10 < ssthresh 20 MTU), SRTT 100 ms: Linux's rate
        // 2 x 10 x 1468 B / 0.1 s = 293,600 B/s; a 1500-byte packet holds the next one
        // back 1500 / 293,600 s = 5.109 ms. No rate record without BBR (number 0).
        assert_eq!(on_packet_sent(&mut a, ms(0), 1500.0, 0.0, false), 0);
        let gap = SimDuration::from_secs_f64(1500.0 / 293_600.0);
        assert_eq!(gap.as_nanos(), 5_108_992);
        assert_eq!(wait_until(&a, ms(0)), Some(ms(0) + gap));
        assert_eq!(wait_until(&a, ms(0) + gap), None);
        // The other destination is not held back.
        assert_eq!(wait_until(&b, ms(0)), None);
        // With BBR the first packet makes the destination's BBR and gets number 1;
        // before an RTT sample BBR has no rate, so no gap.
        k.congestion_control = crate::cc::Algorithm::Bbr;
        let mut c = path(&k, 4);
        assert_eq!(on_packet_sent(&mut c, ms(0), 1500.0, 0.0, false), 1);
        assert_eq!(on_packet_sent(&mut c, ms(0), 1500.0, 1.0, false), 2);
        assert_eq!(wait_until(&c, ms(0)), None);
    }

    #[test]
    fn a_retransmission_samples_from_its_own_send_not_the_first() {
        // Packets 1-4 leave at 0 ms; 1 is lost, 2-4 are SACKed at 100-102 ms (3
        // delivered). Packet 1's chunk is resent at 300 ms as packet 5 with P.delivered
        // = 3 and P.delivered_time = 102 ms; its SACK at 400 ms delivers 1 segment: 1
        // over max(send 300 - 0 = 300 ms (first_sent is packet 4's send, 0 ms),
        // ack 400 - 102 = 298 ms) = 1 / 0.3 s, not 4 segments as the first send's
        // record would have it.
        let mut r = PathRates::default();
        for i in 0..4 {
            r.on_send(ms(0), false, f64::from(i));
        }
        for (k, id) in (2..=4u32).enumerate() {
            r.on_sack(ms(100 + k as u64), 1.0, id, Some(0.1));
        }
        let id = r.on_send(ms(300), false, 1.0);
        assert_eq!(id, 5);
        let rs = r.on_sack(ms(400), 1.0, 5, None);
        assert_eq!(rs.prior_delivered, 3.0);
        assert_eq!(rs.delivered, 1.0);
        assert!(close(rs.interval, 0.3), "{rs:?}");
        // A record dropped (older than one sampled) gives no sample.
        let rs = r.on_sack(ms(401), 0.0, 2, None);
        assert!(rs.interval < 0.0 && rs.delivered == 0.0);
    }
}
