//! The applications at the two ends of a QUIC flow: a bulk source that writes on
//! `streams` unidirectional streams, round robin, `message_size` bytes at a time, and a
//! sink that reads every stream as its bytes arrive in order and counts them per stream.

use crate::metrics::Window;
use crate::sim::SimTime;
use bytes::Bytes;
use quinn_proto::{Connection, Dir, StreamId};

/// The bytes written are zeros, shared rather than copied (`Bytes::from_static`).
static ZEROS: [u8; 65_536] = [0; 65_536];

pub struct Source {
    /// Bytes left to write on each stream; `None`: unlimited until `stop`.
    left: Vec<Option<u64>>,
    ids: Vec<StreamId>,
    message_size: u64,
    next: usize,
    /// Streams whose every byte the peer has acknowledged (`StreamEvent::Finished`).
    acked: usize,
    /// Streams the source has finished (no more bytes to write).
    finished: Vec<bool>,
}

impl Source {
    /// `bytes` split over `streams` as evenly as whole bytes allow, the first streams
    /// taking the remainder.
    pub fn new(streams: u32, bytes: Option<u64>, message_size: u32) -> Self {
        let n = u64::from(streams.max(1));
        let left = (0..n)
            .map(|i| bytes.map(|b| b / n + u64::from(i < b % n)))
            .collect();
        Source {
            left,
            ids: Vec::new(),
            message_size: u64::from(message_size.max(1)),
            next: 0,
            acked: 0,
            finished: vec![false; n as usize],
        }
    }

    /// Opens the streams once the connection allows it.
    pub fn open(&mut self, conn: &mut Connection) {
        while self.ids.len() < self.left.len() {
            match conn.streams().open(Dir::Uni) {
                Some(id) => self.ids.push(id),
                None => break,
            }
        }
    }

    /// Writes round robin until the send buffer is full or nothing is left; finishes a
    /// stream whose bytes are all written.
    pub fn write(&mut self, conn: &mut Connection) {
        let n = self.ids.len();
        let mut blocked = 0;
        while blocked < n {
            let i = self.next;
            self.next = (self.next + 1) % n;
            if self.finished[i] {
                blocked += 1;
                continue;
            }
            let want = self.left[i].map_or(self.message_size, |l| l.min(self.message_size));
            let mut sent = 0u64;
            let mut stream = conn.send_stream(self.ids[i]);
            while sent < want {
                let len = (want - sent).min(ZEROS.len() as u64) as usize;
                let mut chunk = [Bytes::from_static(&ZEROS[..len])];
                match stream.write_chunks(&mut chunk) {
                    Ok(w) if w.bytes > 0 => sent += w.bytes as u64,
                    _ => break,
                }
            }
            if let Some(l) = self.left[i].as_mut() {
                *l -= sent;
                if *l == 0 {
                    self.finished[i] = true;
                    let _ = conn.send_stream(self.ids[i]).finish();
                }
            }
            blocked = if sent < want { blocked + 1 } else { 0 };
        }
    }

    /// The application stops offering data: every stream ends after what it has written.
    pub fn stop(&mut self, conn: &mut Connection) {
        for (i, id) in self.ids.iter().enumerate() {
            if !self.finished[i] {
                self.finished[i] = true;
                self.left[i] = Some(0);
                let _ = conn.send_stream(*id).finish();
            }
        }
    }

    /// A stream's bytes are all acknowledged.
    pub fn on_acked(&mut self) {
        self.acked += 1;
    }

    /// Every stream is open, finished and acknowledged.
    pub fn complete(&self) -> bool {
        self.ids.len() == self.left.len() && self.acked == self.left.len()
    }

    pub fn open_streams(&self) -> usize {
        self.ids.len()
    }
}

/// What the sink saw on one stream.
#[derive(Clone, Debug, Default)]
pub struct StreamStats {
    /// Bytes delivered in order inside the measurement window.
    pub delivered_bytes: u64,
    /// Bytes delivered in order over the whole run (message boundaries count from it).
    pub total_bytes: u64,
    /// Messages (`message_size` bytes of the source) whose last byte was delivered in
    /// the window.
    pub delivered_messages: u64,
    /// The stream's message size (the flow's, or its `stream_traffic` source's).
    pub message_size: u64,
    /// With `stream_traffic`: when each message's last byte was delivered (whole run),
    /// the k-th entry for the stream's k-th message.
    pub delivered_at: Option<Vec<SimTime>>,
}

