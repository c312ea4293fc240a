//! UDP constant-bit-rate source and sink, for testing the network model.
//!
//! `rate` is the application (UDP payload) bit rate: a packet of `payload` bytes leaves
//! every `payload * 8 / rate` seconds from `start` while the time is before `stop`. On
//! the wire each packet carries 28 more bytes of IPv4 and UDP header.
//!
//! With jitter (ns-2.35's `random_ 1`, which seed 004's `cbrgen.tcl` sets), the first
//! packet still leaves at `start` (`CBR_Traffic::start` sends at once) and each gap after
//! a packet is `interval * (1 + U(-0.5, 0.5))`, drawn anew per packet
//! (`CBR_Traffic::next_interval`), so the mean rate is kept.

use super::{Endpoint, EndpointEvent, SendKind};
use crate::metrics::Window;
use crate::net::wire::{TransportRepr, UdpRepr};
use crate::net::{Packet, PacketKind};
use crate::sim::{RngStream, SimDuration, SimTime};
use std::collections::VecDeque;

pub struct CbrSource {
    ports: (u16, u16),
    payload: u32,
    interval: SimDuration,
    next_send: SimTime,
    stop: Option<SimTime>,
    due: bool,
    next_num: u32,
    window: Window,
    trace: bool,
    /// The stream of the gaps' jitter, when on.
    jitter: Option<RngStream>,
    events: VecDeque<EndpointEvent>,
    pub sent_packets: u64,
    pub sent_bytes: u64,
}

impl CbrSource {
    pub fn new(
        ports: (u16, u16),
        payload: u32,
        rate_bps: u64,
        start: SimTime,
        stop: Option<SimTime>,
        window: Window,
        trace: bool,
    ) -> Self {
        CbrSource {
            ports,
            payload,
            interval: SimDuration::transmission(u64::from(payload), rate_bps),
            next_send: start,
            stop,
            due: false,
            next_num: 1,
            window,
            trace,
            jitter: None,
            events: VecDeque::new(),
            sent_packets: 0,
            sent_bytes: 0,
        }
    }

    /// Jitters every gap with draws from `rng` (ns-2's `random_ 1`; see the module docs).
    pub fn with_jitter(mut self, rng: Option<RngStream>) -> Self {
        self.jitter = rng;
        self
    }

    fn stopped(&self, t: SimTime) -> bool {
        self.stop.is_some_and(|s| t >= s)
    }

    /// The gap after the packet just sent (`CBR_Traffic::next_interval`:
    /// `interval_ + interval_ * Random::uniform(-0.5, 0.5)` with `random_` set).
    fn next_gap(&mut self) -> SimDuration {
        match self.jitter.as_mut() {
            None => self.interval,
            Some(rng) => {
                let ns = self.interval.as_nanos() as f64;
                SimDuration::from_nanos((ns + ns * (rng.uniform() - 0.5)).round() as u64)
            }
        }
    }
}

impl Endpoint for CbrSource {
    fn handle_packet(&mut self, _now: SimTime, _pkt: &Packet) {}

    fn handle_timeout(&mut self, now: SimTime) {
        if now >= self.next_send && !self.stopped(self.next_send) {
            self.due = true;
        }
    }

    fn poll_transmit(&mut self, now: SimTime, pkt: &mut Packet) -> bool {
        if !self.due {
            return false;
        }
        self.due = false;
        pkt.transport = TransportRepr::Udp(UdpRepr {
            src_port: self.ports.0,
            dst_port: self.ports.1,
        });
        pkt.payload_len = self.payload;
        pkt.kind = PacketKind::Data;
        pkt.data_num = self.next_num;
        pkt.ack_num = 0;
        if self.window.contains(now) {
            self.sent_packets += 1;
            self.sent_bytes += u64::from(self.payload);
        }
        if self.trace {
            self.events.push_back(EndpointEvent::Sent {
                seq: self.next_num,
                kind: SendKind::New,
                dest: [0; 4],
            });
        }
        self.next_num += 1;
        let gap = self.next_gap();
        self.next_send += gap;
        pkt.finalize();
        true
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        (!self.due && !self.stopped(self.next_send)).then_some(self.next_send)
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.events.pop_front()
    }

