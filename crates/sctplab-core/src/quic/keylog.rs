//! `keylog.txt`: the TLS secrets of every QUIC connection of a run in the NSS key log
//! format (`LABEL <client random> <secret>`, hex), so Wireshark and tshark decrypt the
//! run's pcap (`tshark -o tls.keylog_file:keylog.txt`). Written as the secrets appear;
//! they are functions of the seed, so the file is the same for the same run.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Mutex;

#[derive(Debug)]
pub struct KeyLogFile {
    out: Mutex<BufWriter<File>>,
}

impl KeyLogFile {
    pub fn create(path: &Path) -> std::io::Result<Self> {
        Ok(KeyLogFile {
            out: Mutex::new(BufWriter::new(File::create(path)?)),
        })
    }
}

fn hex(out: &mut String, bytes: &[u8]) {
    use std::fmt::Write as _;
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
}

impl rustls::KeyLog for KeyLogFile {
    fn log(&self, label: &str, client_random: &[u8], secret: &[u8]) {
        let mut line =
            String::with_capacity(label.len() + 2 * (client_random.len() + secret.len()) + 3);
        line.push_str(label);
        line.push(' ');
        hex(&mut line, client_random);
        line.push(' ');
        hex(&mut line, secret);
        line.push('\n');
        if let Ok(mut w) = self.out.lock() {
            // rustls's `log` cannot fail: a write error costs the key log, not the run.
            let _ = w.write_all(line.as_bytes()).and_then(|()| w.flush());
        }
    }

    fn will_log(&self, _label: &str) -> bool {
        true
    }
}
