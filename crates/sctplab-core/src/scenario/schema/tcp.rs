//! `type = "tcp"` flows, and the congestion controller TCP and SCTP entries name.

use super::{default_rto_max, yes};
use crate::scenario::units::{Duration, Size};
use serde::Deserialize;

/// TCP loss-recovery algorithm (ns-2.35's one-way agents of the same names).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TcpVariant {
    Reno,
    Newreno,
    Sack,
    Fack,
}

/// The congestion controller of a TCP flow (`congestion_control`; docs/models/cc.md).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum CongestionControl {
    /// Today's window rules, which `variant` and the window knobs fix.
    #[default]
    Reno,
    /// RFC 9438 with HyStart++ (RFC 9406) unless `hystart = false`.
    Cubic,
    /// BBR v1 (Linux 4.9 `tcp_bbr.c`, ns-3 `TcpBbr`), always paced.
    Bbr,
}

impl From<CongestionControl> for crate::cc::Algorithm {
    fn from(c: CongestionControl) -> Self {
        match c {
            CongestionControl::Reno => crate::cc::Algorithm::Reno,
            CongestionControl::Cubic => crate::cc::Algorithm::Cubic,
            CongestionControl::Bbr => crate::cc::Algorithm::Bbr,
        }
    }
}

/// How the TCP congestion window is counted on a loss.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum WindowUnit {
    /// ns-2: the window in whole segments; cuts halve the window (cwnd, capped by the
    /// receiver window).
    #[default]
    Segments,
    /// RFC 5681: cuts set ssthresh = max(FlightSize / 2, 2 SMSS) (eq. 4), in bytes, and
    /// cwnd = ssthresh after a fast retransmit; there FlightSize leaves out what limited
    /// transmit sent (RFC 5681 sec. 3.2 step 2).
    Bytes,
}

