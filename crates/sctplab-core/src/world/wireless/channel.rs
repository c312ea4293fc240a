//! The shared channel, as ns-2.35's `WirelessChannel` (mac/channel.cc) runs it: a frame
//! put on the air reaches every NIC within carrier-sense range, found through the grid,
//! as one `RxStart` event each after the propagation delay; at its first bit the
//! receiver's power decides whether the MAC can decode it (two-ray ground,
//! `rx_power.rs`).

use super::rx_power::RxPower;
use super::{OnAir, Wireless};
use crate::sim::SimTime;
use crate::wireless::frame::Frame;
use crate::wireless::grid::Grid;
use crate::wireless::mobility::Mobility;
use crate::wireless::propagation::{self, Reception};
use crate::world::mac_digest::{Input, frame_key};
use crate::world::{Event, World};

/// The node whose own NICs do not receive a frame sent by `sender`'s node: the sender's
/// node itself, as ns-2.35's channel skips it (`WirelessChannel::sendUp`, mac/channel.cc:
/// `if (rnode == tnode) continue`), or no node (`usize::MAX`) with `same_node_delivery`.
pub(super) fn deaf_node(same_node_delivery: bool, sender: usize) -> usize {
    if same_node_delivery {
        usize::MAX
    } else {
        sender
    }
}

impl Wireless {
    pub(super) fn alloc_frame(&mut self, frame: Frame, sender: u32) -> u32 {
        let f = OnAir {
            frame,
            left: 0,
            sender,
        };
        match self.free_frames.pop() {
            Some(i) => {
                self.frames[i as usize] = f;
                i
            }
            None => {
                self.frames.push(f);
                (self.frames.len() - 1) as u32
            }
        }
    }

    /// Takes one receiver's look at frame `slot`: the frame and its sender's node; the
    /// slot is freed after the last receiver.
    #[inline]
    fn take_frame(&mut self, slot: u32) -> (Frame, usize) {
        let f = &mut self.frames[slot as usize];
        let out = (f.frame, f.sender as usize);
        if f.left <= 1 {
            self.free_frames.push(slot);
        } else {
            f.left -= 1;
        }
        out
    }

    /// Received power at `nic` of a frame from node `sender` whose first bit arrives at
    /// `at` (positions at that time).
    pub(super) fn power_at(&mut self, nic: u32, sender: usize, at: SimTime) -> (f64, f64) {
        let me = self.nics[nic as usize].node.idx();
        power_between(&mut self.mobility, &self.rx_power, sender, me, at)
    }
}

/// The nodes within `r` of `here` at `now` into `out`, in node order (`Grid::query`),
/// and their positions then into `pos` (indexed by node).
pub(super) fn nodes_near(
    grid: &mut Grid,
    mobility: &mut Mobility,
    pos: &mut [(f64, f64)],
    out: &mut Vec<usize>,
    now: SimTime,
    here: (f64, f64),
    r: f64,
) {
    grid.query(
        now,
        here,
        r,
        |i| {
            let p = mobility.position(i, now);
            pos[i] = p;
            p
        },
        out,
    );
}

/// Received power at node `me` of a frame from node `sender` whose first bit arrives at
/// `at` (positions at that time), and the distance.
#[inline]
pub(super) fn power_between(
    mobility: &mut Mobility,
    rx_power: &RxPower,
    sender: usize,
    me: usize,
    at: SimTime,
) -> (f64, f64) {
    let d = propagation::distance(mobility.position(sender, at), mobility.position(me, at));
    (d, rx_power.at(d))
}

impl World {
    /// Puts a frame on the air: every other NIC within carrier-sense range sees its
    /// first bit after the propagation delay.
    pub(super) fn transmit(&mut self, now: SimTime, nic: u32, frame: Frame) {
        if self.tracer.anim_on() {
            self.anim_frame(now, nic, &frame);
        }
        if self.tracer.pcap_on() {
            self.capture_frame(now, nic, &frame);
        }
        if self.tracer.ns2_on() {
            let node = self.wl().nics[nic as usize].node;
            self.wtrace_frame('s', now, node, &frame);
        }
        let w = self.wireless.as_deref_mut().expect("wireless");
        if w.logs_frame(&frame) {
            // The accelerated channel (`fast/air_log.rs`): the same receptions, lazily.
            self.transmit_logged(now, nic, frame);
            return;
        }
        let sender = w.nics[nic as usize].node;
        let slot = w.alloc_frame(frame, sender.idx() as u32);
        let Wireless {
            phy,
            rx_power,
            mobility,
            grid,
            scratch,
            scratch_pos,
            node_nics,
            frames,
            free_frames,
            cs_range_m,
            scratch_recv,
            same_node_delivery,
            ..
        } = w;
        let here = mobility.position(sender.idx(), now);
        nodes_near(grid, mobility, scratch_pos, scratch, now, here, *cs_range_m);
        scratch_recv.clear();
        let skip_node = deaf_node(*same_node_delivery, sender.idx());
        for &other in scratch.iter().filter(|&&o| o != skip_node) {
            let d = propagation::distance(here, scratch_pos[other]);
            if rx_power.sensed(d) {
                scratch_recv.push((other as u32, now + phy.prop_delay(d)));
            }
        }
        // One run of events: the same keys as scheduling each in turn.
        let receivers = self
            .queue
            .schedule_run(scratch_recv.iter().flat_map(|&(other, at)| {
                node_nics[other as usize]
                    .iter()
                    .filter(move |&&j| j != nic)
                    .map(move |&j| (at, Event::RxStart(j, slot)))
            }));
        if receivers == 0 {
            free_frames.push(slot);
        } else {
            frames[slot as usize].left = receivers as u32;
        }
    }

    /// Writes a frame to the pcap of wireless interface `nic` (802.11 frames), after
    /// the receptions catch-ups ran since the last write (`write_lazy_captures`).
    fn capture_frame(&mut self, now: SimTime, nic: u32, frame: &Frame) {
        self.write_lazy_captures();
        let iface = self.wl().nics[nic as usize].iface;
        let pkt = frame.packet.map(|p| self.pool.get(p));
        self.tracer.encode_wlan(frame, pkt);
        self.tracer.write_wlan(iface.idx(), now);
    }

    /// A frame's first bit reaches `nic` (`WirelessPhy::sendUp` -> `Mac802_11::recv`):
    /// its power and whether it is decodable, by the positions now.
    pub(in crate::world) fn rx_start(&mut self, now: SimTime, nic: u32, slot: u32) {
        self.run_lazy_before_input(nic);
        let w = self.wl();
        let (frame, sender) = w.take_frame(slot);
        let (d, pr) = w.power_at(nic, sender, now);
        let decodable = w.rx_power.classify(d) == Reception::Decodable;
        if decodable && self.tracer.pcap_on() {
            // What the NIC's radio hears above the receive threshold, collided or not.
            self.capture_frame(now, nic, &frame);
        }
        self.wl().nics[nic as usize]
            .digest
            .note(Input::Rx, now, || frame_key(&frame));
        let w = self.wl();
        w.fill_left_out_power(nic);
        w.nics[nic as usize]
            .mac
            .rx_start(now, &frame, pr, decodable);
        self.service_mac(now, nic);
    }
}
