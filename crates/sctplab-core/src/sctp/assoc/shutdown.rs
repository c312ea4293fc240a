//! Closing the association: the graceful shutdown of RFC 9260 9.2 (the client's
//! SHUTDOWN once everything it sent is acknowledged, the server's SHUTDOWN ACK, the
//! client's SHUTDOWN COMPLETE), ABORT (9.1), and the timers stopped when it is done.
//! The T2-shutdown timer's expiry is in timers.rs, a SHUTDOWN ACK for an association
//! already gone (8.4 (5)) in `handle_rare_chunk` (assoc.rs).

use super::*;

impl Association {
    /// RFC 9260 3.3.8: a SHUTDOWN acknowledges the last TSN received in sequence. A
    /// client that only sends has received none: the TSN before the peer's first, not 0
    /// (usrsctp aborts the association when the value is not below its next TSN).
    pub(super) fn shutdown_cum_ack(&self) -> u32 {
        self.inb
            .as_ref()
            .map_or(self.peer_initial_tsn.wrapping_sub(1), |i| i.cum_tsn)
    }

    /// Client: the SHUTDOWN once everything it sent is acknowledged.
    pub(super) fn maybe_shutdown(&mut self) {
        if self.role != Role::Client || self.state != State::Established {
            return;
        }
        let Some(out) = &self.out else { return };
        if out.done() {
            // Everything delivered and acknowledged: graceful close (RFC 9260 9.2).
            self.state = State::ShutdownSent;
            let cum = self.shutdown_cum_ack();
            let dst = self.default_dest();
            self.send_ctrl(self.peer_tag, Chunk::Shutdown { cum_tsn_ack: cum }, dst);
            self.timers
                .set(Timer::T2Shutdown, self.now + self.t2_timeout());
        }
    }

    /// This end ends the association with an ABORT (T bit clear, RFC 9260 9.1).
    pub(super) fn abort(&mut self) {
        let dst = self.default_dest();
        self.send_ctrl(self.peer_tag, Chunk::Abort { t_bit: false }, dst);
        self.stats.aborted = true;
        self.stop_timers();
    }

    /// The association is done: no timer may fire for it again.
    pub(super) fn stop_timers(&mut self) {
        self.state = State::Done;
        self.timers.stop(Timer::T1Init);
        self.timers.stop(Timer::T2Shutdown);
        self.timers.stop(Timer::HeartbeatGen);
        for p in &mut self.paths.paths {
            p.t3 = None;
            p.hb_pending = None;
        }
    }

    /// Server: the peer's SHUTDOWN, answered with a SHUTDOWN ACK.
    pub(super) fn on_shutdown(&mut self) {
        self.state = State::ShutdownAckSent;
        self.send_ctrl(self.peer_tag, Chunk::ShutdownAck, self.pkt_src);
        // RFC 9260 9.2: the SHUTDOWN ACK is guarded by a T2-shutdown timer of its own,
        // so a lost SHUTDOWN COMPLETE gets it resent. A repeated SHUTDOWN is answered
        // without restarting the timer.
        if !self.timers.is_set(Timer::T2Shutdown) {
            self.timers
                .set(Timer::T2Shutdown, self.now + self.t2_timeout());
        }
    }

    /// Client: the SHUTDOWN ACK to its SHUTDOWN, answered with a SHUTDOWN COMPLETE.
    pub(super) fn on_shutdown_ack(&mut self) {
        self.send_ctrl(
            self.peer_tag,
            Chunk::ShutdownComplete { t_bit: false },
            self.pkt_src,
        );
        self.stop_timers();
    }
}
