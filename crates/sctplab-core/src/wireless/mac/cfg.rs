//! The MAC's configuration (ns-2.35's Mac/802_11 parameters and the times derived from
//! them), what it reports to the world, and its counters.

use crate::net::PacketId;
use crate::sim::SimDuration;

use super::super::frame::MacAddr;

/// Every parameter of ns-2.35's Mac/802_11 that matters in ad hoc mode, plus the PHY's
/// capture threshold (ns-2 hands `CPThresh_` to the MAC on each packet) and the
/// interface queue's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct MacCfg {
    /// `SlotTime_`.
    pub slot: SimDuration,
    /// `SIFS_`.
    pub sifs: SimDuration,
    /// `CWMin_`, `CWMax_`. ns-2 draws a backoff as `Random::random() % cw` slots, i.e.
    /// 0..=cw-1 (31 values at CWMin 31).
    pub cw_min: u32,
    pub cw_max: u32,
    /// `RTSThreshold_` in bytes, compared (as ns-2 does) with the MAC frame size
    /// *including* the PLCP preamble and header: IP bytes + 58 at the defaults. RTS/CTS
    /// is used unless that size is below the threshold.
    pub rts_threshold: u32,
    /// `ShortRetryLimit_`, `LongRetryLimit_`.
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    /// `PreambleLength_`, `PLCPHeaderLength_` (bits), `PLCPDataRate_` (bit/s).
    pub preamble_bits: u32,
    pub plcp_header_bits: u32,
    pub plcp_rate_bps: u64,
    /// `dataRate_`: unicast DATA.
    pub data_rate_bps: u64,
    /// `basicRate_`: RTS, CTS, ACK and (ns-2 `sendDATA`, "see 9.6") broadcast DATA.
    pub basic_rate_bps: u64,
    /// `offsetof(hdr_mac802_11, dh_body)`: fc 2 + duration 2 + four addresses 4x6 +
    /// sequence control 2 = 30 bytes.
    pub data_header_bytes: u32,
    /// `ETHER_FCS_LEN`.
    pub fcs_bytes: u32,
    /// `sizeof(rts_frame)` 20, `sizeof(cts_frame)` 14, `sizeof(ack_frame)` 14.
    pub rts_bytes: u32,
    pub cts_bytes: u32,
    pub ack_bytes: u32,
    /// `DSSS_MaxPropagationDelay`, added twice to each response timeout.
    pub max_propagation_delay: SimDuration,
    /// `bugFix_timer_`: on, channel access goes through the (freezable) backoff timer;
    /// off, through a DIFS + random defer that does not freeze.
    pub bug_fix_timer: bool,
    /// Phy `CPThresh_`: a frame arriving during a reception is ignored (captured) if the
    /// frame being received is at least this many times stronger.
    pub cp_thresh: f64,
    /// Interface queue `limit_` and PriQueue `Prefer_Routing_Protocols`.
    pub ifq_limit: u32,
    pub prefer_routing: bool,
}

impl MacCfg {
    /// ns-2.35's defaults (tcl/lib/ns-default.tcl; compile-time frame sizes from
    /// mac-802_11.h). Both rates are 1 Mb/s there; seed 004 sets both to 2 Mb/s.
    pub fn ns2() -> MacCfg {
        MacCfg {
            slot: SimDuration::from_micros(20),
            sifs: SimDuration::from_micros(10),
            cw_min: 31,
            cw_max: 1023,
            rts_threshold: 0,
            short_retry_limit: 7,
            long_retry_limit: 4,
            preamble_bits: 144,
            plcp_header_bits: 48,
            plcp_rate_bps: 1_000_000,
            data_rate_bps: 1_000_000,
            basic_rate_bps: 1_000_000,
            data_header_bytes: 30,
            fcs_bytes: 4,
            rts_bytes: 20,
            cts_bytes: 14,
            ack_bytes: 14,
            max_propagation_delay: SimDuration::from_micros(2),
            bug_fix_timer: true,
            cp_thresh: 10.0,
            ifq_limit: 50,
            prefer_routing: true,
        }
    }

    /// `PHY_MIB::getDIFS()`: SIFS + 2 slots.
    pub fn difs(&self) -> SimDuration {
        self.sifs + self.slot.saturating_mul(2)
    }

    /// `PHY_MIB::getPIFS()`: SIFS + 1 slot (unused in DCF, kept for completeness).
    pub fn pifs(&self) -> SimDuration {
        self.sifs + self.slot
    }

    /// `getPLCPhdrLen()`: preamble and PLCP header in whole bytes (ns-2 shifts right 3).
    pub fn plcp_bytes(&self) -> u32 {
        (self.preamble_bits + self.plcp_header_bits) >> 3
    }

