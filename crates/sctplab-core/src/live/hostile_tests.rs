//! Hostile packets over a real socket (issue 28): a live server that meets forged
//! bundles, out-of-the-blue packets and DATA far beyond its window keeps listening,
//! answers as RFC 9260 says, and still serves the legitimate peer.

use super::tests::{Attacker, LO, data, flow, run_to_end, server_options};
use super::*;
use crate::net::wire::{Chunk, InitChunk};
use crate::sctp::Role;
use std::net::SocketAddrV4;
use std::thread;
use std::time::Duration;

fn init(tag: u32) -> Chunk {
    Chunk::Init(InitChunk {
        init_tag: tag,
        a_rwnd: 65_536,
        outbound_streams: 1,
        inbound_streams: 1,
        initial_tsn: 1,
        addrs: vec![],
        forward_tsn: false,
        cookie_preservative: None,
        unrecognized: vec![],
        ecn_capable: false,
        ext: Default::default(),
    })
}

fn garbage_cookie() -> Chunk {
    Chunk::CookieEcho {
        cookie: vec![0xa5; 76],
    }
}

#[test]
fn forged_and_out_of_the_blue_packets_then_a_real_client() {
    let srv = Session::new(server_options(20)).expect("server");
    let addr = srv.local_addr();
    let mut srv = srv;
    let h = thread::spawn(move || {
        let o = run_to_end(&mut srv);
        (o, srv.result_line(), srv.summary())
    });
    let a = Attacker::new(addr);
    let abort = || Chunk::Abort { t_bit: false };
    // Each of these used to end the server blind (an INIT or a garbage COOKIE ECHO
    // let the ABORT behind it skip the tag check; a tag-0 ABORT matched the tag of a
    // server without an association), or to make it grow its receive map.
    a.send(0, vec![init(0x1111), abort()], 0);
    a.send(0x2222_3333, vec![init(0x1111), abort()], 0);
    a.send(0x2222_3333, vec![garbage_cookie(), abort()], 0);
    a.send(0x2222_3333, vec![garbage_cookie(), data(1 << 30, 100)], 0);
    a.send(0x2222_3333, vec![abort(), garbage_cookie()], 0);
    a.send(0, vec![abort()], 0);
    a.send(0x4444_5555, vec![abort()], 0);
    a.send(0, vec![Chunk::Heartbeat { info: vec![7; 12] }], 0);
    assert!(a.recv().is_none(), "all silently discarded");
    // RFC 9260 8.4 (8): an out-of-the-blue HEARTBEAT under a tag gets no
    // HEARTBEAT ACK but an ABORT with the T bit, reflecting that tag.
    a.send(0x6666_7777, vec![Chunk::Heartbeat { info: vec![7; 12] }], 0);
    let r = a.recv().expect("ABORT");
    assert_eq!(
        (r.vtag, r.chunks),
        (0x6666_7777, vec![Chunk::Abort { t_bit: true }])
    );
    assert!(a.recv().is_none());

    let mut cli = Session::new(LiveOptions {
        role: Role::Client,
        bind: SocketAddrV4::new(LO, 0),
        remote: Some(addr),
        sctp_port: 5001,
        local_sctp_port: None,
        assoc: flow(&[
            ("streams", "2"),
            ("bytes", "100000B"),
            ("message_size", "1000B"),
        ]),
        timeout: Some(Duration::from_secs(20)),
        linger: Duration::ZERO,
        pcap: None,
        seed: Some(9),
    })
    .expect("client");
    assert_eq!(run_to_end(&mut cli), Outcome::Graceful);
    let (o, line, summary) = h.join().expect("server thread");
    assert_eq!(o, Outcome::Graceful);
    assert_eq!(
        line,
        r#"{"messages": 100, "bytes": 100000, "streams": {"0": 50, "1": 50}, "errors": 0}"#
    );
    let f = &summary["flows"]["live"];
    // Rules broken: 2 bundled INITs, 1 COOKIE ECHO not first, tag 0 on an ABORT and
    // a HEARTBEAT. Out of the blue (8.4, in its order, so an ABORT anywhere is
    // discarded first): the garbage cookie with an ABORT behind it, the tagged ABORT
    // and the tagged HEARTBEAT. One garbage cookie refused.
    assert_eq!(f["rule_violations"], 5, "{f}");
    assert_eq!(f["ootb_packets"], 3, "{f}");
    assert_eq!(f["cookie_rejects"], 1, "{f}");
    assert_eq!(f["associations_created"], 1);
    assert_eq!(summary["live"]["hostile_drops"], 9);
}

