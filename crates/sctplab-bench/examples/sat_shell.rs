//! The satellite model's link state and routing over time on a Starlink-like shell
//! (issue 39's speed scenario without the packets): a 72 x 22 Walker delta at 550 km and
//! 53 deg with its ISL grid, 100 ground stations on a latitude/longitude grid with
//! slotted handovers every 15 s and a 25-deg mask, ISLs checked every 10 s, and the
//! shortest-delay routes of 10 station pairs recomputed at every check where a link
//! appeared or disappeared, for 200 s. Prints where the time goes.
//!
//! Usage: `cargo run --release -p sctplab-bench --example sat_shell`

use sctplab_core::sat::constellation::{Constellation, PlaneTopology, Satellite};
use sctplab_core::sat::deg_to_rad;
use sctplab_core::sat::handover::{Policy, Station};
use sctplab_core::sat::network::{Network, StationCfg};
use sctplab_core::sat::orbit::{GroundPoint, Orbit};
use sctplab_core::sat::walker::{WalkerKind, WalkerSpec, layout};
use std::time::Instant;

fn main() -> Result<(), String> {
    let spec = WalkerSpec {
        kind: WalkerKind::Delta,
        planes: 72,
        per_plane: 22,
        altitude_km: 550.0,
        inclination_deg: 53.0,
        phasing: 1,
    };
    let sats: Vec<Satellite> = layout(&spec)
        .map_err(|(k, m)| format!("{k}: {m}"))?
        .into_iter()
        .map(|p| Satellite {
            plane: p.plane,
            index: p.index,
            orbit: Orbit::Circular(p.orbit),
        })
        .collect();
    let c = Constellation::new("shell", sats, PlaneTopology::Ring);
    // 100 stations: latitudes -45..45 every 10 deg, longitudes -162..162 every 36 deg.
    let mut stations = Vec::new();
    for a in 0..10 {
        for o in 0..10 {
            let point = GroundPoint::from_lat_lon(
                -45.0 + 10.0 * f64::from(a),
                -162.0 + 36.0 * f64::from(o),
            )
            .map_err(|e| e.to_string())?;
            stations.push(StationCfg {
                station: Station {
                    point,
                    mask: deg_to_rad(25.0),
                },
                policy: Policy::Slotted,
                interval_s: 15.0,
            });
        }
    }
    let t0 = Instant::now();
    let mut net = Network::new(c, 70.0, 10.0, stations);
    let built = t0.elapsed();
    let pairs: Vec<(usize, usize)> = (0..10)
        .map(|k| (k * 7 % 100, (k * 13 + 50) % 100))
        .collect();
    let (mut checks, mut recomputes, mut routed) = (0u32, 0u32, 0u32);
    let (mut t_checks, mut t_routes) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
    let route_all = |net: &Network, t: f64, routed: &mut u32| {
        for &(a, b) in &pairs {
            *routed += u32::from(net.route(a, b, t).is_some());
        }
    };
    let r0 = Instant::now();
    route_all(&net, 0.0, &mut routed);
    t_routes += r0.elapsed();
    while let Some(at) = net.next_check(200.0) {
        let c0 = Instant::now();
        let changed = net.advance_to(at);
        t_checks += c0.elapsed();
        checks += 1;
        if changed {
            recomputes += 1;
            let r0 = Instant::now();
            route_all(&net, at, &mut routed);
            t_routes += r0.elapsed();
        }
    }
    let handovers: u64 = (0..100).map(|s| net.handovers(s)).sum();
    println!(
        "satellites {}, ISLs {}, stations 100",
        net.constellation.sats.len(),
        net.grid.len()
    );
    println!(
        "build (ISL state and first attachments at t = 0): {:.3} s",
        built.as_secs_f64()
    );
    println!(
        "{checks} check instants in 200 s: {:.3} s",
        t_checks.as_secs_f64()
    );
    println!(
        "{recomputes} recomputations x 10 routes ({routed} found): {:.3} s",
        t_routes.as_secs_f64()
    );
    println!("handovers (all stations): {handovers}");
    Ok(())
}