    /// `PHY_MIB::getEIFS()`: SIFS + DIFS + an ACK (PLCP included) at the PLCP rate, the
    /// whole ACK at 1 Mb/s as 802.11-1999 9.2.10 reads it: 10 + 50 + 304 = 364 us.
    pub fn eifs(&self) -> SimDuration {
        self.sifs
            + self.difs()
            + SimDuration::transmission(
                u64::from(self.plcp_bytes() + self.ack_bytes),
                self.plcp_rate_bps,
            )
    }

    /// ns-2 `txtime(psz, drt)`: the PLCP part at the PLCP rate plus `mac_bytes` (MAC
    /// header, body, FCS) at `rate_bps`.
    pub fn airtime(&self, mac_bytes: u32, rate_bps: u64) -> SimDuration {
        SimDuration::transmission(u64::from(self.plcp_bytes()), self.plcp_rate_bps)
            + SimDuration::transmission(u64::from(mac_bytes), rate_bps)
    }

    /// `getHdrLen11()`: what ns-2 adds to a packet's size in `sendDATA` (PLCP + MAC
    /// header + FCS = 58 bytes at the defaults).
    pub fn hdr_len11(&self) -> u32 {
        self.plcp_bytes() + self.data_header_bytes + self.fcs_bytes
    }
}

/// What the MAC tells the world.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MacEvent {
    /// A DATA frame for this NIC (or broadcast) was received intact and is not a
    /// duplicate: pass a copy of `packet` up. `from` is the transmitter.
    Received { packet: PacketId, from: MacAddr },
    /// With the tap on (`Mac::set_tap`): an intact DATA frame for another station
    /// carrying `packet` (the sender's; read it, do not keep it).
    Overheard { packet: PacketId, from: MacAddr },
    /// The MAC is done with `packet`: a unicast was acknowledged, or a broadcast's
    /// transmission ended.
    Sent { packet: PacketId },
    /// A unicast reached its retry limit (ns-2 `xmit_failure_` callback, used by AODV's
    /// link-layer detection). The packet goes back to the world.
    Failed { packet: PacketId, next_hop: MacAddr },
    /// The packet was dropped before the MAC took it.
    Dropped {
        packet: PacketId,
        reason: DropReason,
    },
    /// The interface queue's discipline marked the packet CE (`[wireless] aqm` with
    /// `ecn`): the world sets its ECN field before it goes on the air.
    Marked { packet: PacketId },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// Interface queue overflow (ns-2 trace reason `IFQ`).
    IfqFull,
    /// The interface queue's discipline chose it (ns-2 traces it as `IFQ` too: the
    /// queue's drop target).
    Aqm,
}

/// Online counters of one NIC (whole run; the world windows them if needed).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MacCounters {
    pub rts_sent: u64,
    pub cts_sent: u64,
    /// Unicast DATA frames put on the air, retransmissions included.
    pub data_sent: u64,
    pub broadcast_sent: u64,
    pub ack_sent: u64,
    /// DATA frames sent with the retry bit.
    pub data_retransmissions: u64,
    /// Increments of the short retry count (RTS without CTS; DATA at or below the RTS
    /// threshold without ACK).
    pub short_retries: u64,
    /// Increments of the long retry count (DATA above the RTS threshold without ACK).
    pub long_retries: u64,
    /// Packets given up at the short / long retry limit (`Failed` events).
    pub failed_short: u64,
    pub failed_long: u64,
    pub acked: u64,
    pub delivered: u64,
    pub duplicates: u64,
    /// Overlapping arrivals resolved as a collision, and as a capture.
    pub collisions: u64,
    pub captures: u64,
    /// Receptions that ended after a collision (dropped, EIFS).
    pub rx_collided: u64,
    /// Receptions that ended errored: below RXThresh, or hit by our own transmission
    /// after it ended (EIFS).
    pub rx_errors: u64,
    /// Receptions that ended while we were transmitting (silently lost).
    pub rx_missed_tx: u64,
    /// Frames for this NIC discarded by the state machine: RTS/DATA while busy
    /// (`DROP_MAC_BUSY`), CTS/ACK not expected (`DROP_MAC_INVALID_STATE`).
    pub busy_discards: u64,
    pub invalid_state_discards: u64,
    /// CTS not sent because the medium was busy (NAV) when SIFS ended.
    pub cts_suppressed: u64,
    pub ifq_drops: u64,
}

/// ns-2 `usec()`: a duration as the 16-bit microsecond count of a Duration field,
/// rounded to the nearest microsecond (saturating instead of wrapping above 65535 us).
pub(super) fn usec(d: SimDuration) -> SimDuration {
    let us = d.as_nanos().saturating_add(500) / 1_000;
    SimDuration::from_micros(us.min(u64::from(u16::MAX)))
}
