//! The run's collectors, opened once before the run and flushed after it. The first I/O
//! error is kept and reported when the run ends, so the hot path never branches on it.

use super::{Iface, Node};
use crate::endpoint::EndpointEvent;
use crate::error::Error;
use crate::net::Packet;
use crate::net::wire::{IPV4_HEADER_LEN, emit_ipv4_packet};
use crate::sim::SimTime;
use crate::trace::TraceConfig;
use crate::trace::csv::{AcksCsv, SendsCsv};
use crate::trace::ieee80211::{emit_frame, emit_frame_typed, mac_bytes};
use crate::trace::ns2::Ns2Trace;
use crate::trace::pcap::{LINKTYPE_IEEE802_11, LINKTYPE_RAW, PcapWriter};
use crate::trace::series::Series;
use crate::wireless::arp::ETHERTYPE_ARP;
use crate::wireless::frame::Frame;
use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

type Out = BufWriter<File>;

pub(crate) struct Tracer {
    ns2: Option<Ns2Trace<Out>>,
    pcap: Vec<Option<PcapWriter<Out>>>,
    sends: Option<SendsCsv<Out>>,
    acks: Option<AcksCsv<Out>>,
    scratch: Vec<u8>,
    frame_scratch: Vec<u8>,
    error: Option<io::Error>,
    pub series_vars: Vec<String>,
    pub series: Series,
}

fn create(path: &Path) -> Result<Out, Error> {
    File::create(path)
        .map(|f| BufWriter::with_capacity(1 << 16, f))
        .map_err(|e| Error::io(path, e))
}

impl Tracer {
    pub fn open(cfg: &TraceConfig, nodes: &[Node], ifaces: &[Iface]) -> Result<Tracer, Error> {
        let mut t = Tracer {
            ns2: None,
            pcap: Vec::new(),
            sends: None,
            acks: None,
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
            t.ns2 = Some(Ns2Trace::new(create(&dir.join("trace.tr"))?));
        }
        if cfg.sends {
            let p = dir.join("sends.csv");
            t.sends = Some(SendsCsv::new(create(&p)?).map_err(|e| Error::io(&p, e))?);
        }
        if cfg.acks {
            let p = dir.join("acks.csv");
            t.acks = Some(AcksCsv::new(create(&p)?).map_err(|e| Error::io(&p, e))?);
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
                let w = PcapWriter::with_linktype(create(&p)?, linktype)
                    .map_err(|e| Error::io(&p, e))?;
                t.pcap.push(Some(w));
            }
        }
        Ok(t)
    }

    fn keep(&mut self, r: io::Result<()>) {
        if let Err(e) = r {
            self.error.get_or_insert(e);
        }
    }

    #[inline]
    pub fn ns2_on(&self) -> bool {
        self.ns2.is_some()
    }

    pub fn ns2_wireless(&mut self, line: &crate::trace::ns2::WirelessLine<'_>) {
        if let Some(w) = &mut self.ns2 {
            let r = w.wireless(line);
            self.keep(r);
        }
    }

    pub fn ns2(&mut self, ev: char, t: SimTime, from: u32, to: u32, p: &Packet) {
        if let Some(w) = &mut self.ns2 {
            let r = w.event(ev, t, from, to, p);
            self.keep(r);
        }
    }

    #[inline]
    pub fn pcap_on(&self) -> bool {
        !self.pcap.is_empty()
    }

    /// An 802.11 frame on a wireless interface's capture; `p` is the packet a DATA frame
    /// carries.
    pub fn wlan_frame(&mut self, iface: usize, t: SimTime, frame: &Frame, p: Option<&Packet>) {
        if let Some(Some(w)) = self.pcap.get_mut(iface) {
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
                Some(Packet { arp: Some(a), .. }) => {
                    a.encode(mac_bytes, &mut self.scratch);
                    emit_frame_typed(frame, ETHERTYPE_ARP, &self.scratch, &mut self.frame_scratch);
                    let r = w.write_packet(t.as_nanos(), &self.frame_scratch);
                    self.keep(r);
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
            let r = w.write_packet(t.as_nanos(), &self.frame_scratch);
            self.keep(r);
        }
    }

    pub fn pcap(&mut self, iface: usize, t: SimTime, p: &Packet) {
        if let Some(Some(w)) = self.pcap.get_mut(iface) {
            emit_ipv4_packet(
                &p.ip,
                &p.transport,
                p.payload_len as usize,
                &mut self.scratch,
            );
            let r = w.write_packet(t.as_nanos(), &self.scratch);
            if let Err(e) = r {
                self.error.get_or_insert(e);
            }
        }
    }

    /// `dest` names a `Sent` event's destination interface (`"<node>:<iface>"`).
    pub fn endpoint_event(&mut self, t: SimTime, flow: &str, ev: &EndpointEvent, dest: &str) {
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
    }

    pub fn wants_events(&self) -> bool {
        self.sends.is_some() || self.acks.is_some()
    }

    /// Flushes every file; returns the first error met during the run or now.
    pub fn finish(&mut self) -> io::Result<()> {
        let mut results = Vec::new();
        if let Some(w) = &mut self.ns2 {
            results.push(w.flush());
        }
        if let Some(w) = &mut self.sends {
            results.push(w.flush());
        }
        if let Some(w) = &mut self.acks {
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
