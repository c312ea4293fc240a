//! Satellites in the animation trace (`--trace anim`, issue 41; docs/animate.md): the
//! header's `satellites` entry, every satellite's sub-satellite point at the start and
//! at each check instant (`satpos`), ISLs that appear and disappear (`link`, as a
//! fault's), and each ground station's attachment (`attach`: the handovers). Packets on
//! satellite links are `hop` records like any link's (`anim_link_hop`), with the ends
//! the link has when the packet leaves. Positions are sampled at the check instants
//! only, never per packet: between two the page interpolates.

use super::World;
use crate::net::{LinkDirId, NodeId};
use crate::sat::orbit::earth_rotation;
use crate::sat::{NS2_PI, Vec3, rad_to_deg};
use crate::sim::SimTime;
use serde_json::{Value, json};

/// Latitude and longitude (degrees, longitude -180..180) of the point of the Earth's
/// surface below `p` (km, the non-rotating frame) at time `t` (s): the frame's azimuth
/// less the Earth's turn since time 0, as ns-2.35's `TermSatPosition` places a ground
/// point at its longitude.
pub(crate) fn lat_lon(p: Vec3, t: f64) -> (f64, f64) {
    let lat = rad_to_deg(p.latitude());
    let turn = 2.0 * NS2_PI;
    let az = (p.y.atan2(p.x) - earth_rotation(t)).rem_euclid(turn);
    let mut lon = rad_to_deg(az);
    if lon > 180.0 {
        lon -= 360.0;
    }
    (lat, lon)
}

impl World {
    /// The header's `satellites` entry (null without constellations): per constellation
    /// its first satellite node and count, its ISLs' first entry and count in `links`,
    /// and its ground stations (node, latitude, longitude, the entry of their uplink in
    /// `links`).
    pub(super) fn anim_sat_header(&self) -> Value {
        let Some(sw) = self.sat.as_deref() else {
            return Value::Null;
        };
        let segs: Vec<Value> = sw
            .segments()
            .iter()
            .map(|seg| {
                let n = seg.net.constellation.sats.len();
                let stations: Vec<Value> = seg
                    .station_nodes
                    .iter()
                    .enumerate()
                    .map(|(k, st)| {
                        let (lat, lon) = lat_lon(seg.net.vertex_position(n + k, 0.0), 0.0);
                        json!({
                            "node": st.0,
                            "lat": round2(lat),
                            "lon": round2(lon),
                            "link": (seg.gsl_dir0 / 2) as usize + k,
                        })
                    })
                    .collect();
                json!({
                    "name": seg.net.constellation.name,
                    "first_node": seg.sat_node0,
                    "count": n,
                    "first_isl": seg.isl_dir0 / 2,
                    "isls": (seg.gsl_dir0 - seg.isl_dir0) / 2,
                    "stations": stations,
                })
            })
            .collect();
        json!({ "constellations": segs })
    }

    /// Every satellite's position now, one `satpos` record per constellation.
    pub(super) fn anim_sat_positions(&mut self, now: SimTime) {
        let Some(sw) = self.sat.as_deref() else {
            return;
        };
        let t = now.as_secs_f64();
        let per_seg: Vec<(u32, Vec<(f64, f64)>)> = sw
            .segments()
            .iter()
            .map(|seg| {
                let n = seg.net.constellation.sats.len();
                let pts = (0..n)
                    .map(|k| lat_lon(seg.net.vertex_position(k, t), t))
                    .collect();
                (seg.sat_node0, pts)
            })
            .collect();
        for (first, pts) in per_seg {
            self.tracer
                .anim_write(now, |a| a.sat_positions(now, first, &pts));
        }
    }

    /// The state at the start: positions, the ISLs down at time 0 and each station's
    /// first satellite.
    pub(super) fn anim_sat_begin(&mut self) {
        let Some(sw) = self.sat.as_deref() else {
            return;
        };
        let mut down = Vec::new();
        let mut attached = Vec::new();
        for seg in sw.segments() {
            for (l, &up) in seg.net.isl_up().iter().enumerate() {
                if !up {
                    down.push(LinkDirId(seg.isl_dir0 + 2 * l as u32));
                }
            }
            for (k, st) in seg.station_nodes.iter().enumerate() {
                let sat = seg
                    .net
                    .attached(k)
                    .map_or(-1, |s| i64::from(seg.sat_node0) + s as i64);
                attached.push((st.0, sat));
            }
        }
        self.anim_sat_positions(SimTime::ZERO);
        for d in down {
            self.anim_link_state(SimTime::ZERO, d, false);
        }
        for (st, sat) in attached {
            self.tracer
                .anim_write(SimTime::ZERO, |a| a.attach(SimTime::ZERO, st, sat));
        }
    }

    /// Ground station `station` now attached to `far` (itself: to no satellite).
    pub(super) fn anim_attach(&mut self, now: SimTime, station: NodeId, far: NodeId) {
        let sat = if far == station { -1 } else { i64::from(far.0) };
        self.tracer
            .anim_write(now, |a| a.attach(now, station.0, sat));
    }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}
