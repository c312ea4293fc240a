//! `[wireless]`, `[mobility]` and the wireless side of `[[nodes]]`: channel, PHY and MAC
//! values in range, wireless nodes placed inside the area (or moved by `[mobility]`).

use crate::net::{IfaceId, NodeId};
use crate::scenario::error::ScenarioError;
use crate::scenario::load::Scenario;
use crate::scenario::schema::{MacSchema, MobilityModel, PhySchema, WirelessCfg};

pub(super) fn validate_wireless(
    s: &Scenario,
    adjacency: &[Vec<(IfaceId, NodeId)>],
    source: &str,
) -> Result<(), ScenarioError> {
    let f = &s.file;
    let err = |path: String, msg: String| Err(ScenarioError::new(source, path, msg));
    let m = &f.mobility;
    let Some(w) = &f.wireless else {
        if let Some(n) = f.nodes.iter().find(|n| n.wlan > 0) {
            return err(
                format!("nodes.{}.wlan", n.name),
                "wireless NICs need a [wireless] table (width, height, ...)".into(),
            );
        }
        if let Some(n) = f.nodes.iter().find(|n| n.x.is_some() || n.y.is_some()) {
            return err(
                format!("nodes.{}.x", n.name),
                "positions belong to wireless nodes (wlan > 0 and a [wireless] table)".into(),
            );
        }
        if m.model != MobilityModel::Static || m.file.is_some() || !m.fixed.is_empty() {
            return err("mobility".into(), "needs a [wireless] table".into());
        }
        return Ok(());
    };
    if s.duration().is_none() {
        return err(
            "duration".into(),
            "required with [wireless]: a partitioned network may never finish a transfer, and \
             routing timers never stop; expected a time like \"900s\""
                .into(),
        );
    }
    if w.width.0 == 0 || w.height.0 == 0 {
        return err(
            "wireless.width".into(),
            "the area must have a positive width and height".into(),
        );
    }
    if w.queue == 0 {
        return err("wireless.queue".into(), "expected at least 1 packet".into());
    }
    crate::scenario::wireless_aqm::validate(w, source)?;
    validate_phy(&w.phy, source)?;
    validate_mac(&w.mac, source)?;
    validate_wireless_nodes(s, w, adjacency, source)?;
    if m.model == MobilityModel::RandomWaypoint && m.file.is_none() && m.max_speed.is_none() {
        return err(
            "mobility.max_speed".into(),
            "required for model = \"random_waypoint\"; expected a speed like \"10m/s\"".into(),
        );
    }
    for (i, name) in m.fixed.iter().enumerate() {
        if !f.nodes.iter().any(|n| &n.name == name && n.wlan > 0) {
            return err(
                format!("mobility.fixed.{i}"),
                format!("{name:?} is not a wireless node"),
            );
        }
    }
    Ok(())
}

/// `[wireless.phy]`: positive powers, gains and frequency; sensing at or below decoding.
fn validate_phy(p: &PhySchema, source: &str) -> Result<(), ScenarioError> {
    let err = |path: String, msg: String| Err(ScenarioError::new(source, path, msg));
    for (key, v) in [
        ("tx_power_w", p.tx_power_w),
        ("frequency_hz", p.frequency_hz),
        ("tx_gain", p.tx_gain),
        ("rx_gain", p.rx_gain),
        ("rx_threshold_w", p.rx_threshold_w),
        ("cs_threshold_w", p.cs_threshold_w),
    ] {
        if !(v.is_finite() && v > 0.0) {
            return err(
                format!("wireless.phy.{key}"),
                format!("expected a positive number, got {v}"),
            );
        }
    }
    if !(p.system_loss.is_finite() && p.system_loss >= 1.0) {
        return err(
            "wireless.phy.system_loss".into(),
            "expected a number of at least 1".into(),
        );
    }
    if !(p.capture_ratio.is_finite() && p.capture_ratio >= 1.0) {
        return err(
            "wireless.phy.capture_ratio".into(),
            "expected a power ratio of at least 1".into(),
        );
    }
    if p.antenna_height.0 == 0 {
        return err(
            "wireless.phy.antenna_height".into(),
            "must be greater than zero".into(),
        );
    }
    if p.cs_threshold_w > p.rx_threshold_w {
        return err(
            "wireless.phy.cs_threshold_w".into(),
            "must not exceed rx_threshold_w (a frame one can decode is also sensed)".into(),
        );
    }
    Ok(())
}

