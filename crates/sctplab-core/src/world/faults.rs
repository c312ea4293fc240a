//! Scripted endpoint and link events of `[[faults]]`, run when their instant comes.

use super::{Fault, World};
use crate::net::{LinkDirId, PacketId};
use crate::sim::SimTime;

impl World {
    /// A scripted `[[faults]]` entry: a link down or up (both directions; packets queued
    /// on a link that goes down are lost now, the one on the wire on arrival), or a new
    /// SCTP primary.
    pub(super) fn fault(&mut self, now: SimTime, i: usize) {
        match self.faults[i].1.clone() {
            Fault::LinkDown(a) => {
                if self.tracer.anim_on() {
                    self.anim_link_state(now, a, false);
                }
                for dir in [a, LinkDirId(a.0 + 1)] {
                    let link = &mut self.links[dir.idx()];
                    link.up = false;
                    link.last_down = Some(now);
                    // The packet on the wire is lost on arrival (`carried`); queued ones now.
                    while let Some(pid) = self.links[dir.idx()].queue.pop() {
                        self.fault_drop(now, dir, pid);
                    }
                    while let Some(pid) =
                        self.links[dir.idx()].aqm.as_mut().and_then(|a| a.pop_any())
                    {
                        self.fault_drop(now, dir, pid);
                    }
                }
            }
            Fault::LinkUp(a) => {
                if self.tracer.anim_on() {
                    self.anim_link_state(now, a, true);
                }
                for dir in [a, LinkDirId(a.0 + 1)] {
                    self.links[dir.idx()].up = true;
                }
            }
            Fault::SetPrimary(ep, addr) => {
                if let crate::endpoint::AnyEndpoint::Sctp(a) = &mut self.endpoints[ep.idx()].ep {
                    a.set_primary(now, addr);
                }
                self.service(ep, now);
            }
            Fault::Reconfig(ep, r) => {
                if let crate::endpoint::AnyEndpoint::Sctp(a) = &mut self.endpoints[ep.idx()].ep {
                    a.reconfigure(now, r);
                }
                self.service(ep, now);
            }
            Fault::Asconf(ep, c) => {
                if let crate::endpoint::AnyEndpoint::Sctp(a) = &mut self.endpoints[ep.idx()].ep {
                    a.change_address(now, c);
                }
                self.service(ep, now);
            }
        }
    }

    pub(super) fn fault_drop(&mut self, now: SimTime, dir: LinkDirId, pid: PacketId) {
        let link = &mut self.links[dir.idx()];
        if self.window.contains(now) {
            link.counters.fault_drops += 1;
        }
        if self.tracer.ns2_on() {
            self.tracer
                .ns2('d', now, link.from.0, link.to.0, self.pool.get(pid));
        }
        if self.tracer.anim_on() {
            self.tracer
                .anim_drop(now, link.from, self.pool.get(pid), "link_down");
        }
        self.discard(pid);
    }
}
