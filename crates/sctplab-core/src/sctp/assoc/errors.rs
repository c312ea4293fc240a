//! ERROR chunks this end sends: the chunk itself, and the Invalid Stream Identifier
//! causes gathered while a packet's DATA chunks are read (RFC 9260 sec. 6.5, 3.3.10.1).

use super::*;

impl Association {
    /// An ERROR chunk under the peer's tag (T bit clear, RFC 9260 3.3.10).
    pub(super) fn send_error(&mut self, causes: Vec<ErrorCause>, dst: [u8; 4]) {
        self.stats.errors_sent += 1;
        self.send_ctrl(
            self.peer_tag,
            Chunk::Error {
                t_bit: false,
                causes,
            },
            dst,
        );
    }

    /// RFC 9260 6.5: a DATA chunk "with an invalid stream identifier" is acknowledged
    /// as usual and discarded (`Inbound::on_data`), and an ERROR with cause Invalid
    /// Stream Identifier (3.3.10.1) goes back at once; it may share the SACK's packet
    /// if it follows the SACK (`flush_stream_errors`). Our own sender never uses such
    /// a stream (its count is min(OS, the peer's MIS), 5.1.1); only a live peer can
    /// send one.
    #[inline(never)]
    pub(super) fn report_invalid_stream(&mut self, sid: u16) {
        if self.stream_errors.len() < MAX_STREAM_ERRORS && !self.stream_errors.contains(&sid) {
            self.stream_errors.push(sid);
        }
    }

    /// Queues the pending Invalid Stream Identifier causes as one ERROR chunk to where
    /// SACKs go.
    pub(super) fn flush_stream_errors(&mut self) {
        if self.stream_errors.is_empty() {
            return;
        }
        let causes = self
            .stream_errors
            .drain(..)
            .map(|sid| {
                let [hi, lo] = sid.to_be_bytes();
                ErrorCause {
                    code: cause::INVALID_STREAM_IDENTIFIER,
                    info: vec![hi, lo, 0, 0],
                }
            })
            .collect();
        self.send_error(causes, self.sack_dest);
    }
}
