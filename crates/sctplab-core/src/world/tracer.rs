//! The run's collectors, opened once before the run and flushed after it. The first I/O
//! error is kept and reported when the run ends, so the hot path never branches on it.

use super::trace_hold::HeldLines;
use super::{Iface, Node};
use crate::endpoint::EndpointEvent;
use crate::error::Error;
use crate::net::Packet;
use crate::net::wire::{
    IPV4_HEADER_LEN, TransportRepr, emit_ipv4_packet, emit_ipv4_udp_with_payload,
};
use crate::sim::SimTime;
use crate::trace::TraceConfig;
use crate::trace::anim::{AnimTrace, FILE_NAME as ANIM_FILE};
use crate::trace::csv::{AcksCsv, SendsCsv};
use crate::trace::ieee80211::{emit_frame, emit_frame_typed, mac_bytes};
use crate::trace::ns2::Ns2Trace;
use crate::trace::pcap::{LINKTYPE_IEEE802_11, LINKTYPE_RAW, PcapWriter};
use crate::trace::series::Series;
use crate::wireless::arp::ETHERTYPE_ARP;
use crate::wireless::frame::Frame;
use std::cell::Cell;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

type Out = Counted;

/// A buffered trace file that adds what is written to it to the run's total, so the
/// tracer knows after each record how much the run's files hold (`--max-output`). Only
/// recording pays for it: a run that records nothing has no file.
pub(crate) struct Counted {
    out: BufWriter<File>,
    total: Rc<Cell<u64>>,
}

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.total.set(self.total.get() + n as u64);
        Ok(n)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf)?;
        self.total.set(self.total.get() + buf.len() as u64);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The first size at which the output notes speak, then every tenfold.
const FIRST_NOTE_BYTES: u64 = 100_000_000;

pub(crate) struct Tracer {
    /// trace.tr: each line is formatted into this one's buffer, held (`held`) and
    /// written to `ns2_out` at the next sweep (`release_ns2`).
    ns2: Option<Ns2Trace<Vec<u8>>>,
    ns2_out: Option<Out>,
    held: HeldLines,
    pcap: Vec<Option<PcapWriter<Out>>>,
    sends: Option<SendsCsv<Out>>,
    acks: Option<AcksCsv<Out>>,
    /// `--trace anim`: the file, opened with the others; its header is written when the
    /// run starts (`World::anim_begin`, world/anim.rs), which turns it into `anim`.
    pub(super) anim_file: Option<Out>,
    pub(super) anim: Option<AnimTrace<Out>>,
    scratch: Vec<u8>,
    frame_scratch: Vec<u8>,
    error: Option<io::Error>,
    pub series_vars: Vec<String>,
    pub series: Series,
    /// Bytes written to every file so far (`Counted`).
    written: Rc<Cell<u64>>,
    /// `--max-output` in bytes.
    max_output: Option<u64>,
    /// When the files passed `max_output`: nothing is written after that record, and
    /// the run loop stops the run at its next look (`check_output`).
    full_at: Option<SimTime>,
    /// The size at which the next output note is due; none: no notes.
    next_note: Option<u64>,
}

fn create(path: &Path, total: &Rc<Cell<u64>>) -> Result<Out, Error> {
    File::create(path)
        .map(|f| Counted {
            out: BufWriter::with_capacity(1 << 16, f),
            total: Rc::clone(total),
        })
        .map_err(|e| Error::io(path, e))
}

/// A byte count the way people read it: `512 B`, `1.5 kB`, `3.71 GB` (10^3 steps, the
/// scenario units' `KB`/`MB`/`GB`), three significant digits.
pub(crate) fn fmt_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["kB", "MB", "GB", "TB", "PB"];
    if n < 1000 {
        return format!("{n} B");
    }
    let mut v = n as f64;
    let mut unit = "B";
    for u in UNITS {
        if v < 999.5 {
            break;
        }
        v /= 1000.0;
        unit = u;
    }
    let digits = if v >= 99.95 {
        0
    } else if v >= 9.995 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {unit}")
}