/// A TCP connection: a one-way sender and a receiver (sink). Defaults are ns-2.35's
/// `Agent/TCP` and `Agent/TCPSink` defaults; docs/models/tcp.md gives each knob's source.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct TcpCfg {
    pub name: String,
    pub from: String,
    pub to: String,
    pub variant: TcpVariant,
    /// The window's controller; loss recovery stays `variant`'s (docs/models/cc.md).
    #[serde(default)]
    pub congestion_control: CongestionControl,
    /// HyStart++ (RFC 9406) in CUBIC's first slow start; absent: on with `"cubic"`.
    #[serde(default)]
    pub hystart: Option<bool>,
    /// Pace segments at the controller's rate; absent: on with `"bbr"`, off otherwise.
    #[serde(default)]
    pub pacing: Option<bool>,
    /// ECN-capable: new data segments leave as ECT(0) (RFC 3168).
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub start: Option<Duration>,
    /// The application stops offering new data (bulk transfers only).
    #[serde(default)]
    pub stop: Option<Duration>,
    /// Finite transfer of this many bytes; a bulk (always backlogged) transfer if absent.
    #[serde(default)]
    pub bytes: Option<Size>,
    /// Payload bytes per segment (ns-2 `packetSize_`).
    #[serde(default = "default_segment_size")]
    pub segment_size: Size,
    #[serde(default)]
    pub window_unit: WindowUnit,
    /// Largest window in segments, the receiver's advertised window (ns-2 `window_`).
    #[serde(default = "default_window")]
    pub window: u32,
    /// Initial congestion window in segments (ns-2 `windowInit_`).
    #[serde(default = "default_initial_window")]
    pub initial_window: f64,
    /// Initial ssthresh in segments; defaults to `window` (ns-2 `TcpAgent::reset`).
    #[serde(default)]
    pub initial_ssthresh: Option<f64>,
    #[serde(default = "default_dupack_threshold")]
    pub dupack_threshold: u32,
    /// Send a new segment on each of the first two duplicate acks (RFC 3042;
    /// ns-2 `singledup_`).
    #[serde(default = "yes")]
    pub limited_transmit: bool,
    /// Slow start while cwnd <= ssthresh (RFC 5681 allows it); ns-2 does congestion
    /// avoidance when cwnd == ssthresh.
    #[serde(default)]
    pub slow_start_at_ssthresh: bool,
    /// The ack of the first segment does not open the window (ns-2 `delay_growth_`,
    /// meant for its SYN; with no SYN it applies to the first data segment). With
    /// `handshake` the SYN-ACK is that ack, and data acks grow the window as usual. Not
    /// used by `fack`, as in ns-2.
    #[serde(default)]
    pub delay_growth: bool,
    /// Halve the window without truncating to whole segments (ns-2 `precisionReduce_`).
    #[serde(default = "yes")]
    pub precision_reduce: bool,
    /// NewReno: deflate the window by the amount a partial ack acknowledges
    /// (ns-2 `partial_window_deflation_`, RFC 6582).
    #[serde(default = "yes")]
    pub partial_window_deflation: bool,
    /// NewReno: re-arm the retransmission timer only on the first partial ack
    /// (ns-2 `newreno_changes1_`, RFC 6582's "Impatient" variant).
    #[serde(default = "yes")]
    pub reset_timer_on_first_partial_ack_only: bool,
    /// Maximum segments sent in response to one ack; 0 for no limit (ns-2 `maxburst_`).
    #[serde(default)]
    pub max_burst: u32,
    #[serde(default = "default_rto_min")]
    pub rto_min: Duration,
    #[serde(default = "default_rto_initial")]
    pub rto_initial: Duration,
    #[serde(default = "default_rto_max")]
    pub rto_max: Duration,
    /// RTT samples and RTO are computed in ticks of this length (ns-2 `tcpTick_`).
    #[serde(default = "default_clock_granularity")]
    pub clock_granularity: Duration,
    /// The receiver delays acks: one ack per two segments or after `delayed_ack_timeout`,
    /// at once for out-of-order data (RFC 5681 sec. 4.2).
    #[serde(default)]
    pub delayed_ack: bool,
    /// Longest delay of an ack: 100 ms, ns-2.35's `Agent/TCPSink/DelAck` and
    /// `TCPSink/Sack1/DelAck` `interval_` (RFC 5681 4.2 allows up to 500 ms).
    #[serde(default = "default_tcp_delayed_ack_timeout")]
    pub delayed_ack_timeout: Duration,
    /// SACK blocks per ack (ns-2 `maxSackBlocks_`); used by `sack` and `fack`.
    #[serde(default = "default_max_sack_blocks")]
    pub max_sack_blocks: u32,
    /// Open the connection with SYN, SYN-ACK, ACK (and SACK-permitted) so connect time is
    /// measured; without it data starts at once, like ns-2's one-way agents.
    #[serde(default)]
    pub handshake: bool,
    /// Message sources written into the byte stream (`scenario/tcp_streams.rs`).
    #[serde(default)]
    pub stream_traffic: Option<Vec<crate::scenario::streams::StreamTrafficEntry>>,
}

fn default_segment_size() -> Size {
    Size(1000)
}
fn default_window() -> u32 {
    20
}
fn default_initial_window() -> f64 {
    2.0
}
fn default_dupack_threshold() -> u32 {
    3
}
fn default_rto_min() -> Duration {
    Duration(crate::sim::SimDuration::from_millis(200))
}
fn default_rto_initial() -> Duration {
    Duration(crate::sim::SimDuration::from_secs(3))
}
fn default_clock_granularity() -> Duration {
    Duration(crate::sim::SimDuration::from_millis(10))
}
fn default_tcp_delayed_ack_timeout() -> Duration {
    Duration(crate::sim::SimDuration::from_millis(100))
}
fn default_max_sack_blocks() -> u32 {
    3
}

// As for SCTP (sctp.rs), this mapping and `TcpCfg::endpoint_cfgs` are the one place a
// TCP flow entry becomes the protocol machine's own configuration types.