#[test]
fn data_far_beyond_the_window_under_the_right_tag() {
    let srv = Session::new(server_options(20)).expect("server");
    let addr = srv.local_addr();
    let mut srv = srv;
    let h = thread::spawn(move || {
        let o = run_to_end(&mut srv);
        (o, srv.result_line(), srv.summary())
    });
    let a = Attacker::new(addr);
    let ia = a.init(0xabcd, 100).expect("INIT ACK");
    let tag = ia.init_tag;
    a.send(
        tag,
        vec![Chunk::CookieEcho {
            cookie: ia.state_cookie,
        }],
        0,
    );
    assert!(matches!(
        a.recv().expect("COOKIE ACK").chunks[0],
        Chunk::CookieAck
    ));
    // 2^30 and 2^24 TSNs ahead: dropped (a 16 GiB and a 280 MB receive map before);
    // the SACKs show nothing taken in.
    for ahead in [1u32 << 30, 1 << 24] {
        a.send(tag, vec![data(99u32.wrapping_add(ahead), 100)], 0);
        let s = a.recv().expect("SACK");
        assert!(
            matches!(&s.chunks[0], Chunk::Sack(k) if k.cum_tsn_ack == 99 && k.gaps.is_empty()),
            "{s:?}"
        );
    }
    a.send(tag, vec![data(100, 100)], 0);
    let s = a.recv().expect("SACK");
    assert!(matches!(&s.chunks[0], Chunk::Sack(k) if k.cum_tsn_ack == 100));
    a.send(
        tag,
        vec![Chunk::Shutdown {
            cum_tsn_ack: ia.initial_tsn.wrapping_sub(1),
        }],
        0,
    );
    assert!(matches!(
        a.recv().expect("SHUTDOWN ACK").chunks[0],
        Chunk::ShutdownAck
    ));
    a.send(tag, vec![Chunk::ShutdownComplete { t_bit: false }], 0);
    let (o, line, summary) = h.join().expect("server thread");
    assert_eq!(o, Outcome::Graceful);
    assert_eq!(
        line,
        r#"{"messages": 1, "bytes": 100, "streams": {"0": 1}, "errors": 0}"#
    );
    assert_eq!(summary["flows"]["live"]["chunks_dropped_beyond_window"], 2);
}

#[test]
fn a_restarted_peer_gets_a_new_association() {
    // RFC 9260 5.2.2 and 5.2.4 (A) over the socket: the peer's first association
    // delivers one message, then the peer restarts (a new INIT from the same address
    // and port); the server answers with a new tag, accepts the COOKIE ECHO as a
    // restart, and the result line counts the new association's messages from its own
    // initial TSN.
    let srv = Session::new(server_options(20)).expect("server");
    let addr = srv.local_addr();
    let mut srv = srv;
    let h = thread::spawn(move || {
        let o = run_to_end(&mut srv);
        (o, srv.result_line(), srv.summary())
    });
    let a = Attacker::new(addr);
    let old = a.init(0x1000, 500).expect("INIT ACK");
    a.send(
        old.init_tag,
        vec![Chunk::CookieEcho {
            cookie: old.state_cookie,
        }],
        0,
    );
    assert!(matches!(
        a.recv().expect("COOKIE ACK").chunks[0],
        Chunk::CookieAck
    ));
    a.send(old.init_tag, vec![data(500, 100)], 0);
    assert!(a.recv().is_some(), "SACK");
    let new = a.init(0x2000, 9000).expect("INIT ACK for the restart");
    assert_ne!(new.init_tag, old.init_tag);
    a.send(
        new.init_tag,
        vec![Chunk::CookieEcho {
            cookie: new.state_cookie,
        }],
        0,
    );
    let ack = a.recv().expect("COOKIE ACK");
    assert_eq!((ack.vtag, &ack.chunks[0]), (0x2000, &Chunk::CookieAck));
    // The old tag is refused now; the new association takes message 0 and 1.
    a.send(old.init_tag, vec![data(501, 100)], 1);
    for k in 0..2u16 {
        let mut d = data(9000 + u32::from(k), 100);
        if let Chunk::Data(c) = &mut d {
            c.ssn = k;
        }
        a.send(new.init_tag, vec![d], u32::from(k));
    }
    let mut cum = 0;
    while let Some(p) = a.recv() {
        if let Some(Chunk::Sack(s)) = p.chunks.first() {
            cum = s.cum_tsn_ack;
        }
    }
    assert_eq!(cum, 9001);
    a.send(
        new.init_tag,
        vec![Chunk::Shutdown {
            cum_tsn_ack: new.initial_tsn.wrapping_sub(1),
        }],
        0,
    );
    assert!(matches!(
        a.recv().expect("SHUTDOWN ACK").chunks[0],
        Chunk::ShutdownAck
    ));
    a.send(
        new.init_tag,
        vec![Chunk::ShutdownComplete { t_bit: false }],
        0,
    );
    let (o, line, summary) = h.join().expect("server thread");
    assert_eq!(o, Outcome::Graceful);
    assert_eq!(
        line,
        r#"{"messages": 2, "bytes": 200, "streams": {"0": 2}, "errors": 0}"#
    );
    let f = &summary["flows"]["live"];
    assert_eq!(
        (f["restarts"].as_u64(), f["bad_vtag_drops"].as_u64()),
        (Some(1), Some(1))
    );
}

