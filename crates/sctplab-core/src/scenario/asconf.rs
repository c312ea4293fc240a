//! The `[[faults]]` events that send an ASCONF (RFC 5061; CONTRACTS.md "Messages: ...";
//! docs/models/sctp.md "Dynamic addresses"): `add_address`, `delete_address`, and
//! `set_primary` with `address` (an interface of the flow's sender) instead of
//! `primary`. Validated in `validate/asconf.rs`.

use super::load::Scenario;
use super::schema::{FaultAction, FaultEntry};
use crate::sctp::asconf::AddrChange;

/// Whether `f` sends an ASCONF.
pub(crate) fn is_asconf(f: &FaultEntry) -> bool {
    match f.action {
        FaultAction::AddAddress | FaultAction::DeleteAddress => true,
        FaultAction::SetPrimary => f.address.is_some(),
        _ => false,
    }
}

/// Whether the flow scripts an address change: only then do its ends announce ASCONF
/// (every other flow's handshake keeps its bytes).
pub(crate) fn flow_uses_asconf(s: &Scenario, flow: &str) -> bool {
    s.file
        .faults
        .iter()
        .any(|f| is_asconf(f) && f.flow.as_deref() == Some(flow))
}

/// The change a validated entry makes, given its interface's address.
pub(crate) fn change(f: &FaultEntry, addr: [u8; 4]) -> Option<AddrChange> {
    match f.action {
        FaultAction::AddAddress => Some(AddrChange::Add(addr)),
        FaultAction::DeleteAddress => Some(AddrChange::Delete(addr)),
        FaultAction::SetPrimary if f.address.is_some() => Some(AddrChange::SetPrimary(addr)),
        _ => None,
    }
}