impl Tracer {
    pub fn open(cfg: &TraceConfig, nodes: &[Node], ifaces: &[Iface]) -> Result<Tracer, Error> {
        let mut t = Tracer {
            ns2: None,
            ns2_out: None,
            held: HeldLines::default(),
            pcap: Vec::new(),
            sends: None,
            acks: None,
            anim_file: None,
            anim: None,
            scratch: Vec::with_capacity(2048),
            frame_scratch: Vec::with_capacity(2048),
            error: None,
            series_vars: cfg.series.clone(),
            series: match &cfg.series_spill {
                Some(path) if !cfg.series.is_empty() => {
                    Series::spilling(path.clone(), cfg.series_disk_limit)
                }
                _ => Series::default(),
            },
            written: Rc::new(Cell::new(0)),
            max_output: cfg.max_output,
            full_at: None,
            next_note: cfg.output_notes.then_some(FIRST_NOTE_BYTES),
        };
        if !cfg.needs_dir() {
            return Ok(t);
        }
        let dir: PathBuf = cfg
            .out_dir
            .clone()
            .ok_or_else(|| Error::Usage("traces and pcap need an output folder".into()))?;
        fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        if cfg.ns2 {
            t.ns2_out = Some(create(&dir.join("trace.tr"), &t.written)?);
            t.ns2 = Some(Ns2Trace::new(Vec::with_capacity(256)));
        }
        if cfg.sends {
            let p = dir.join("sends.csv");
            t.sends = Some(SendsCsv::new(create(&p, &t.written)?).map_err(|e| Error::io(&p, e))?);
        }
        if cfg.acks {
            let p = dir.join("acks.csv");
            t.acks = Some(AcksCsv::new(create(&p, &t.written)?).map_err(|e| Error::io(&p, e))?);
        }
        if cfg.anim {
            t.anim_file = Some(create(&dir.join(ANIM_FILE), &t.written)?);
        }
        if cfg.pcap {
            let pdir = dir.join("pcap");
            fs::create_dir_all(&pdir).map_err(|e| Error::io(&pdir, e))?;
            for iface in ifaces {
                let node = &nodes[iface.node.idx()];
                let p = pdir.join(format!("{}-{}.pcap", node.name, iface.name));
                // Wireless interfaces capture 802.11 frames, point-to-point ones IP.
                let linktype = match iface.nic {
                    Some(_) => LINKTYPE_IEEE802_11,
                    None => LINKTYPE_RAW,
                };
                let w = PcapWriter::with_linktype(create(&p, &t.written)?, linktype)
                    .map_err(|e| Error::io(&p, e))?;
                t.pcap.push(Some(w));
            }
        }
        Ok(t)
    }

    pub(super) fn keep(&mut self, r: io::Result<()>) {
        if let Err(e) = r {
            self.error.get_or_insert(e);
        }
    }

    /// Whether records may still be written: the files have not passed `--max-output`.
    #[inline]
    pub(super) fn open_for_more(&self) -> bool {
        self.full_at.is_none()
    }

    /// After a record written at `t`: whether the files now pass `--max-output`.
    #[inline]
    pub(super) fn tally(&mut self, t: SimTime) {
        if self.max_output.is_some_and(|cap| self.written.get() > cap) {
            self.full_at = Some(t);
        }
    }

    #[inline]
    pub fn ns2_on(&self) -> bool {
        self.ns2.is_some()
    }

    pub fn ns2_wireless(&mut self, line: &crate::trace::ns2::WirelessLine<'_>) {
        if !self.open_for_more() {
            return;
        }
        if let Some(w) = &mut self.ns2 {
            w.writer_mut().clear();
            let r = w.wireless(line);
            self.held.push(line.t, w.writer_mut());
            self.keep(r);
        }
    }

    /// `ns2_wireless` for a line of a lazily run event (`HeldLines::push_late`).
    pub fn ns2_wireless_late(&mut self, line: &crate::trace::ns2::WirelessLine<'_>) {
        if let Some(w) = &mut self.ns2 {
            w.writer_mut().clear();
            let r = w.wireless(line);
            self.held.push_late(line.t, w.writer_mut().clone());
            self.keep(r);
        }
    }

    pub fn ns2(&mut self, ev: char, t: SimTime, from: u32, to: u32, p: &Packet) {
        if !self.open_for_more() {
            return;
        }
        if let Some(w) = &mut self.ns2 {
            w.writer_mut().clear();
            let r = w.event(ev, t, from, to, p);
            self.held.push(t, w.writer_mut());
            self.keep(r);
        }
    }

    /// Writes the held trace.tr lines before `until` (all with `None`) to the file, in
    /// time order (world/trace_hold.rs).
    pub fn release_ns2(&mut self, until: Option<SimTime>) {
        let Some(out) = self.ns2_out.as_mut() else {
            return;
        };
        let Tracer {
            held,
            error,
            full_at,
            max_output,
            written,
            ..
        } = self;
        held.release(until, |t, line| {
            if full_at.is_some() {
                return;
            }
            if let Err(e) = out.write_all(line) {
                error.get_or_insert(e);
            }
            if max_output.is_some_and(|cap| written.get() > cap) {
                *full_at = Some(t);
            }
        });
    }

    #[inline]
    pub fn pcap_on(&self) -> bool {
        !self.pcap.is_empty()
    }

