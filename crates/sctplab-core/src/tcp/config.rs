//! The TCP machines' own configuration types; the scenario layer maps its flow entries
//! onto them (`TcpCfg::endpoint_cfgs` in scenario/schema/tcp.rs), so nothing here knows the
//! scenario format.

/// TCP loss-recovery algorithm (ns-2.35's one-way agents of the same names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Reno,
    Newreno,
    Sack,
    Fack,
}

impl Variant {
    /// The name ns-2.35 and the scenario files use.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Reno => "reno",
            Variant::Newreno => "newreno",
            Variant::Sack => "sack",
            Variant::Fack => "fack",
        }
    }

    /// Whether the receiver reports SACK blocks (RFC 2018) for this sender.
    pub fn uses_sack(self) -> bool {
        matches!(self, Variant::Sack | Variant::Fack)
    }
}