pub struct Sink {
    pub streams: Vec<StreamStats>,
    window: Window,
    pub delivered_bytes: u64,
}

impl Sink {
    /// `sources`: with `stream_traffic`, each stream's source (its message size, and
    /// the sink logs when each message is delivered).
    pub fn new(
        streams: u32,
        message_size: u32,
        sources: &[crate::sctp::streams::StreamSourceCfg],
        window: Window,
    ) -> Self {
        let mut all = vec![
            StreamStats {
                message_size: u64::from(message_size.max(1)),
                ..StreamStats::default()
            };
            streams.max(1) as usize
        ];
        if !sources.is_empty() {
            for (i, st) in all.iter_mut().enumerate() {
                st.delivered_at = Some(Vec::new());
                if let Some(c) = sources.iter().find(|c| usize::from(c.stream) == i) {
                    st.message_size = c.message_size.max(1);
                }
            }
        }
        Sink {
            streams: all,
            window,
            delivered_bytes: 0,
        }
    }

    /// Accepts new streams and reads every readable byte.
    pub fn read_all(&mut self, now: SimTime, conn: &mut Connection) {
        while conn.streams().accept(Dir::Uni).is_some() {}
        for i in 0..self.streams.len() {
            let id = StreamId::new(quinn_proto::Side::Client, Dir::Uni, i as u64);
            self.read(now, conn, id);
        }
    }

    /// Reads what stream `id` has in order.
    pub fn read(&mut self, now: SimTime, conn: &mut Connection, id: StreamId) {
        let Some(st) = self.streams.get_mut(id.index() as usize) else {
            return;
        };
        let mut recv = conn.recv_stream(id);
        let Ok(mut chunks) = recv.read(true) else {
            return;
        };
        let in_window = self.window.contains(now);
        while let Ok(Some(chunk)) = chunks.next(usize::MAX) {
            let len = chunk.bytes.len() as u64;
            let before = st.total_bytes / st.message_size;
            st.total_bytes += len;
            let after = st.total_bytes / st.message_size;
            if in_window {
                st.delivered_bytes += len;
                self.delivered_bytes += len;
                st.delivered_messages += after - before;
            }
            if let Some(log) = st.delivered_at.as_mut() {
                log.extend((before..after).map(|_| now));
            }
        }
        let _ = chunks.finalize();
    }
}

/// The client's application: the bulk source, or `stream_traffic`'s per-stream
/// sources (`messages`).
pub enum ClientApp {
    Bulk(Source),
    Messages(super::messages::MessageSource),
}

impl ClientApp {
    pub fn open(&mut self, conn: &mut Connection) {
        match self {
            ClientApp::Bulk(s) => s.open(conn),
            ClientApp::Messages(m) => m.open(conn),
        }
    }

    pub fn write(&mut self, now: SimTime, conn: &mut Connection) {
        match self {
            ClientApp::Bulk(s) => s.write(conn),
            ClientApp::Messages(m) => m.write(now, conn),
        }
    }

    pub fn stop(&mut self, now: SimTime, conn: &mut Connection) {
        match self {
            ClientApp::Bulk(s) => s.stop(conn),
            ClientApp::Messages(m) => m.stop(now, conn),
        }
    }

    pub fn on_acked(&mut self) {
        match self {
            ClientApp::Bulk(s) => s.on_acked(),
            ClientApp::Messages(m) => m.on_acked(),
        }
    }

    pub fn complete(&self) -> bool {
        match self {
            ClientApp::Bulk(s) => s.complete(),
            ClientApp::Messages(m) => m.complete(),
        }
    }

    /// When the application next has something to do after `now` (the bulk source
    /// writes whenever quinn takes bytes, so never by itself).
    pub fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        match self {
            ClientApp::Bulk(_) => None,
            ClientApp::Messages(m) => m.next_wakeup(now),
        }
    }
}
