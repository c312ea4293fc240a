//! UDP constant-bit-rate source and sink, for testing the network model.
//!
//! `rate` is the application (UDP payload) bit rate: a packet of `payload` bytes leaves
//! every `payload * 8 / rate` seconds from `start` while the time is before `stop`. On
//! the wire each packet carries 28 more bytes of IPv4 and UDP header.

use super::{Endpoint, EndpointEvent, SendKind};
use crate::metrics::Window;
use crate::net::wire::{TransportRepr, UdpRepr};
use crate::net::{Packet, PacketKind};
use crate::sim::{SimDuration, SimTime};
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
            events: VecDeque::new(),
            sent_packets: 0,
            sent_bytes: 0,
        }
    }

    fn stopped(&self, t: SimTime) -> bool {
        self.stop.is_some_and(|s| t >= s)
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
        self.next_send += self.interval;
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
