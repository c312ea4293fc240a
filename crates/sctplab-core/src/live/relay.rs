//! A seeded UDP impairment relay for live tests on loopback: datagrams from the client
//! go to the server and back, each direction with loss, delay (fixed plus uniform
//! jitter), reordering (a packet held back longer so later ones overtake it) and
//! duplication drawn from `RngStream`s of the seed, plus a deterministic drop list:
//! DATA chunk number n (1-based from the client's initial TSN, CONTRACTS.md numbering)
//! lost the first `times` times it crosses toward the server. Losing a chunk and then
//! its fast retransmission forces gap reports, a fast retransmit and a T3 timeout.

use crate::sim::RngStream;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::ErrorKind;
use std::net::{SocketAddr, SocketAddrV4, UdpSocket};
use std::time::{Duration, Instant};

#[derive(Clone, Debug, Default)]
pub struct Impairment {
    pub loss: f64,
    pub delay: Duration,
    pub jitter: Duration,
    pub reorder: f64,
    /// Extra delay of a reordered packet.
    pub reorder_delay: Duration,
    pub duplicate: f64,
}

#[derive(Clone, Debug)]
pub struct RelayOptions {
    pub listen: SocketAddrV4,
    pub server: SocketAddrV4,
    pub to_server: Impairment,
    pub to_client: Impairment,
    /// (DATA chunk number, times) dropped toward the server.
    pub drop_chunks: Vec<(u32, u32)>,
    pub seed: u64,
}

#[derive(Clone, Debug, Default)]
pub struct DirStats {
    pub received: u64,
    pub forwarded: u64,
    pub lost: u64,
    pub listed_drops: u64,
    pub reordered: u64,
    pub duplicated: u64,
}

struct Dir {
    imp: Impairment,
    rng: RngStream,
    stats: DirStats,
}

pub struct Relay {
    sock: UdpSocket,
    server: SocketAddrV4,
    client: Option<SocketAddr>,
    dirs: [Dir; 2],
    drops: Vec<(u32, u32)>,
    initial_tsn: Option<u32>,
    queue: BinaryHeap<Reverse<(Instant, u64, usize)>>,
    /// Queued datagrams: (bytes, destination); slots reused through `free`.
    slots: Vec<(Vec<u8>, SocketAddr)>,
    free: Vec<usize>,
    seq: u64,
    buf: Vec<u8>,
}

const TO_SERVER: usize = 0;
const TO_CLIENT: usize = 1;