#[test]
fn forged_packets_during_a_transfer_change_nothing() {
    // The issue's measurement: during a transfer, one datagram holding an INIT or a
    // garbage COOKIE ECHO followed by an ABORT, under a random tag, ended the
    // association. Now a stream of them, sprayed at the server for the whole
    // transfer, is counted and dropped, and every message arrives.
    let srv = Session::new(server_options(30)).expect("server");
    let addr = srv.local_addr();
    let mut srv = srv;
    let h = thread::spawn(move || {
        let o = run_to_end(&mut srv);
        (o, srv.result_line(), srv.summary())
    });
    let mut cli = Session::new(LiveOptions {
        role: Role::Client,
        bind: SocketAddrV4::new(LO, 0),
        remote: Some(addr),
        sctp_port: 5001,
        local_sctp_port: None,
        assoc: flow(&[
            ("streams", "2"),
            ("bytes", "600000B"),
            ("message_size", "200B"),
        ]),
        timeout: Some(Duration::from_secs(30)),
        linger: Duration::ZERO,
        pcap: None,
        seed: Some(10),
    })
    .expect("client");
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop = done.clone();
    let spray = thread::spawn(move || {
        let a = Attacker::new(addr);
        let mut sent = 0u32;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let tag = 0x1357_9bdf_u32.wrapping_mul(sent + 1);
            a.send(tag, vec![init(tag ^ 1), Chunk::Abort { t_bit: false }], 0);
            a.send(
                tag,
                vec![garbage_cookie(), Chunk::Abort { t_bit: false }],
                0,
            );
            sent += 2;
            thread::sleep(Duration::from_millis(2));
        }
        sent
    });
    assert_eq!(run_to_end(&mut cli), Outcome::Graceful);
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let sent = spray.join().expect("spray");
    let (o, line, summary) = h.join().expect("server thread");
    assert_eq!(o, Outcome::Graceful);
    assert_eq!(
        line,
        r#"{"messages": 3000, "bytes": 600000, "streams": {"0": 1500, "1": 1500}, "errors": 0}"#
    );
    let f = &summary["flows"]["live"];
    let n = |k: &str| f[k].as_u64().unwrap_or(0);
    // Every forged datagram that arrived before the server closed is counted: each
    // INIT bundle breaks 3.1 and 5.1; each garbage cookie is refused while the
    // association exists (before it, its ABORT makes it out of the blue). Refused
    // cookies prove the spray hit the transfer.
    let counted = n("rule_violations") + n("cookie_rejects") + n("ootb_packets");
    assert!(counted <= u64::from(sent), "{sent} sent, {f}");
    assert!(n("rule_violations") > 0 && n("cookie_rejects") > 0, "{f}");
    assert_eq!(f["aborted"], false);
}
