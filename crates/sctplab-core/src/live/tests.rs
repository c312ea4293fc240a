//! Sessions over loopback UDP: our client to our server, and crafted packets against
//! a server (the defences of RFC 9260 5.1.3 and 8.5 over a real socket).

use super::*;
use crate::sctp::Role;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::thread;
use std::time::{Duration, Instant};

const LO: Ipv4Addr = Ipv4Addr::LOCALHOST;

fn flow(sets: &[(&str, &str)]) -> crate::scenario::schema::SctpCfg {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    flow_config(None, &sets).expect("flow")
}

fn server(timeout_s: u64) -> Session {
    Session::new(LiveOptions {
        role: Role::Server,
        bind: SocketAddrV4::new(LO, 0),
        remote: None,
        sctp_port: 5001,
        local_sctp_port: None,
        flow: flow(&[]),
        timeout: Some(Duration::from_secs(timeout_s)),
        linger: Duration::ZERO,
        pcap: None,
        seed: Some(7),
    })
    .expect("server socket")
}

fn run_to_end(s: &mut Session) -> Outcome {
    loop {
        let o = s.run_for(Duration::from_millis(100)).expect("io");
        if o != Outcome::Running {
            return o;
        }
    }
}

#[test]
fn client_to_server_1000_messages_over_4_streams() {
    let mut srv = server(30);
    let srv_addr = srv.local_addr();
    let h = thread::spawn(move || {
        let o = run_to_end(&mut srv);
        (o, srv.result_line(), srv.summary())
    });
    // 1000 messages of 700 bytes: 700 000 bytes in all.
    let mut cli = Session::new(LiveOptions {
        role: Role::Client,
        bind: SocketAddrV4::new(LO, 0),
        remote: Some(srv_addr),
        sctp_port: 5001,
        local_sctp_port: None,
        flow: flow(&[
            ("streams", "4"),
            ("bytes", "700000B"),
            ("message_size", "700B"),
        ]),
        timeout: Some(Duration::from_secs(30)),
        linger: Duration::ZERO,
        pcap: None,
        seed: Some(8),
    })
    .expect("client socket");
    let t0 = Instant::now();
    assert_eq!(run_to_end(&mut cli), Outcome::Graceful);
    let (o, line, summary) = h.join().expect("server thread");
    assert_eq!(o, Outcome::Graceful);
    // Round-robin over 4 streams: 250 messages each, in order, intact.
    let v: serde_json::Value = serde_json::from_str(&line).expect("json");
    assert_eq!(v["messages"], 1000);
    assert_eq!(v["bytes"], 700_000);
    assert_eq!(v["errors"], 0);
    for s in ["0", "1", "2", "3"] {
        assert_eq!(v["streams"][s], 250, "{line}");
    }
    assert_eq!(summary["flows"]["live"]["delivered_bytes"], 700_000);
    assert_eq!(summary["live"]["malformed"], 0);
    let c: serde_json::Value = serde_json::from_str(&cli.result_line()).expect("json");
    assert_eq!(c["messages"], 1000);
    assert!(t0.elapsed() < Duration::from_secs(20));
}
