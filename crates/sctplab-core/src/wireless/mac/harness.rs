//! A small test driver: stations with a fixed power matrix, frames moved between MACs by
//! time through one event queue (time, insertion order), MAC timers re-armed with a
//! generation counter as world/run.rs does.

use super::fast::WaitBound;
use super::*;
use crate::sim::EventQueue;

pub const RX_THRESH: f64 = 0.5;
pub const CS_THRESH: f64 = 0.1;

pub fn us(x: u64) -> SimDuration {
    SimDuration::from_micros(x)
}

pub fn at_us(x: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_micros(x)
}

/// The rng name of station `i` in the harness, so tests can replay its draws.
pub fn rng_for(seed: u64, i: usize) -> RngStream {
    RngStream::new(seed, &format!("mac{i}"))
}

pub enum Ev {
    Timer(usize, u64),
    Arrive {
        to: usize,
        frame: Frame,
        power: f64,
    },
    Enqueue {
        station: usize,
        packet: PacketId,
        ip_bytes: u32,
        next_hop: MacAddr,
        routing: bool,
    },
}

type LoseFn = Box<dyn FnMut(usize, &Frame) -> bool>;
type LookFn = Box<dyn FnMut(&Mac, SimTime)>;

pub struct Net {
    pub macs: Vec<Mac>,
    /// power[from][to] in watts (arbitrary units against the thresholds above).
    pub power: Vec<Vec<f64>>,
    pub prop: SimDuration,
    pub q: EventQueue<Ev>,
    generation: Vec<u64>,
    armed: Vec<Option<SimTime>>,
    pub tx_log: Vec<(SimTime, usize, Frame)>,
    pub ev_log: Vec<(SimTime, usize, MacEvent)>,
    /// Arrivals for which this returns true (receiver index, frame) are not delivered.
    pub lose: Option<LoseFn>,
    /// Stations kept saturated: whenever one's queue is empty, a new packet of this many
    /// bytes for the given next hop is enqueued.
    pub saturated: Vec<Option<(u32, MacAddr)>>,
    next_packet: u32,
    pub keep_logs: bool,
    /// On a `Failed` event, remove the station's queued packets for the same next hop
    /// before the MAC resumes (AODV `rt_ll_failed` with link-layer detection).
    pub purge_on_failure: bool,
    /// Each time a station is left waiting quietly after an input (`Mac::waits_quietly`):
    /// when, which, and its `Mac::wait_bound`.
    pub wait_log: Vec<(SimTime, usize, WaitBound)>,
    /// Called with a station's MAC and the time before each input reaches it (the
    /// differential tests look at every reachable state there).
    pub before_input: Option<LookFn>,
}

impl Net {
    /// `n` stations, all hearing each other at power 1.0, station i has MacAddr(i).
    pub fn new(n: usize, cfg: &MacCfg, seed: u64) -> Net {
        let macs = (0..n)
            .map(|i| Mac::new(cfg.clone(), MacAddr(i as u32), rng_for(seed, i)))
            .collect();
        Net {
            macs,
            power: vec![vec![1.0; n]; n],
            prop: SimDuration::ZERO,
            q: EventQueue::default(),
            generation: vec![0; n],
            armed: vec![None; n],
            tx_log: Vec::new(),
            ev_log: Vec::new(),
            lose: None,
            saturated: vec![None; n],
            next_packet: 0,
            keep_logs: true,
            purge_on_failure: false,
            wait_log: Vec::new(),
            before_input: None,
        }
    }

    pub fn new_packet(&mut self) -> PacketId {
        self.next_packet += 1;
        PacketId(self.next_packet)
    }

    /// Schedules a packet for `station`'s queue at `t`; returns its id.
    pub fn enqueue_at(
        &mut self,
        t: SimTime,
        station: usize,
        ip_bytes: u32,
        next_hop: MacAddr,
    ) -> PacketId {
        let packet = self.new_packet();
        self.q.schedule(
            t,
            Ev::Enqueue {
                station,
                packet,
                ip_bytes,
                next_hop,
                routing: false,
            },
        );
        packet
    }

