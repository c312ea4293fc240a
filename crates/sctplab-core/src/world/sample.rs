//! The trace series' periodic sample (`series_interval`, `Event::Sample`): the links'
//! queue lengths and delays, each endpoint's variables per flow and per destination
//! (SCTP multihoming), the satellites' and the animation's.

use super::{Event, World};
use crate::endpoint::Endpoint;
use crate::sim::SimTime;

impl World {
    /// One sample of every series variable asked for; the next one is scheduled
    /// `series_interval` later, unless that is past the stop time.
    pub(super) fn sample(&mut self, now: SimTime) {
        let t = now.as_secs_f64();
        let vars = &self.tracer.series_vars;
        let series = &mut self.tracer.series;
        if vars.iter().any(|v| v == "queue") {
            let var = series.variable_id("queue");
            for link in &self.links {
                let ent = series.entity_id(&link.name);
                series.push(t, ent, var, link.waiting() as f64);
            }
        }
        if vars.iter().any(|v| v == "queue_delay") {
            super::aqm::sample_queue_delay(&mut self.links, series, t);
        }
        // Per-destination entities "<flow>@<node>:<iface>" (SCTP multihoming), the name
        // built in one buffer reused across paths.
        let mut label = String::new();
        for flow in &self.flows {
            let ent = series.entity_id(&flow.name);
            for ep in [flow.sender, flow.receiver] {
                let ep = &self.endpoints[ep.idx()].ep;
                ep.sample(&mut |name, value| {
                    if vars.iter().any(|v| v == name) {
                        let var = series.variable_id(name);
                        series.push(t, ent, var, value);
                    }
                });
                let (nodes, ifaces) = (&self.nodes, &self.ifaces);
                let mut last: Option<([u8; 4], u32)> = None;
                ep.sample_paths(&mut |addr, name, value| {
                    if !vars.iter().any(|v| v == name) {
                        return;
                    }
                    let pent = match last {
                        Some((a, e)) if a == addr => e,
                        _ => {
                            label.clear();
                            label.push_str(&flow.name);
                            label.push('@');
                            super::summary::push_addr_label(&mut label, nodes, ifaces, addr);
                            let e = series.entity_id(&label);
                            last = Some((addr, e));
                            e
                        }
                    };
                    let var = series.variable_id(name);
                    series.push(t, pent, var, value);
                });
            }
        }
        self.sat_sample(now);
        if self.tracer.anim_on() {
            self.anim_sample(now);
        }
        let next = now + self.series_interval;
        if self.stop_at.is_none_or(|s| next < s) {
            self.queue.schedule(next, Event::Sample);
        }
    }
}
