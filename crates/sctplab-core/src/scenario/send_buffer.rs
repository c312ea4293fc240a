//! The SCTP flow keys of the send buffer, NR-SACK and buffer splitting
//! (CONTRACTS.md "CMT-SCTP, NR-SACK ..."; docs/models/sctp.md "CMT"): `send_buffer` (a
//! size; absent: unlimited, as ns-2.35's `initialSwnd_ 0`), `nr_sack` (ns-2.35's
//! `useNonRenegSacks_`) and `buffer_splitting` (`"none"`, `"sender"`, `"receiver"`,
//! `"both"`, with `cmt`).

use super::ScenarioError;
use super::load::Scenario;
use super::schema::{FlowSpec, SctpCfg};
use crate::sctp::Knobs;
use crate::sctp::send_buffer::{BufferSplitting, SendBufferKnobs};
use serde::Deserialize;

/// `buffer_splitting` by name.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum BufferSplittingKey {
    None,
    Sender,
    Receiver,
    Both,
}

impl From<BufferSplittingKey> for BufferSplitting {
    fn from(b: BufferSplittingKey) -> Self {
        match b {
            BufferSplittingKey::None => BufferSplitting::None,
            BufferSplittingKey::Sender => BufferSplitting::Sender,
            BufferSplittingKey::Receiver => BufferSplitting::Receiver,
            BufferSplittingKey::Both => BufferSplitting::Both,
        }
    }
}

pub(crate) fn apply(c: &SctpCfg, k: &mut Knobs) {
    k.send_buffer = SendBufferKnobs {
        limit: c.send_buffer.map(|s| s.0),
        nr_sack: c.nr_sack,
        splitting: c.buffer_splitting.map_or(BufferSplitting::None, Into::into),
    };
}

/// One line for a send buffer that cannot hold one packet's chunk, or buffer splitting
/// without `cmt` (usrsctp splits only with `sctp_cmt_on_off`), or sender splitting
/// without a send buffer to split.
pub(crate) fn validate(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    for flow in &s.flows {
        let FlowSpec::Sctp(c) = flow else { continue };
        let path = |k: &str| format!("flows.{}.{k}", c.name);
        if let Some(b) = c.send_buffer {
            // The largest DATA chunk (as for receive_buffer): a smaller buffer never
            // lets the first chunk go.
            let room = c.mtu.0.saturating_sub(32 + 16) / 4 * 4;
            let largest = 16 + c.message_size.0.min(room);
            if b.0 < largest {
                return Err(ScenarioError::new(
                    source,
                    path("send_buffer"),
                    format!(
                        "expected at least {largest}B, the largest DATA chunk of this mtu and \
                         message_size"
                    ),
                ));
            }
        }
        let split = c.buffer_splitting.unwrap_or(BufferSplittingKey::None);
        if split != BufferSplittingKey::None && !c.cmt {
            return Err(ScenarioError::new(
                source,
                path("buffer_splitting"),
                "buffer_splitting needs cmt = true (it splits buffers among the destinations \
                 CMT sends new data to)",
            )
            .with_related([path("cmt")]));
        }
        if matches!(split, BufferSplittingKey::Sender | BufferSplittingKey::Both)
            && c.send_buffer.is_none()
        {
            return Err(ScenarioError::new(
                source,
                path("buffer_splitting"),
                "sender-side buffer splitting needs a send_buffer to split (e.g. \
                 send_buffer = \"64KiB\")",
            )
            .with_related([path("send_buffer")]));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sctp(extra: &str) -> SctpCfg {
        let text = format!("name = \"s\"\nfrom = \"a\"\nto = \"b\"\nvariant = \"ns2\"\n{extra}");
        toml::from_str(&text).expect("sctp entry")
    }

    #[test]
    fn off_by_default() {
        assert_eq!(sctp("").knobs().send_buffer, SendBufferKnobs::default());
    }

    #[test]
    fn keys_reach_the_knobs() {
        let k = sctp(
            "cmt = true\nsend_buffer = \"64KiB\"\nnr_sack = true\nbuffer_splitting = \"both\"",
        )
        .knobs();
        assert_eq!(
            k.send_buffer,
            SendBufferKnobs {
                limit: Some(65_536),
                nr_sack: true,
                splitting: BufferSplitting::Both,
            }
        );
    }

    #[test]
    fn an_unknown_splitting_mode_is_refused() {
        let text = "name = \"s\"\nfrom = \"a\"\nto = \"b\"\nbuffer_splitting = \"half\"";
        assert!(toml::from_str::<SctpCfg>(text).is_err());
    }
}
