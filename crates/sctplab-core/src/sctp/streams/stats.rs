//! Per-stream message delay: from a message's submission by the sending application
//! (entry into the send buffer) to its delivery to the receiving one, joined by the
//! TSN of the message's last chunk, which both ends know.

use super::StreamSources;
use crate::sim::SimTime;

/// One stream's figures for summary.json.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StreamMsgStats {
    /// Mean delay of the messages delivered in the measurement window, seconds.
    pub delay_mean_s: Option<f64>,
    /// 99th percentile of those delays by the nearest-rank method: the
    /// ceil(0.99 n)-th smallest of the n delays.
    pub delay_p99_s: Option<f64>,
    pub abandoned_messages: u64,
}

/// The nearest-rank percentile `p` (0 < p <= 100) of sorted `v`: the ceil(p/100 n)-th
/// smallest value.
pub fn nearest_rank(v: &[f64], p: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * v.len() as f64).ceil().max(1.0) as usize;
    v.get(rank.min(v.len()) - 1).copied()
}

/// Figures for streams `0..n` from the sender's sources and the receiver's delivery
/// log ((stream, relative TSN of the last chunk, delivery time)).
pub fn stream_stats(
    src: &StreamSources,
    delivered: &[(u16, u32, SimTime)],
    n: usize,
) -> Vec<StreamMsgStats> {
    let mut delays: Vec<Vec<f64>> = vec![Vec::new(); n];
    for &(stream, rel, at) in delivered {
        // The sender's log is in TSN order (messages are cut one after another).
        let k = src.log.partition_point(|&(r, _, _)| r < rel);
        let Some(&(r, s, submitted)) = src.log.get(k) else {
            continue;
        };
        if r == rel && s == stream {
            if let Some(d) = delays.get_mut(usize::from(stream)) {
                d.push(at.saturating_since(submitted).as_secs_f64());
            }
        }
    }
    delays
        .into_iter()
        .enumerate()
        .map(|(i, mut d)| {
            d.sort_by(f64::total_cmp);
            let mean = (!d.is_empty()).then(|| d.iter().sum::<f64>() / d.len() as f64);
            StreamMsgStats {
                delay_mean_s: mean,
                delay_p99_s: nearest_rank(&d, 99.0),
                abandoned_messages: src.tally.get(i).map_or(0, |t| t.abandoned_messages),
            }
        })
        .collect()
}

/// With `stream_traffic`, adds the message keys to an SCTP flow's summary entry
/// (CONTRACTS.md "Messages"): per stream `message_delay_mean_s`,
/// `message_delay_p99_s` and `abandoned_messages`; per flow `abandoned_messages` and
/// `forward_tsn_sent`. Without it the entry is left as it was, byte for byte.
pub fn add_summary_keys(
    flow: &mut serde_json::Value,
    client: &crate::sctp::Association,
    server: &crate::sctp::Association,
) {
    add_interleaving_keys(flow, client, server);
    let Some(src) = client.out.as_ref().and_then(|o| o.app.streams.as_deref()) else {
        return;
    };
    let no_log = Vec::new();
    let log = server
        .inb
        .as_ref()
        .and_then(|i| i.msg_log.as_ref())
        .unwrap_or(&no_log);
    let num = |x: Option<f64>| {
        x.and_then(serde_json::Number::from_f64)
            .map_or(serde_json::Value::Null, serde_json::Value::Number)
    };
    let Some(obj) = flow.as_object_mut() else {
        return;
    };
    if let Some(serde_json::Value::Array(entries)) = obj.get_mut("streams") {
        let stats = stream_stats(src, log, entries.len());
        for (e, st) in entries.iter_mut().zip(stats) {
            if let Some(e) = e.as_object_mut() {
                e.insert("message_delay_mean_s".into(), num(st.delay_mean_s));
                e.insert("message_delay_p99_s".into(), num(st.delay_p99_s));
                e.insert("abandoned_messages".into(), st.abandoned_messages.into());
            }
        }
    }
    let abandoned: u64 = src.tally.iter().map(|t| t.abandoned_messages).sum();
    obj.insert("abandoned_messages".into(), abandoned.into());
    obj.insert("forward_tsn_sent".into(), src.forward_tsn_sent.into());
}

/// With `interleaving`: `interleaving_negotiated` (false: the peer did not list
/// I-DATA and the association fell back to DATA, RFC 8260 sec. 2.2.1) and
/// `idata_malformed` (I-DATA fragments the receiver dropped as contradicting their
/// message). Without it the entry is left as it was.
fn add_interleaving_keys(
    flow: &mut serde_json::Value,
    client: &crate::sctp::Association,
    server: &crate::sctp::Association,
) {
    if !client.knobs().interleaving {
        return;
    }
    let Some(obj) = flow.as_object_mut() else {
        return;
    };
    let on = client.idata_on() && server.idata_on();
    obj.insert("interleaving_negotiated".into(), on.into());
    let bad = server.inb.as_ref().map_or(0, |i| i.idata_malformed());
    obj.insert("idata_malformed".into(), bad.into());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_by_hand() {
        // n = 200: ceil(1.98 * 100) = 198th smallest; n = 5: ceil(4.95) = 5th.
        let v: Vec<f64> = (1..=200).map(f64::from).collect();
        assert_eq!(nearest_rank(&v, 99.0), Some(198.0));
        assert_eq!(nearest_rank(&[1.0, 2.0, 3.0, 4.0, 5.0], 99.0), Some(5.0));
        assert_eq!(nearest_rank(&[7.0], 99.0), Some(7.0));
        assert_eq!(nearest_rank(&[], 99.0), None);
    }
}