    /// An 802.11 frame as a wireless interface's capture holds it, encoded into
    /// `frame_scratch` (`encoded_wlan`, `write_wlan`); `p` is the packet a DATA frame
    /// carries.
    pub fn encode_wlan(&mut self, frame: &Frame, p: Option<&Packet>) {
        self.scratch.clear();
        match p {
            // A routing message shows its RFC 3561 encoding (ns-2's on-air size is
            // smaller: no UDP header), with the UDP checksum left out (zero, allowed
            // over IPv4) since it is written after the header.
            Some(
                p @ Packet {
                    routing: Some(msg), ..
                },
            ) => {
                emit_ipv4_packet(&p.ip, &p.transport, msg.encoded_len(), &mut self.scratch);
                let udp = IPV4_HEADER_LEN;
                msg.encode(&mut self.scratch[udp + 8..]);
                self.scratch[udp + 6..udp + 8].fill(0);
            }
            // DSR's header as RFC 4728 encodes it, behind IP protocol 48.
            Some(p @ Packet { sr: Some(f), .. }) => {
                super::wireless::encode_source_routed(p, f, &mut self.scratch);
            }
            Some(Packet { arp: Some(a), .. }) => {
                a.encode(mac_bytes, &mut self.scratch);
                emit_frame_typed(frame, ETHERTYPE_ARP, &self.scratch, &mut self.frame_scratch);
                return;
            }
            Some(p) => emit_ipv4_packet(
                &p.ip,
                &p.transport,
                p.payload_len as usize,
                &mut self.scratch,
            ),
            None => {}
        }
        emit_frame(frame, &self.scratch, &mut self.frame_scratch);
    }

    /// The record `encode_wlan` encoded last.
    pub fn encoded_wlan(&self) -> &[u8] {
        &self.frame_scratch
    }

    /// Writes the record `encode_wlan` encoded last to wireless interface `iface`'s
    /// capture, at `t`.
    pub fn write_wlan(&mut self, iface: usize, t: SimTime) {
        if !self.open_for_more() {
            return;
        }
        if let Some(Some(w)) = self.pcap.get_mut(iface) {
            let r = w.write_packet(t.as_nanos(), &self.frame_scratch);
            self.keep(r);
            self.tally(t);
        }
    }

    /// Writes an encoded 802.11 record (`encoded_wlan`, kept) to wireless interface
    /// `iface`'s capture, at `t`.
    pub fn write_wlan_record(&mut self, iface: usize, t: SimTime, record: &[u8]) {
        if !self.open_for_more() {
            return;
        }
        if let Some(Some(w)) = self.pcap.get_mut(iface) {
            let r = w.write_packet(t.as_nanos(), record);
            self.keep(r);
            self.tally(t);
        }
    }

    pub fn pcap(&mut self, iface: usize, t: SimTime, p: &Packet) {
        if !self.open_for_more() {
            return;
        }
        if let Some(Some(w)) = self.pcap.get_mut(iface) {
            match &p.transport {
                // A QUIC datagram (port 443) carries its real bytes; a pool slot may hold
                // stale bytes from an earlier packet, so only these packets are trusted.
                TransportRepr::Udp(u)
                    if (u.src_port == crate::quic::SERVER_PORT
                        || u.dst_port == crate::quic::SERVER_PORT)
                        && p.datagram.len() == p.payload_len as usize =>
                {
                    emit_ipv4_udp_with_payload(&p.ip, u, &p.datagram, &mut self.scratch)
                }
                _ => emit_ipv4_packet(
                    &p.ip,
                    &p.transport,
                    p.payload_len as usize,
                    &mut self.scratch,
                ),
            }
            let r = w.write_packet(t.as_nanos(), &self.scratch);
            self.keep(r);
            self.tally(t);
        }
    }

    /// `dest` names a `Sent` event's destination interface (`"<node>:<iface>"`).
    pub fn endpoint_event(&mut self, t: SimTime, flow: &str, ev: &EndpointEvent, dest: &str) {
        if !self.open_for_more() {
            return;
        }
        let r = match ev {
            EndpointEvent::Sent { seq, kind, .. } => match &mut self.sends {
                Some(w) => w.row(t, flow, *seq, kind.as_str(), dest),
                None => Ok(()),
            },
            EndpointEvent::AckReceived {
                cum_ack,
                gaps,
                dups,
                rwnd_bytes,
            } => match &mut self.acks {
                Some(w) => w.row(t, flow, *cum_ack, gaps, *dups, *rwnd_bytes),
                None => Ok(()),
            },
        };
        self.keep(r);
        self.tally(t);
    }

    pub fn wants_events(&self) -> bool {
        self.sends.is_some() || self.acks.is_some()
    }

    /// Bytes in the run's pcap and trace files so far (series are bounded apart, by
    /// the disk: `trace::series`).
    pub fn output_bytes(&self) -> u64 {
        self.written.get()
    }

