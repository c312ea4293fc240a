//! The world's side of a link direction run by an AQM discipline (`net/aqm`): offering
//! arriving packets, starting the next transmission from the discipline's choice,
//! counting its drops and CE marks. RED, CoDel and PIE keep their packets in the link's
//! drop-tail FIFO (`net/aqm/link.rs`) and go in and out by drop-tail's way (`run.rs`'s
//! `enqueue` and `tx_done`); only RED's arrivals, PIE's marks and drops and CoDel's
//! head drops and marks come here. Drop-tail links never do.

use super::{Event, World};
use crate::net::LinkDirId;
use crate::net::PacketId;
use crate::net::aqm::codel::{Codel, CodelParams};
use crate::net::aqm::fq_codel::{FqCodel, FqCodelParams};
use crate::net::aqm::link::{LinkAqm, Waiting};
use crate::net::aqm::pie::{Pie, PieParams};
use crate::net::aqm::red::{Red, RedParams};
use crate::net::aqm::{
    Admit, Aqm, AqmQueue, CE, Discipline, DropCause, Entry, LinkState, NOT_ECT, codel,
};
use crate::net::link::LinkDir;
use crate::scenario::aqm::AqmCfg;
use crate::scenario::schema::LinkCfg;
use crate::scenario::units::{Duration, Size};
use crate::sim::{RngStream, SimDuration, SimTime};
use crate::trace::series::Series;

impl World {
    /// An arriving packet on a link direction with an AQM discipline (after the loss
    /// models and the fault check, as on a drop-tail link).
    #[inline(never)]
    pub(super) fn enqueue_aqm(&mut self, now: SimTime, dir: LinkDirId, pid: PacketId) {
        let link = &mut self.links[dir.idx()];
        let busy = link.busy(&self.queue);
        let state = LinkState {
            busy,
            idle_since_ns: 0,
        };
        let Some(LinkAqm::Queue(aqm)) = link.aqm.as_deref_mut() else {
            return;
        };
        if !busy && aqm.is_empty() {
            // Straight through, as drop-tail's idle path (`run.rs`'s `enqueue`).
            let admit = aqm.pass_idle(now, self.pool.get(pid));
            if self.aqm_admit(now, dir, pid, admit) {
                self.start_tx(now, dir, pid, SimDuration::ZERO);
            }
            return;
        }
        let admit = aqm.enqueue(now, pid, self.pool.get(pid), state);
        if !aqm.dropped.is_empty() {
            self.flush_aqm_drops(now, dir);
        }
        if !self.aqm_admit(now, dir, pid, admit) {
            return;
        }
        if !busy {
            self.aqm_start_next(now, dir);
        } else {
            self.tx_done_has_work(dir);
        }
    }

    /// An arriving packet on a RED link direction (after the loss models and the fault
    /// check): RED's decision, then, if admitted, drop-tail's way into the FIFO or onto
    /// the wire (ns-2.35's `REDQueue::enque` in front of its `PacketQueue`).
    #[inline(never)]
    pub(super) fn enqueue_red(&mut self, now: SimTime, dir: LinkDirId, pid: PacketId) {
        let link = &mut self.links[dir.idx()];
        let busy = link.busy(&self.queue);
        let state = LinkState {
            busy,
            idle_since_ns: link.tx.end.at().map_or(0, |t| t.as_nanos()),
        };
        let (waiting, waiting_bytes) = (link.queue.len(), link.queue.bytes());
        let Some(LinkAqm::Red(red)) = link.aqm.as_deref_mut() else {
            return;
        };
        let pkt = self.pool.get(pid);
        let ect = pkt.ip.ecn != NOT_ECT;
        let admit = red.decide(now.as_nanos(), pkt.size, ect, state, waiting, waiting_bytes);
        self.arrival_verdict(now, dir, pid, busy, admit);
    }

    /// The verdict of a discipline that decides at arrival and keeps its packets in the
    /// link's drop-tail FIFO: RED's, and PIE's marks and drops (`run.rs`'s `enqueue`
    /// lets the packets PIE queues, and those the hard limits refuse, take drop-tail's
    /// way). A drop is counted and the packet discarded; an admitted packet, marked or
    /// not, goes as on a drop-tail link onto the wire or into the FIFO.
    #[inline(never)]
    pub(super) fn arrival_verdict(
        &mut self,
        now: SimTime,
        dir: LinkDirId,
        pid: PacketId,
        busy: bool,
        admit: Admit,
    ) {
        if !self.aqm_admit(now, dir, pid, admit) {
            return;
        }
        if !busy {
            self.start_tx(now, dir, pid, SimDuration::ZERO);
            return;
        }
        let link = &mut self.links[dir.idx()];
        link.queue.push(pid, self.pool.get(pid).size);
        self.pool.get_mut(pid).queued_at = now;
        self.tx_done_has_work(dir);
    }