/// `[wireless.mac]`: positive rates and slot, a contention window and retry limits in range.
fn validate_mac(mac: &MacSchema, source: &str) -> Result<(), ScenarioError> {
    let err = |path: String, msg: String| Err(ScenarioError::new(source, path, msg));
    for (key, v) in [
        ("data_rate", mac.data_rate.0),
        ("basic_rate", mac.basic_rate.0),
        ("plcp_rate", mac.plcp_rate.0),
    ] {
        if v == 0 {
            return err(
                format!("wireless.mac.{key}"),
                "must be greater than zero".into(),
            );
        }
    }
    if mac.slot.0 == crate::sim::SimDuration::ZERO {
        return err(
            "wireless.mac.slot".into(),
            "must be greater than zero".into(),
        );
    }
    if mac.cw_min == 0 || mac.cw_max < mac.cw_min || mac.cw_max > 65_535 {
        return err(
            "wireless.mac.cw_max".into(),
            "expected 1 <= cw_min <= cw_max <= 65535".into(),
        );
    }
    if mac.short_retry_limit == 0 || mac.long_retry_limit == 0 {
        return err(
            "wireless.mac.short_retry_limit".into(),
            "retry limits must be at least 1".into(),
        );
    }
    Ok(())
}

/// The wireless side of `[[nodes]]`: NIC counts, no node both wired and wireless, and
/// positions given exactly when `[mobility]` does not move the node, inside the area.
fn validate_wireless_nodes(
    s: &Scenario,
    w: &WirelessCfg,
    adjacency: &[Vec<(IfaceId, NodeId)>],
    source: &str,
) -> Result<(), ScenarioError> {
    let f = &s.file;
    let err = |path: String, msg: String| Err(ScenarioError::new(source, path, msg));
    let m = &f.mobility;
    let area = (w.width.meters(), w.height.meters());
    let positions_given = m.model == MobilityModel::Static && m.file.is_none();
    for (i, n) in f.nodes.iter().enumerate() {
        let p = format!("nodes.{}", n.name);
        if n.wlan > 4 {
            return err(
                format!("{p}.wlan"),
                format!("expected 0 to 4 wireless NICs, got {}", n.wlan),
            );
        }
        if n.wlan > 0 && !adjacency[i].is_empty() {
            return err(
                format!("{p}.wlan"),
                "a node with both links and wireless NICs is not supported yet".into(),
            );
        }
        if n.wlan > 0
            && s.file
                .snoop
                .iter()
                .any(|a| a.node == n.name || a.mobile == n.name)
        {
            return err(
                format!("{p}.wlan"),
                "snoop agents run on wired links only".into(),
            );
        }
        match (positions_given && n.wlan > 0, n.x, n.y) {
            (true, Some(x), Some(y)) => {
                if x.meters() > area.0 || y.meters() > area.1 {
                    return err(
                        format!("{p}.x"),
                        format!(
                            "({} m, {} m) is outside the area of {} m x {} m",
                            x.meters(),
                            y.meters(),
                            area.0,
                            area.1
                        ),
                    );
                }
            }
            (true, _, _) => {
                // The node's position or the mobility model may be what changed.
                return Err(ScenarioError::new(
                    source,
                    format!("{p}.x"),
                    format!(
                        "mobility.model = \"static\" (without a movement file) needs x and y \
                         on every wireless node, and {:?} lacks them",
                        n.name
                    ),
                )
                .with_related(["mobility.model".to_string()]));
            }
            (false, None, None) => {}
            (false, _, _) => {
                return err(
                    format!("{p}.x"),
                    "positions come from [mobility] (random waypoint or a movement file); \
                     x and y are only for model = \"static\" on wireless nodes"
                        .into(),
                );
            }
        }
    }
    Ok(())
}