impl From<TcpVariant> for crate::tcp::Variant {
    fn from(v: TcpVariant) -> Self {
        use crate::tcp::Variant as V;
        match v {
            TcpVariant::Reno => V::Reno,
            TcpVariant::Newreno => V::Newreno,
            TcpVariant::Sack => V::Sack,
            TcpVariant::Fack => V::Fack,
        }
    }
}

impl TcpCfg {
    /// The sender's and the receiver's configurations of this connection, started at
    /// `start`'s offset from time zero and measured over `window`.
    pub fn endpoint_cfgs(
        &self,
        ports: (u16, u16),
        window: crate::metrics::Window,
        trace_sends: bool,
        trace_acks: bool,
    ) -> (crate::tcp::SenderCfg, crate::tcp::ReceiverCfg) {
        use crate::sim::{SimDuration, SimTime};
        let start = SimTime::ZERO + self.start.map_or(SimDuration::ZERO, |d| d.0);
        let map = crate::tcp::SeqMap {
            iss: 0,
            mss: self.segment_size.0,
            total: self.bytes.map(|b| b.0),
        };
        let variant = crate::tcp::Variant::from(self.variant);
        let sack = variant.uses_sack();
        let sender = crate::tcp::SenderCfg {
            variant,
            ports,
            map,
            wnd: f64::from(self.window),
            initial_window: self.initial_window,
            initial_ssthresh: self.initial_ssthresh.unwrap_or(f64::from(self.window)),
            numdupacks: i64::from(self.dupack_threshold),
            limited_transmit: self.limited_transmit,
            delay_growth: self.delay_growth,
            rules: crate::tcp::CongestionRules {
                slow_start_at_ssthresh: self.slow_start_at_ssthresh,
                precision_reduce: self.precision_reduce,
                flight_based_cut: self.window_unit == WindowUnit::Bytes,
            },
            congestion_control: self.congestion_control.into(),
            hystart: self
                .hystart
                .unwrap_or(self.congestion_control == CongestionControl::Cubic),
            pacing: self
                .pacing
                .unwrap_or(self.congestion_control == CongestionControl::Bbr),
            partial_window_deflation: self.partial_window_deflation,
            reset_timer_first_partial_only: self.reset_timer_on_first_partial_ack_only,
            max_burst: self.max_burst,
            rto_initial: self.rto_initial.0,
            rto_min: self.rto_min.0,
            rto_max: self.rto_max.0,
            tick: self.clock_granularity.0,
            handshake: self.handshake,
            sack_permitted: sack,
            start,
            stop: self.stop.map(|d| SimTime::ZERO + d.0),
            window,
            trace_sends,
            trace_acks,
        };
        let receiver = crate::tcp::ReceiverCfg {
            ports,
            map,
            sack,
            max_sack_blocks: self.max_sack_blocks as usize,
            delayed_ack: self.delayed_ack.then_some(self.delayed_ack_timeout.0),
            window,
            start,
        };
        (sender, receiver)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_entry_maps_onto_sender_and_receiver() {
        let c: TcpCfg = toml::from_str(
            "name = \"t\"\nfrom = \"a\"\nto = \"b\"\nvariant = \"fack\"\nstart = \"1s\"",
        )
        .expect("tcp entry");
        let (s, r) = c.endpoint_cfgs((1, 2), crate::metrics::Window::ALL, false, false);
        assert_eq!(s.variant, crate::tcp::Variant::Fack);
        // FACK rides on SACK (ns-2.35 `Agent/TCP/Fack` with a `TCPSink/Sack1`).
        assert!(s.sack_permitted && r.sack);
        // ns-2 `TcpAgent::reset`: ssthresh starts at window_ (20 by default).
        assert_eq!(s.initial_ssthresh, 20.0);
        assert_eq!(s.start.as_nanos(), 1_000_000_000);
        assert_eq!(r.start, s.start);
    }
}