    /// Carries out an admission decision: a drop is counted and the packet discarded
    /// (false), a mark sets CE; true when the packet goes on.
    fn aqm_admit(&mut self, now: SimTime, dir: LinkDirId, pid: PacketId, admit: Admit) -> bool {
        match admit {
            Admit::Dropped(cause) => {
                self.aqm_drop(now, dir, pid, cause);
                false
            }
            Admit::Marked => {
                self.mark_ce(now, dir, pid);
                true
            }
            Admit::Queued => true,
        }
    }

    /// A packet now waits behind a busy transmitter: as on a drop-tail link, the end of
    /// the transmission (its event reserved when it began) is scheduled to serve it.
    #[inline]
    fn tx_done_has_work(&mut self, dir: LinkDirId) {
        let link = &mut self.links[dir.idx()];
        link.tx.end.enter_queue(&mut self.queue, Event::TxDone(dir));
    }

    /// The transmitter is free: FQ-CoDel picks (and may drop or mark) the next packet.
    pub(super) fn aqm_start_next(&mut self, now: SimTime, dir: LinkDirId) {
        let Some(LinkAqm::Queue(aqm)) = self.links[dir.idx()].aqm.as_deref_mut() else {
            return;
        };
        let next = aqm.dequeue(now);
        let more = !aqm.is_empty();
        if !aqm.dropped.is_empty() {
            self.flush_aqm_drops(now, dir);
        }
        self.aqm_send(now, dir, next, more);
    }

    /// The transmitter is free and CoDel does not let the head of the link's FIFO go as
    /// it is (`LinkCodel::head_passes`): CoDel's dequeue (RFC 8289 sec. 5.4), dropping
    /// or marking on the way.
    pub(super) fn codel_start_next(&mut self, now: SimTime, dir: LinkDirId) {
        let link = &mut self.links[dir.idx()];
        let Some(LinkAqm::Codel(c)) = link.aqm.as_deref_mut() else {
            return;
        };
        let mut fifo = Waiting {
            fifo: &mut link.queue,
            pool: &self.pool,
        };
        let next = codel::dequeue(
            &mut fifo,
            &mut c.state,
            &c.params,
            now.as_nanos(),
            &mut c.dropped,
        );
        let dropped = !c.dropped.is_empty();
        let more = !link.queue.is_empty();
        if dropped {
            self.flush_aqm_drops(now, dir);
        }
        self.aqm_send(now, dir, next, more);
    }

    /// Sends the discipline's choice (`next`: its entry and whether to mark it CE);
    /// `more`: packets still wait behind it.
    #[inline]
    fn aqm_send(&mut self, now: SimTime, dir: LinkDirId, next: Option<(Entry, bool)>, more: bool) {
        let Some((e, mark)) = next else {
            return;
        };
        if mark {
            self.mark_ce(now, dir, e.id);
        }
        let waited = SimDuration::from_nanos(now.as_nanos().saturating_sub(e.enq_ns));
        self.start_tx(now, dir, e.id, waited);
        if more {
            self.tx_done_has_work(dir);
        }
    }

    /// Drops the packets the discipline left in its `dropped` list.
    fn flush_aqm_drops(&mut self, now: SimTime, dir: LinkDirId) {
        loop {
            let dropped = match self.links[dir.idx()].aqm.as_deref_mut() {
                Some(LinkAqm::Queue(aqm)) => &mut aqm.dropped,
                Some(LinkAqm::Codel(c)) => &mut c.dropped,
                _ => return,
            };
            let Some((pid, cause)) = dropped.pop() else {
                return;
            };
            self.aqm_drop(now, dir, pid, cause);
        }
    }

    fn aqm_drop(&mut self, now: SimTime, dir: LinkDirId, pid: PacketId, cause: DropCause) {
        let link = &mut self.links[dir.idx()];
        if self.window.contains(now) {
            match cause {
                DropCause::Limit => link.counters.queue_drops += 1,
                DropCause::Aqm => link.counters.aqm_drops += 1,
            }
        }
        if self.tracer.ns2_on() {
            self.tracer
                .ns2('d', now, link.from.0, link.to.0, self.pool.get(pid));
        }
        if self.tracer.anim_on() {
            let why = match cause {
                DropCause::Limit => "queue",
                DropCause::Aqm => "aqm",
            };
            self.tracer
                .anim_drop(now, link.from, self.pool.get(pid), why);
        }
        self.discard(pid);
    }

    /// Sets the packet's ECN field to Congestion Experienced (RFC 3168 sec. 5).
    fn mark_ce(&mut self, now: SimTime, dir: LinkDirId, pid: PacketId) {
        self.pool.get_mut(pid).ip.ecn = CE;
        if self.window.contains(now) {
            self.links[dir.idx()].counters.ecn_marks += 1;
        }
    }
}

