//! Per-destination sender state (RFC 9260 sec. 6.3, 7.2): cwnd, ssthresh,
//! partial_bytes_acked, bytes outstanding, the RTO estimator and the T3-rtx timer live
//! on the path, not the association, so multihoming is an extension, not a rewrite.

use crate::sim::{SimDuration, SimTime};

#[derive(Clone, Debug)]
pub struct Path {
    /// The "MTU" cwnd steps are counted in: the bytes of chunks one packet can carry
    /// (PMTU - 12 common header - 20 IPv4), as ns-2's `uiMaxDataSize`.
    pub mtu: f64,
    pub cwnd: f64,
    pub ssthresh: f64,
    pub pba: f64,
    /// Chunk bytes sent and neither acked nor gap-acked (ns-2 `iOutstandingBytes`;
    /// chunks marked for retransmission are taken out until resent).
    pub outstanding: f64,
    pub rto: Rto,
    pub t3: Option<SimTime>,
    /// TSN timed for the RTT sample in progress and its send time (one per round trip).
    pub rtt_pending: Option<(u32, SimTime)>,
    pub error_count: u32,
    /// Time of the last packet sent to this destination (heartbeats on idle paths).
    pub last_send: SimTime,
}

/// RTO estimator of RFC 9260 sec. 6.3.1 (alpha 1/8, beta 1/4), continuous time.
#[derive(Clone, Debug)]
pub struct Rto {
    srtt: Option<f64>,
    rttvar: f64,
    rto: f64,
    min: f64,
    max: f64,
}

impl Rto {
    pub fn new(initial: SimDuration, min: SimDuration, max: SimDuration) -> Self {
        Rto {
            srtt: None,
            rttvar: 0.0,
            rto: initial.as_secs_f64(),
            min: min.as_secs_f64(),
            max: max.as_secs_f64(),
        }
    }

    pub fn sample(&mut self, r: f64) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(srtt) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (srtt - r).abs();
                self.srtt = Some(0.875 * srtt + 0.125 * r);
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        self.rto = (srtt + 4.0 * self.rttvar).clamp(self.min, self.max);
    }

    /// RFC 9260 sec. 6.3.3 E2: RTO doubles on each T3 expiry, up to RTO.Max.
    pub fn back_off(&mut self) {
        self.rto = (self.rto * 2.0).min(self.max);
    }

    pub fn current(&self) -> SimDuration {
        SimDuration::from_secs_f64(self.rto)
    }

    pub fn srtt(&self) -> Option<f64> {
        self.srtt
    }
}

impl Path {
    pub fn new(mtu: u64, cwnd: f64, ssthresh: f64, rto: Rto) -> Self {
        Path {
            mtu: mtu as f64,
            cwnd,
            ssthresh,
            pba: 0.0,
            outstanding: 0.0,
            rto,
            t3: None,
            rtt_pending: None,
            error_count: 0,
            last_send: SimTime::ZERO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rto_follows_rfc9260_6_3_1() {
        let mut r = Rto::new(
            SimDuration::from_secs(3),
            SimDuration::from_secs(1),
            SimDuration::from_secs(60),
        );
        assert_eq!(r.current(), SimDuration::from_secs(3));
        // R = 0.5 s: SRTT 0.5, RTTVAR 0.25, RTO 1.5 s.
        r.sample(0.5);
        assert_eq!(r.current(), SimDuration::from_millis(1500));
        // R' = 0.3 s: RTTVAR = 0.75*0.25 + 0.25*0.2 = 0.2375; SRTT = 0.875*0.5 + 0.125*0.3
        // = 0.475; RTO = 0.475 + 0.95 = 1.425 s.
        r.sample(0.3);
        assert_eq!(r.current(), SimDuration::from_millis(1425));
        // Small RTTs are held at RTO.Min = 1 s; backoff doubles up to RTO.Max.
        let mut r = Rto::new(
            SimDuration::from_secs(3),
            SimDuration::from_secs(1),
            SimDuration::from_secs(60),
        );
        r.sample(0.01);
        assert_eq!(r.current(), SimDuration::from_secs(1));
        for _ in 0..10 {
            r.back_off();
        }
        assert_eq!(r.current(), SimDuration::from_secs(60));
    }
}
