//! Protocol endpoints: sans-IO state machines driven by the run loop.
//!
//! An endpoint has no clock and no I/O. The simulator (or any other driver) feeds it
//! packets and timer expiries, then polls it for packets to send, its next deadline and
//! the events it wants traced — the shape of quinn-proto's `Connection`.

pub mod cbr;
pub(crate) mod message_sources;

use crate::net::Packet;
use crate::sim::SimTime;

/// How a data unit was sent (sends.csv `kind`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SendKind {
    New,
    FastRtx,
    RtoRtx,
}

impl SendKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SendKind::New => "new",
            SendKind::FastRtx => "fast_rtx",
            SendKind::RtoRtx => "rto_rtx",
        }
    }
}

/// Something an endpoint did that traces record.
#[derive(Clone, Debug, PartialEq)]
pub enum EndpointEvent {
    /// A data unit (TCP segment, SCTP DATA chunk, UDP datagram) was handed to the network,
    /// toward `dest` (`[0; 4]`: the flow's peer address, for single-destination machines).
    Sent {
        seq: u32,
        kind: SendKind,
        dest: [u8; 4],
    },
    /// The sender processed an acknowledgement. Gaps are inclusive ranges of packet
    /// numbers; only built when ack tracing is on.
    AckReceived {
        cum_ack: u32,
        gaps: Vec<(u32, u32)>,
        dups: u32,
        rwnd_bytes: u64,
    },
}

/// The interface every protocol machine implements.
pub trait Endpoint {
    /// A packet addressed to this endpoint arrived.
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet);
    /// The deadline last returned by `poll_timeout` has passed. Spurious calls are no-ops.
    fn handle_timeout(&mut self, now: SimTime);
    /// Writes the next packet to send into `pkt` (transport header, payload length, kind,
    /// data number) and `finalize`s it, so its sizes are set (an endpoint that counts the
    /// bytes it sends needs them, and one pass over SCTP's chunks is enough); the driver
    /// fills in addresses, which the sizes do not depend on. Returns false if there is
    /// nothing to send now.
    fn poll_transmit(&mut self, now: SimTime, pkt: &mut Packet) -> bool;
    /// The next time `handle_timeout` must be called, if any.
    fn poll_timeout(&self) -> Option<SimTime>;
    /// The next event for the traces, if any.
    fn poll_event(&mut self) -> Option<EndpointEvent> {
        None
    }
    /// Whether this endpoint's part of the flow is over (finite transfer delivered,
    /// source stopped).
    fn is_done(&self) -> bool;
    /// Whether `is_done` can never become true (a source with no end).
    fn endless(&self) -> bool {
        false
    }
    /// Current values of sampled variables (`cwnd`, `ssthresh`, ...).
    fn sample(&self, _out: &mut dyn FnMut(&'static str, f64)) {}
    /// Current values of per-destination variables of a machine that sends to several
    /// peer addresses (SCTP multihoming): `out(destination, name, value)`.
    fn sample_paths(&self, _out: &mut dyn FnMut([u8; 4], &'static str, f64)) {}
    /// The run ends at `now`: close intervals still open (for summaries).
    fn finish(&mut self, _now: SimTime) {}
}

/// Every endpoint kind, for static dispatch on the hot path.
/// Large machines are boxed so the enum (and the endpoint arena) stays compact.
pub enum AnyEndpoint {
    CbrSource(cbr::CbrSource),
    UdpSink(cbr::UdpSink),
    TcpSender(Box<crate::tcp::TcpSender>),
    TcpReceiver(Box<crate::tcp::TcpReceiver>),
    Sctp(Box<crate::sctp::Association>),
    Quic(Box<crate::quic::QuicEndpoint>),
}

macro_rules! dispatch {
    ($self:ident, $e:ident => $body:expr) => {
        match $self {
            AnyEndpoint::CbrSource($e) => $body,
            AnyEndpoint::UdpSink($e) => $body,
            AnyEndpoint::TcpSender($e) => $body,
            AnyEndpoint::TcpReceiver($e) => $body,
            AnyEndpoint::Sctp($e) => $body,
            AnyEndpoint::Quic($e) => $body,
        }
    };
}

impl Endpoint for AnyEndpoint {
    // Always inlined (into the driver's `deliver`): with the QUIC arm the dispatch was
    // left a call of its own, 0.5 % of a TCP run's instructions.
    #[inline(always)]
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        dispatch!(self, e => e.handle_packet(now, pkt))
    }
    fn handle_timeout(&mut self, now: SimTime) {
        dispatch!(self, e => e.handle_timeout(now))
    }
    // Always inlined (into the driver's `service`): the machines' own `poll_transmit`s
    // answer "nothing to send", the last call of every service, without a call.
    #[inline(always)]
    fn poll_transmit(&mut self, now: SimTime, pkt: &mut Packet) -> bool {
        dispatch!(self, e => e.poll_transmit(now, pkt))
    }
    fn poll_timeout(&self) -> Option<SimTime> {
        dispatch!(self, e => e.poll_timeout())
    }
    fn poll_event(&mut self) -> Option<EndpointEvent> {
        dispatch!(self, e => e.poll_event())
    }
    fn is_done(&self) -> bool {
        dispatch!(self, e => e.is_done())
    }
    fn endless(&self) -> bool {
        dispatch!(self, e => e.endless())
    }
    fn sample(&self, out: &mut dyn FnMut(&'static str, f64)) {
        dispatch!(self, e => e.sample(out))
    }
    fn sample_paths(&self, out: &mut dyn FnMut([u8; 4], &'static str, f64)) {
        dispatch!(self, e => e.sample_paths(out))
    }
    fn finish(&mut self, now: SimTime) {
        dispatch!(self, e => e.finish(now))
    }
}