    /// Whether `check_output` has anything to do: files are written and a cap or the
    /// notes are on.
    #[inline]
    pub fn watches_output(&self) -> bool {
        (self.max_output.is_some() || self.next_note.is_some())
            && (self.ns2_out.is_some()
                || self.sends.is_some()
                || self.acks.is_some()
                || self.anim.is_some()
                || self.pcap_on())
    }

    /// The `--max-output` guard and the size notes, asked every few thousand events and
    /// at the end of the run: an error message (one line) once the files have passed the
    /// cap (they stopped growing then: `tally`); a note on stderr as they pass 100 MB,
    /// 1 GB, ... `progress`: a heartbeat line may be on the terminal, to be cleared.
    // Out of line and cold: the run loop calls it every few thousand events, and its
    // formatting has no place in the loop's code.
    #[cold]
    #[inline(never)]
    pub fn check_output(
        &mut self,
        now: SimTime,
        stop_at: Option<SimTime>,
        progress: bool,
    ) -> Result<(), String> {
        let bytes = self.output_bytes();
        // What the files will hold at `duration` if they keep growing as they have
        // until `t`.
        let projected = |t: SimTime| {
            let (t_s, stop_s) = (t.as_secs_f64(), stop_at?.as_secs_f64());
            (t_s > 0.0 && stop_s > t_s).then(|| fmt_bytes((bytes as f64 * stop_s / t_s) as u64))
        };
        let of = stop_at.map_or(String::new(), |t| format!(" of {} s", trim_secs(t)));
        if let (Some(cap), Some(at)) = (self.max_output, self.full_at) {
            let rate = projected(at).map_or(String::new(), |p| {
                format!(" (about {p} by the end at this rate)")
            });
            return Err(format!(
                "--max-output {}: the run's pcap and trace files reached {} at {} s{of} \
                 simulated{rate}; the run stopped there, keeping the files written so far \
                 (no summary.json); raise --max-output or record less (fewer --trace \
                 kinds, no --pcap, a shorter duration)",
                fmt_bytes(cap),
                fmt_bytes(bytes),
                trim_secs(at),
            ));
        }
        if let Some(at) = self.next_note.filter(|&at| bytes >= at) {
            while self.next_note.is_some_and(|n| bytes >= n) {
                self.next_note = self.next_note.and_then(|n| n.checked_mul(10));
            }
            let rate = projected(now).map_or(String::new(), |p| {
                format!("; about {p} by the end at this rate")
            });
            let clear = if progress { "\r\x1b[K" } else { "" };
            eprintln!(
                "{clear}sctplab: note: pcap and trace files passed {} at {} s{of} \
                 simulated{rate} (--max-output SIZE stops a run at SIZE)",
                fmt_bytes(at),
                trim_secs(now),
            );
        }
        Ok(())
    }

    /// Flushes every file; returns the first error met during the run or now.
    pub fn finish(&mut self) -> io::Result<()> {
        let mut results = Vec::new();
        self.release_ns2(None);
        if let Some(w) = &mut self.ns2_out {
            results.push(w.flush());
        }
        if let Some(w) = &mut self.sends {
            results.push(w.flush());
        }
        if let Some(w) = &mut self.acks {
            results.push(w.flush());
        }
        if let Some(w) = &mut self.anim {
            results.push(w.flush());
        }
        for w in self.pcap.iter_mut().flatten() {
            results.push(w.flush());
        }
        if let Err((_, e)) = self.series.finish() {
            results.push(Err(e));
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        results.into_iter().collect()
    }
}

/// Seconds with at most three decimals, trailing zeros dropped (`17`, `0.25`).
fn trim_secs(t: SimTime) -> String {
    let s = format!("{:.3}", t.as_secs_f64());
    let s = s.trim_end_matches('0');
    s.strip_suffix('.').unwrap_or(s).to_string()
}

#[cfg(test)]
mod tests {
    use super::fmt_bytes;

    #[test]
    fn byte_counts_read_in_decimal_units() {
        assert_eq!(fmt_bytes(0), "0 B");
        assert_eq!(fmt_bytes(999), "999 B");
        assert_eq!(fmt_bytes(1000), "1.00 kB");
        assert_eq!(fmt_bytes(1_500), "1.50 kB");
        assert_eq!(fmt_bytes(999_400), "999 kB");
        assert_eq!(fmt_bytes(999_600), "1.00 MB");
        assert_eq!(fmt_bytes(462_000_000), "462 MB");
        assert_eq!(fmt_bytes(3_712_345_678), "3.71 GB");
        assert_eq!(fmt_bytes(u64::MAX), "18447 PB");
    }
}
