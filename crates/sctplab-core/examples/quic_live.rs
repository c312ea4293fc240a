//! quinn-proto on real UDP sockets and the real clock (`sctplab_core::quic::live`), for
//! the check against a simulated run through `sctplab live relay`
//! (docs/models/quic.md "Checks"):
//!
//! ```text
//! cargo run --release -p sctplab-core --example quic_live -- server 4433 &
//! sctplab live relay --listen-port 4434 --server-port 4433 --delay 0.1 --loss 0.02 --timeout 30 &
//! cargo run --release -p sctplab-core --example quic_live -- client 127.0.0.1:4434 100000 1
//! ```
//!
//! `server PORT [BYTES SEED]`, `client RELAY_ADDR BYTES SEED`: both ends must be given
//! the same seed (it makes the server's certificate, which the client trusts). Prints
//! one JSON line with what the end measured.

use sctplab_core::quic::live::{LiveFlow, connect, serve};
use sctplab_core::quic::setup::Controller;
use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

fn arg<T: std::str::FromStr>(
    args: &[String],
    i: usize,
    what: &str,
    default: Option<T>,
) -> Result<T, String> {
    match args.get(i) {
        Some(v) => v.parse().map_err(|_| format!("{what}: not valid: {v:?}")),
        None => default.ok_or(format!("missing {what}")),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let run = || -> Result<String, String> {
        let flow = |bytes, seed| LiveFlow {
            seed,
            bytes,
            streams: 1,
            controller: Controller::Cubic,
            timeout: Duration::from_secs(60),
            transit: None,
        };
        match args.first().map(String::as_str) {
            Some("server") => {
                let port: u16 = arg(&args, 1, "PORT", None)?;
                let f = flow(
                    arg(&args, 2, "BYTES", Some(100_000))?,
                    arg(&args, 3, "SEED", Some(1))?,
                );
                let sock =
                    UdpSocket::bind(("127.0.0.1", port)).map_err(|e| format!("bind: {e}"))?;
                let o = serve(&f, sock)?;
                Ok(format!("{{\"delivered_bytes\": {}}}", o.delivered_bytes))
            }
            Some("client") => {
                let relay: SocketAddr = arg(&args, 1, "RELAY_ADDR", None)?;
                let f = flow(arg(&args, 2, "BYTES", None)?, arg(&args, 3, "SEED", None)?);
                let sock = UdpSocket::bind("127.0.0.1:0").map_err(|e| format!("bind: {e}"))?;
                let o = connect(&f, sock, relay)?;
                let s = |d: Option<Duration>| {
                    d.map_or("null".into(), |d| format!("{}", d.as_secs_f64()))
                };
                Ok(format!(
                    "{{\"connect_time_s\": {}, \"completion_time_s\": {}, \"lost_packets\": {}}}",
                    s(o.connect_time),
                    s(o.completion_time),
                    o.lost_packets
                ))
            }
            _ => Err(
                "usage: quic_live server PORT [BYTES SEED] | client RELAY_ADDR BYTES SEED".into(),
            ),
        }
    };
    match run() {
        Ok(line) => println!("{line}"),
        Err(e) => {
            eprintln!("quic_live: {e}");
            std::process::exit(2);
        }
    }
}