/// `--series queue_delay`: per link direction, the mean time the packets whose
/// transmission began since the last sample waited in the queue (0 if none began).
pub(super) fn sample_queue_delay(links: &mut [LinkDir], series: &mut Series, t: f64) {
    let var = series.variable_id("queue_delay");
    for link in links {
        let c = &mut link.counters;
        let mean = if c.sample_delay_packets > 0 {
            c.sample_delay_ns as f64 / c.sample_delay_packets as f64 / 1e9
        } else {
            0.0
        };
        c.sample_delay_ns = 0;
        c.sample_delay_packets = 0;
        let ent = series.entity_id(&link.name);
        series.push(t, ent, var, mean);
    }
}

/// The discipline a link's `aqm` table asks for, for one wired link direction, in the
/// form the link runs it (`LinkAqm`).
pub(super) fn build_link(cfg: &AqmCfg, link: &LinkCfg, stream: &str, seed: u64) -> Box<LinkAqm> {
    Box::new(LinkAqm::from_aqm(*build(cfg, link, stream, seed)))
}

/// The discipline a link's `aqm` table asks for, for one direction; `stream` names its
/// random stream (RED's and PIE's draws, FQ-CoDel's hash perturbation).
pub(super) fn build(cfg: &AqmCfg, link: &LinkCfg, stream: &str, seed: u64) -> Box<Aqm> {
    let ns = |d: Option<Duration>, default: u64| d.map_or(default, |d| d.0.as_nanos());
    let codel = |target, interval, mtu: Option<Size>, ecn| {
        let d = CodelParams::default();
        CodelParams {
            target_ns: ns(target, d.target_ns),
            interval_ns: ns(interval, d.interval_ns),
            mtu: mtu.map_or(d.mtu, |s| s.0),
            ecn,
        }
    };
    let mut rng = RngStream::new(seed, stream);
    let disc = match cfg {
        AqmCfg::Red(c) => {
            let d = RedParams::default();
            let p = RedParams {
                thresh: c.thresh.unwrap_or(d.thresh),
                maxthresh: c.maxthresh.unwrap_or(d.maxthresh),
                q_weight: c.q_weight.unwrap_or(d.q_weight),
                linterm: c.linterm.unwrap_or(d.linterm),
                mean_pktsize: c
                    .mean_pktsize
                    .map_or(d.mean_pktsize, |s| u32::try_from(s.0).unwrap_or(u32::MAX)),
                gentle: c.gentle.unwrap_or(d.gentle),
                wait: c.wait.unwrap_or(d.wait),
                bytes: c.bytes.unwrap_or(d.bytes),
                queue_in_bytes: c.queue_in_bytes.unwrap_or(d.queue_in_bytes),
                targetdelay: c.targetdelay.map_or(d.targetdelay, |t| t.0.as_secs_f64()),
                mark_p: c.mark_p.unwrap_or(d.mark_p),
                use_mark_p: c.use_mark_p.unwrap_or(d.use_mark_p),
                ecn: c.ecn,
            };
            return Box::new(Aqm::Red(Red::new(
                p,
                link.bandwidth.0,
                link.delay.0.as_secs_f64(),
                link.queue,
                link.queue_bytes.map(|b| b.0),
                rng,
            )));
        }
        AqmCfg::Codel(c) => {
            Discipline::Codel(Codel::new(codel(c.target, c.interval, c.mtu, c.ecn)))
        }
        AqmCfg::FqCodel(c) => {
            let d = FqCodelParams::default();
            let p = FqCodelParams {
                flows: c.flows.unwrap_or(d.flows),
                quantum: c
                    .quantum
                    .map_or(d.quantum, |s| u32::try_from(s.0).unwrap_or(u32::MAX)),
                codel: codel(c.target, c.interval, c.mtu, c.ecn),
            };
            Discipline::FqCodel(FqCodel::new(p, rng.next_u64()))
        }
        AqmCfg::Pie(c) => {
            let d = PieParams::default();
            let p = PieParams {
                target_ns: ns(c.target, d.target_ns),
                t_update_ns: ns(c.t_update, d.t_update_ns),
                max_burst_ns: ns(c.max_burst, d.max_burst_ns),
                alpha: c.alpha.unwrap_or(d.alpha),
                beta: c.beta.unwrap_or(d.beta),
                mean_pktsize: c.mean_pktsize.map_or(d.mean_pktsize, |s| s.0),
                mark_ecn_th: c.mark_ecn_th.unwrap_or(d.mark_ecn_th),
                ecn: c.ecn,
            };
            Discipline::Pie(Pie::new(p, rng))
        }
    };
    Box::new(Aqm::Queue(AqmQueue::new(
        disc,
        link.queue,
        link.queue_bytes.map(|b| b.0),
    )))
}
