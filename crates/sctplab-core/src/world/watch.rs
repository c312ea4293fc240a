//! What the run loop watches besides the model: flows that make no progress (livelock),
//! the wall clock (heartbeat, run timeout), the caller's interrupt, the packets alive,
//! the size of the series and trace output, and broken internal rules.

use super::World;
use super::run::Control;
use crate::endpoint::{AnyEndpoint, Endpoint};
use crate::error::Error;
use crate::sim::{SimDuration, SimTime};
use std::io::Write;
use std::time::Instant;

/// Events between checks of the wall clock (heartbeat, wall-clock limit, interrupt).
pub(super) const CLOCK_EVERY: u64 = 1 << 12;
const _: () = assert!(CLOCK_EVERY % super::wireless::SWEEP_EVERY == 0);
/// Wall time between two questions to the interrupt callback.
const POLL_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// A run without `duration` that has made no progress (see `World::progress_mark`) for
/// this long is a livelock: nothing left can finish its flows. The longest legitimate
/// silence we know of is a few backed-off retransmission timeouts (RTO at most 60 s in
/// SCTP, RFC 9260 sec. 16; 64 s in ns-2's TCP), so an hour leaves a wide margin.
const LIVELOCK_SPAN: SimDuration = SimDuration::from_secs(3600);
/// Simulated time between two looks at the flows' progress.
const PROGRESS_EVERY: SimDuration = SimDuration::from_secs(10);

/// The run loop's watch: its wall-clock marks and the livelock guard's state.
pub(super) struct Watch {
    /// When the loop started.
    pub wall: Instant,
    last_beat: Instant,
    last_poll: Instant,
    /// The livelock guard: only for runs that end when their flows do.
    guard: bool,
    mark: u64,
    /// When some flow last made progress (or a scripted fault ran).
    pub progressed_at: SimTime,
    next_look: SimTime,
}

impl Watch {
    pub(super) fn new(world: &World) -> Self {
        let wall = Instant::now();
        Watch {
            wall,
            last_beat: wall,
            last_poll: wall,
            guard: world.stop_at.is_none() && !world.flows.is_empty(),
            mark: world.progress_mark(),
            progressed_at: SimTime::ZERO,
            next_look: SimTime::ZERO + PROGRESS_EVERY,
        }
    }

    /// Every `PROGRESS_EVERY` of simulated time: a livelock stops the run.
    #[inline]
    pub(super) fn look_at_progress(&mut self, world: &World, now: SimTime) -> Result<(), Error> {
        if self.guard && now >= self.next_look {
            self.next_look = now + PROGRESS_EVERY;
            let m = world.progress_mark();
            if m != self.mark || world.sure_to_progress() {
                self.mark = m;
                self.progressed_at = now;
            } else if now.saturating_since(self.progressed_at) >= LIVELOCK_SPAN {
                return Err(Error::Stopped(
                    world.livelock_message(self.progressed_at, now),
                ));
            }
        }
        Ok(())
    }

    /// Every `CLOCK_EVERY` events: the packets alive, the output's size, the heartbeat,
    /// the caller's interrupt and the run timeout.
    pub(super) fn look_outside(
        &mut self,
        world: &mut World,
        now: SimTime,
        progress: bool,
        ctl: &mut Control,
    ) -> Result<(), Error> {
        if world.pool.live() > ctl.packet_limit {
            return Err(Error::Limit(world.packets_message(now, ctl.packet_limit)));
        }
        if world.tracer.watches_output() {
            let stop = world.stop_at;
            world
                .tracer
                .check_output(now, stop, progress)
                .map_err(Error::Usage)?;
        }
        let t = Instant::now();
        if progress && t.duration_since(self.last_beat).as_secs_f64() >= 1.0 {
            self.last_beat = t;
            world.heartbeat(now, self.wall);
        }
        if t.duration_since(self.last_poll) >= POLL_EVERY {
            self.last_poll = t;
            if (ctl.interrupted)() {
                return Err(Error::Interrupted);
            }
            if let Some(limit) = ctl.wall_limit {
                if t.duration_since(ctl.started) >= limit {
                    return Err(Error::Stopped(format!(
                        "timed out: {} s of wall time (the run timeout) at {:.3} s \
                         of simulated time",
                        limit.as_secs_f64(),
                        now.as_secs_f64()
                    )));
                }
            }
        }
        Ok(())
    }
}

impl World {
    /// A broken rule the run noted (`Wireless::check_caught_up`), if any.
    pub(super) fn take_internal_error(&mut self) -> Option<String> {
        self.wireless.as_deref_mut()?.fast.internal_error.take()
    }