    fn is_done(&self) -> bool {
        !self.due && self.stopped(self.next_send)
    }

    fn endless(&self) -> bool {
        self.stop.is_none()
    }
}

/// Counts what a CBR source's packets achieved at the receiver.
pub struct UdpSink {
    window: Window,
    /// Payload bytes received inside the window.
    pub delivered_bytes: u64,
    pub delivered_packets: u64,
    /// Packets received that were sent inside the window, for the loss count.
    pub received_sent_in_window: u64,
    pub delay_sum_ns: u128,
    pub delay_max_ns: u64,
}

impl UdpSink {
    pub fn new(window: Window) -> Self {
        UdpSink {
            window,
            delivered_bytes: 0,
            delivered_packets: 0,
            received_sent_in_window: 0,
            delay_sum_ns: 0,
            delay_max_ns: 0,
        }
    }
}

impl Endpoint for UdpSink {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        if self.window.contains(pkt.created) {
            self.received_sent_in_window += 1;
        }
        if self.window.contains(now) {
            self.delivered_bytes += u64::from(pkt.payload_len);
            self.delivered_packets += 1;
            let delay = (now - pkt.created).as_nanos();
            self.delay_sum_ns += u128::from(delay);
            self.delay_max_ns = self.delay_max_ns.max(delay);
        }
    }
    fn handle_timeout(&mut self, _now: SimTime) {}
    fn poll_transmit(&mut self, _now: SimTime, _pkt: &mut Packet) -> bool {
        false
    }
    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    fn is_done(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Send times of the first `n` packets of a 16 kb/s source of 512-byte payloads
    /// (interval 0.256 s) started at 1 s.
    fn send_times(jitter: Option<RngStream>, n: usize) -> Vec<SimTime> {
        let start = SimTime::ZERO + SimDuration::from_secs(1);
        let mut src = CbrSource::new((1, 2), 512, 16_000, start, None, Window::ALL, false)
            .with_jitter(jitter);
        let mut pkt = Packet::default();
        let mut out = Vec::new();
        while out.len() < n {
            let at = src.poll_timeout().expect("endless source");
            src.handle_timeout(at);
            assert!(src.poll_transmit(at, &mut pkt));
            out.push(at);
        }
        out
    }

    #[test]
    fn jittered_gaps_are_the_interval_times_u_half_to_one_and_a_half() {
        // ns-2.35 CBR_Traffic with random_ 1: the first packet at start, then each gap
        // interval_ + interval_ * Random::uniform(-0.5, 0.5), here 0.256 s * [0.5, 1.5).
        let even = send_times(None, 3);
        let ms = |t: SimTime| t.saturating_since(SimTime::ZERO).as_nanos() / 1_000_000;
        assert_eq!(
            even.iter().map(|&t| ms(t)).collect::<Vec<_>>(),
            [1000, 1256, 1512]
        );
        let n = 20_000;
        let t = send_times(Some(RngStream::new(1, "flow:bg.0:jitter")), n);
        assert_eq!(t[0], even[0]);
        let gaps: Vec<u64> = t
            .windows(2)
            .map(|w| w[1].saturating_since(w[0]).as_nanos())
            .collect();
        assert!(
            gaps.iter()
                .all(|&g| (128_000_000..384_000_000).contains(&g))
        );
        // The factor is uniform: mean 1 (standard error 0.2887 / sqrt(19 999) = 0.002),
        // and each tenth of [0.5, 1.5) holds about a tenth of the gaps (2000 +- 42 each).
        let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64 / 256e6;
        assert!((mean - 1.0).abs() < 0.01, "{mean}");
        let mut tenths = [0usize; 10];
        for &g in &gaps {
            tenths[((g as f64 / 256e6 - 0.5) * 10.0) as usize] += 1;
        }
        assert!(
            tenths.iter().all(|&c| (1800..2200).contains(&c)),
            "{tenths:?}"
        );
    }
}