impl Relay {
    pub fn new(opts: RelayOptions) -> std::io::Result<Relay> {
        let sock = UdpSocket::bind(opts.listen)?;
        let dir = |imp: Impairment, name: &str| Dir {
            imp,
            rng: RngStream::new(opts.seed, name),
            stats: DirStats::default(),
        };
        Ok(Relay {
            sock,
            server: opts.server,
            client: None,
            dirs: [
                dir(opts.to_server, "relay:to_server"),
                dir(opts.to_client, "relay:to_client"),
            ],
            drops: opts.drop_chunks,
            initial_tsn: None,
            queue: BinaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            seq: 0,
            buf: vec![0; 65_535],
        })
    }

    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.sock.local_addr()
    }

    pub fn stats(&self) -> (&DirStats, &DirStats) {
        (&self.dirs[TO_SERVER].stats, &self.dirs[TO_CLIENT].stats)
    }

    /// Relays for `slice` of wall time.
    pub fn run_for(&mut self, slice: Duration) -> std::io::Result<()> {
        let end = Instant::now() + slice;
        loop {
            let now = Instant::now();
            while let Some(Reverse((t, _, slot))) = self.queue.peek().copied() {
                if t > now {
                    break;
                }
                self.queue.pop();
                let (bytes, to) = &self.slots[slot];
                // A send that fails is a loss like any other.
                let _ = self.sock.send_to(bytes, to);
                self.free.push(slot);
            }
            if now >= end {
                return Ok(());
            }
            let mut wait = end - now;
            if let Some(Reverse((t, _, _))) = self.queue.peek() {
                wait = wait.min(t.saturating_duration_since(now));
            }
            self.sock
                .set_read_timeout(Some(wait.max(Duration::from_micros(50))))?;
            let mut buf = std::mem::take(&mut self.buf);
            let got = self.sock.recv_from(&mut buf);
            match got {
                Ok((n, from)) => self.on_datagram(&buf[..n], from),
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) => {}
                Err(e) if e.kind() == ErrorKind::ConnectionRefused => {}
                Err(e) => {
                    self.buf = buf;
                    return Err(e);
                }
            }
            self.buf = buf;
        }
    }

    fn on_datagram(&mut self, data: &[u8], from: SocketAddr) {
        let (d, to) = if from == SocketAddr::V4(self.server) {
            let Some(c) = self.client else { return };
            (TO_CLIENT, c)
        } else {
            self.client = Some(from);
            (TO_SERVER, SocketAddr::V4(self.server))
        };
        self.dirs[d].stats.received += 1;
        if d == TO_SERVER && self.listed_drop(data) {
            self.dirs[d].stats.listed_drops += 1;
            return;
        }
        let dir = &mut self.dirs[d];
        if dir.rng.bernoulli(dir.imp.loss) {
            dir.stats.lost += 1;
            return;
        }
        let copies = if dir.rng.bernoulli(dir.imp.duplicate) {
            dir.stats.duplicated += 1;
            2
        } else {
            1
        };
        let now = Instant::now();
        for _ in 0..copies {
            let dir = &mut self.dirs[d];
            let mut delay = dir.imp.delay + dir.imp.jitter.mul_f64(dir.rng.uniform());
            if dir.rng.bernoulli(dir.imp.reorder) {
                dir.stats.reordered += 1;
                delay += dir.imp.reorder_delay;
            }
            dir.stats.forwarded += 1;
            let slot = match self.free.pop() {
                Some(s) => {
                    self.slots[s].0.clear();
                    self.slots[s].0.extend_from_slice(data);
                    self.slots[s].1 = to;
                    s
                }
                None => {
                    self.slots.push((data.to_vec(), to));
                    self.slots.len() - 1
                }
            };
            self.seq += 1;
            self.queue.push(Reverse((now + delay, self.seq, slot)));
        }
    }

    /// Learns the client's initial TSN from its INIT; true if the packet carries a
    /// listed DATA chunk that still has drops left (RFC 9260 3.3.1/3.3.2 layouts).
    fn listed_drop(&mut self, p: &[u8]) -> bool {
        let mut at = 12;
        let mut drop = false;
        while at + 4 <= p.len() {
            let kind = p[at];
            let len = usize::from(u16::from_be_bytes([p[at + 2], p[at + 3]]));
            if len < 4 || at + len > p.len() {
                break;
            }
            if kind == 1 && len >= 20 {
                let t = &p[at + 16..at + 20];
                self.initial_tsn = Some(u32::from_be_bytes([t[0], t[1], t[2], t[3]]));
            }
            // DATA, or I-DATA (RFC 8260 2.1): the TSN in the same place.
            if (kind == 0 && len >= 16) || (kind == 64 && len >= 20) {
                if let Some(init) = self.initial_tsn {
                    let t = &p[at + 4..at + 8];
                    let tsn = u32::from_be_bytes([t[0], t[1], t[2], t[3]]);
                    let n = tsn.wrapping_sub(init).wrapping_add(1);
                    for (num, times) in &mut self.drops {
                        if *num == n && *times > 0 {
                            *times -= 1;
                            drop = true;
                        }
                    }
                }
            }
            at += len.next_multiple_of(4);
        }
        drop
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn forwards_both_ways_with_drop_list_and_duplicates() {
        let lo = Ipv4Addr::LOCALHOST;
        let server = UdpSocket::bind(SocketAddrV4::new(lo, 0)).expect("bind");
        let SocketAddr::V4(server_addr) = server.local_addr().expect("addr") else {
            panic!("v4")
        };
        let mut relay = Relay::new(RelayOptions {
            listen: SocketAddrV4::new(lo, 0),
            server: server_addr,
            to_server: Impairment {
                duplicate: 1.0,
                ..Impairment::default()
            },
            to_client: Impairment::default(),
            drop_chunks: vec![(2, 1)],
            seed: 1,
        })
        .expect("relay");
        let relay_addr = relay.local_addr().expect("addr");
        let client = UdpSocket::bind(SocketAddrV4::new(lo, 0)).expect("bind");
        server
            .set_read_timeout(Some(Duration::from_millis(200)))
            .expect("timeout");
        client
            .set_read_timeout(Some(Duration::from_millis(200)))
            .expect("timeout");
        // An INIT with initial TSN 100, then DATA chunks TSN 100 and 101 (numbers 1, 2).
        let mut init = vec![0u8; 12 + 20];
        init[12] = 1;
        init[15] = 20;
        init[28..32].copy_from_slice(&100u32.to_be_bytes());
        let data = |tsn: u32| {
            let mut p = vec![0u8; 12 + 16];
            p[15] = 16;
            p[16..20].copy_from_slice(&tsn.to_be_bytes());
            p
        };
        for p in [init, data(100), data(101), data(101)] {
            client.send_to(&p, relay_addr).expect("send");
        }
        relay.run_for(Duration::from_millis(100)).expect("run");
        let mut got = Vec::new();
        let mut buf = [0u8; 100];
        while let Ok((n, _)) = server.recv_from(&mut buf) {
            got.push(n);
        }
        // Every packet doubled, but the first crossing of chunk 2 dropped:
        // INIT x2, DATA 100 x2, DATA 101 (second crossing) x2.
        assert_eq!(got.len(), 6);
        let (s, _) = relay.stats();
        assert_eq!((s.received, s.listed_drops, s.duplicated), (4, 1, 3));
        // The server's answer goes back to the client.
        server.send_to(b"back", relay_addr).expect("send");
        relay.run_for(Duration::from_millis(50)).expect("run");
        let (n, _) = client.recv_from(&mut buf).expect("reply");
        assert_eq!(&buf[..n], b"back");
    }
}