    /// Some unfinished flow will get further whatever happens: a CBR source has a send
    /// pending (open loop: nothing can block it).
    pub(super) fn sure_to_progress(&self) -> bool {
        self.flows.iter().filter(|f| !f.finished).any(|f| {
            let ep = &self.endpoints[f.sender.idx()].ep;
            matches!(ep, AnyEndpoint::CbrSource(_)) && ep.poll_timeout().is_some()
        })
    }

    /// A value that changes whenever some unfinished flow gets further: data delivered
    /// in order, a cumulative ack moving, a connection changing state, a flow finishing.
    /// Retransmissions and probes that change none of these are not progress.
    pub(super) fn progress_mark(&self) -> u64 {
        let mut h: u64 = self.unfinished as u64;
        let mut mix = |x: u64| h = (h ^ x).wrapping_mul(0x0100_0000_01b3).rotate_left(7);
        for f in self.flows.iter().filter(|f| !f.finished) {
            let snd = &self.endpoints[f.sender.idx()].ep;
            let rcv = &self.endpoints[f.receiver.idx()].ep;
            match (snd, rcv) {
                // Changes at each send.
                (AnyEndpoint::CbrSource(src), _) => {
                    mix(src.poll_timeout().map_or(u64::MAX, SimTime::as_nanos))
                }
                (AnyEndpoint::TcpSender(tx), AnyEndpoint::TcpReceiver(rx)) => {
                    mix(rx.cum() as u64);
                    mix(u64::from(tx.stats.connect_time.is_some()));
                    mix(u64::from(tx.is_done()));
                }
                (AnyEndpoint::Sctp(client), AnyEndpoint::Sctp(server)) => {
                    for x in client
                        .progress_token()
                        .into_iter()
                        .chain(server.progress_token())
                    {
                        mix(x);
                    }
                }
                _ => {}
            }
        }
        h
    }

    pub(super) fn livelock_message(&self, since: SimTime, now: SimTime) -> String {
        let stuck: Vec<&str> = self
            .flows
            .iter()
            .filter(|f| !f.finished)
            .map(|f| f.name.as_str())
            .collect();
        format!(
            "stopped at {:.3} s: livelock: no flow has made progress (data delivered or \
             acknowledged, a state change) since {:.3} s; unfinished: {}. A run without \
             `duration` ends only when its flows finish: set `duration` to bound it",
            now.as_secs_f64(),
            since.as_secs_f64(),
            stuck.join(", "),
        )
    }

    /// Spills whole chunks of sampled values and refuses a series that would not fit
    /// (trace::series::Series::after_sample).
    pub(super) fn check_series_size(&mut self, now: SimTime) -> Result<(), Error> {
        let ctx = crate::trace::series::SampleCtx {
            now_ns: now.as_nanos(),
            stop_ns: self.stop_at.map(|s| s.as_nanos()),
            interval_ns: self.series_interval.as_nanos(),
            vars: &self.tracer.series_vars,
        };
        self.tracer.series.after_sample(&ctx).map_err(Error::Usage)
    }

    pub(super) fn packets_message(&self, now: SimTime, limit: usize) -> String {
        // The likeliest culprit: the link that holds the most bits on its wire.
        let widest = self
            .links
            .iter()
            .rev()
            .max_by_key(|l| u128::from(l.rate_bps) * u128::from(l.delay.as_nanos()));
        let hint = widest.map_or(String::new(), |l| {
            format!(
                "; the link with the largest delay x bandwidth is {} ({} s x {} b/s)",
                l.name,
                l.delay.as_secs_f64(),
                l.rate_bps
            )
        });
        format!(
            "stopped at {:.3} s: more than {limit} packets in flight at once, the \
             most a run holds{hint}; shorten the delay, lower the sending rate or set a \
             shorter `duration`",
            now.as_secs_f64()
        )
    }

    pub(super) fn heartbeat(&self, now: SimTime, wall: Instant) {
        let secs = wall.elapsed().as_secs_f64().max(1e-9);
        let rate = self.queue.events_processed() as f64 / secs;
        let of = self
            .stop_at
            .map(|t| format!(" of {:.1} s", t.as_secs_f64()))
            .unwrap_or_default();
        eprint!(
            "\r[sctplab] {}: simulated {:.1} s{of}, {:.2} M events/s ",
            self.scenario,
            now.as_secs_f64(),
            rate / 1e6
        );
        let _ = std::io::stderr().flush();
    }
}