    fn service(&mut self, i: usize, now: SimTime) {
        while let Some(f) = self.macs[i].poll_transmit() {
            if self.keep_logs {
                self.tx_log.push((now, i, f));
            }
            for j in 0..self.macs.len() {
                let p = self.power[i][j];
                if j == i || p < CS_THRESH {
                    continue;
                }
                if let Some(lose) = self.lose.as_mut() {
                    if lose(j, &f) {
                        continue;
                    }
                }
                self.q.schedule(
                    now + self.prop,
                    Ev::Arrive {
                        to: j,
                        frame: f,
                        power: p,
                    },
                );
            }
        }
        let mut failed = false;
        while let Some(e) = self.macs[i].poll_event() {
            if self.keep_logs {
                self.ev_log.push((now, i, e));
            }
            if let MacEvent::Failed { next_hop, .. } = e {
                failed = true;
                if self.purge_on_failure {
                    while self.macs[i].ifq_mut().take_next_hop(next_hop).is_some() {}
                }
            }
        }
        if failed {
            // Like the world: the MAC pulls its next packet once the failure is handled.
            self.macs[i].resume_after_failure(now);
            self.service(i, now);
            return;
        }
        if let Some((bytes, hop)) = self.saturated[i] {
            if self.macs[i].ifq().is_empty() {
                let packet = self.new_packet();
                self.macs[i].enqueue(now, packet, bytes, hop, false);
                self.service(i, now);
                return;
            }
        }
        if self.macs[i].waits_quietly() {
            self.wait_log.push((now, i, self.macs[i].wait_bound(now)));
        }
        let d = self.macs[i].poll_timeout();
        if d != self.armed[i] {
            self.generation[i] += 1;
            self.armed[i] = d;
            if let Some(t) = d {
                self.q.schedule(t, Ev::Timer(i, self.generation[i]));
            }
        }
    }

    /// Starts the saturated stations (their first packet at `t`).
    pub fn start_saturated(&mut self, t: SimTime) {
        for i in 0..self.macs.len() {
            if self.saturated[i].is_some() {
                self.service(i, t);
            }
        }
    }

    pub fn run_until(&mut self, end: SimTime) {
        while let Some(t) = self.q.peek_time() {
            if t > end {
                break;
            }
            let Some((now, ev)) = self.q.pop() else { break };
            if let Some(look) = self.before_input.as_mut() {
                let i = match &ev {
                    Ev::Timer(i, g) if *g == self.generation[*i] => Some(*i),
                    Ev::Timer(..) => None,
                    Ev::Arrive { to, .. } => Some(*to),
                    Ev::Enqueue { station, .. } => Some(*station),
                };
                if let Some(i) = i {
                    look(&self.macs[i], now);
                }
            }
            match ev {
                Ev::Timer(i, g) => {
                    if g != self.generation[i] {
                        continue;
                    }
                    self.armed[i] = None;
                    self.macs[i].handle_timeout(now);
                    self.service(i, now);
                }
                Ev::Arrive { to, frame, power } => {
                    self.macs[to].rx_start(now, &frame, power, power >= RX_THRESH);
                    self.service(to, now);
                }
                Ev::Enqueue {
                    station,
                    packet,
                    ip_bytes,
                    next_hop,
                    routing,
                } => {
                    self.macs[station].enqueue(now, packet, ip_bytes, next_hop, routing);
                    self.service(station, now);
                }
            }
        }
    }

    /// Frames transmitted by station `i`, with their start times.
    pub fn sent_by(&self, i: usize) -> Vec<(SimTime, Frame)> {
        self.tx_log
            .iter()
            .filter(|(_, s, _)| *s == i)
            .map(|(t, _, f)| (*t, *f))
            .collect()
    }

    pub fn events_of(&self, i: usize) -> Vec<(SimTime, MacEvent)> {
        self.ev_log
            .iter()
            .filter(|(_, s, _)| *s == i)
            .map(|(t, _, e)| (*t, *e))
            .collect()
    }
}
