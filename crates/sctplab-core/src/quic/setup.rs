//! quinn-proto's configuration for one flow, with every seed it takes drawn from the run
//! seed: the endpoint's RNG (packet-number skips, key-update intervals, the GREASE
//! transport parameter and its order, the spin bit), the connection-ID generator, the
//! client's first destination connection ID, the stateless-reset key and the token key.
//! quinn-proto's defaults draw all of these from the operating system.

use super::crypto;
use crate::sim::RngStream;
use quinn_proto::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use quinn_proto::{
    ClientConfig, ConnectionId, ConnectionIdGenerator, EndpointConfig, ServerConfig,
    TransportConfig, VarInt,
};
use std::sync::{Arc, Mutex};

/// Which of quinn-proto's congestion controllers a flow runs (`congestion_control`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Controller {
    /// quinn-proto's NewReno (`"reno"`).
    NewReno,
    /// quinn-proto's CUBIC (`"cubic"`, the default).
    Cubic,
    /// quinn-proto's BBR (`"bbr"`; docs/models/quic.md "Determinism").
    Bbr,
}

impl Controller {
    pub fn contract_name(self) -> &'static str {
        match self {
            Controller::NewReno => "reno",
            Controller::Cubic => "cubic",
            Controller::Bbr => "bbr",
        }
    }
}

/// Connection IDs of `LEN` bytes from a seeded stream. RFC 9000 sec. 5.1 wants them
/// unpredictable to observers; here they only need to be distinct and reproducible.
struct SeededCids {
    rng: RngStream,
}

/// quinn-proto's default connection-ID length.
const CID_LEN: usize = 8;

impl ConnectionIdGenerator for SeededCids {
    fn generate_cid(&mut self) -> ConnectionId {
        let mut b = [0u8; CID_LEN];
        crypto::fill(&mut self.rng, &mut b);
        ConnectionId::new(&b)
    }
    fn cid_len(&self) -> usize {
        CID_LEN
    }
    fn cid_lifetime(&self) -> Option<std::time::Duration> {
        None
    }
}

/// What a flow end needs from the seed: `label` names the end (`flow:<name>:quic:client`).
pub fn endpoint_config(seed: u64, label: &str) -> EndpointConfig {
    let mut rng = RngStream::new(seed, &format!("{label}:endpoint"));
    let mut reset = [0u8; 64];
    crypto::fill(&mut rng, &mut reset);
    let mut cfg = EndpointConfig::new(Arc::new(ring::hmac::Key::new(
        ring::hmac::HMAC_SHA256,
        &reset,
    )));
    let mut rng_seed = [0u8; 32];
    crypto::fill(&mut rng, &mut rng_seed);
    cfg.rng_seed(Some(rng_seed));
    let cid_rng = Mutex::new(Some(RngStream::new(seed, &format!("{label}:cids"))));
    cfg.cid_generator(move || {
        // The factory is called once per endpoint; a second call gets a fresh stream of
        // its own, still from the seed.
        let rng = cid_rng
            .lock()
            .ok()
            .and_then(|mut g| g.take())
            .unwrap_or_else(|| RngStream::new(seed, "quic:cids:again"));
        Box::new(SeededCids { rng })
    });
    cfg
}

/// The transport parameters both ends use.
pub fn transport(cc: Controller, streams: u32, max_udp_payload: Option<u16>) -> TransportConfig {
    let mut t = TransportConfig::default();
    t.max_concurrent_uni_streams(VarInt::from_u32(streams));
    match cc {
        Controller::NewReno => t.congestion_controller_factory(Arc::new(
            quinn_proto::congestion::NewRenoConfig::default(),
        )),
        Controller::Cubic => t.congestion_controller_factory(Arc::new(
            quinn_proto::congestion::CubicConfig::default(),
        )),
        // quinn's BBR seeds a PCG generator from the operating system; its one use
        // picks the starting phase of the ProbeBW gain cycle, which only moves BBR's
        // pacing_rate, a figure quinn-proto 0.11.19 reads for qlog alone (its pacer
        // works from the window and the RTT). The bytes sent are a function of the
        // seed all the same (docs/models/quic.md "Determinism";
        // quic::bbr_tests checks it).
        Controller::Bbr => {
            t.congestion_controller_factory(Arc::new(quinn_proto::congestion::BbrConfig::default()))
        }
    };
    if let Some(p) = max_udp_payload {
        // A fixed datagram size: start there and do not probe for more.
        t.initial_mtu(p);
        t.min_mtu(p.min(1200));
        t.mtu_discovery_config(None);
    }
    t
}

/// `receive_buffer`: the credit the receiver gives, as SCTP's a_rwnd does. RFC 9000
/// sec. 4.1: MAX_DATA bounds the bytes of all streams together and MAX_STREAM_DATA each
/// stream's; both are `bytes` so that one stream may use the whole buffer, as one SCTP
/// stream may use the whole a_rwnd. quinn counts a stream's highest offset received
/// (gaps included) against the window and raises it as the application reads, sending
/// the new limit once it has grown by an eighth of the window.
pub fn receive_buffer(t: &mut TransportConfig, bytes: u64) -> Result<(), String> {
    let v = VarInt::from_u64(bytes)
        .map_err(|_| format!("receive_buffer {bytes} B is more than QUIC can advertise"))?;
    t.receive_window(v);
    t.stream_receive_window(v);
    Ok(())
}

/// The client's configuration: TLS trusting `cert`, a seeded first destination CID.
pub fn client_config(
    seed: u64,
    label: &str,
    cert: &rustls::pki_types::CertificateDer<'static>,
    transport: Arc<TransportConfig>,
    key_log: Option<Arc<dyn rustls::KeyLog>>,
) -> Result<ClientConfig, String> {
    let tls = crypto::client_config(cert, key_log)?;
    let quic = QuicClientConfig::try_from(tls).map_err(|e| format!("QUIC client TLS: {e}"))?;
    let mut cfg = ClientConfig::new(Arc::new(quic));
    cfg.transport_config(transport);
    // RFC 9000 sec. 7.2: at least 8 unpredictable bytes; quinn-proto uses 20.
    let mut dcid = [0u8; 20];
    crypto::fill(
        &mut RngStream::new(seed, &format!("{label}:initial_dcid")),
        &mut dcid,
    );
    cfg.initial_dst_cid_provider(Arc::new(move || ConnectionId::new(&dcid)));
    Ok(cfg)
}

/// The server's configuration: TLS with `id`, a seeded token key, no NEW_TOKEN frames
/// (quinn-proto sends none without its `bloom` feature, which this build leaves out).
pub fn server_config(
    seed: u64,
    label: &str,
    id: &crypto::Identity,
    transport: Arc<TransportConfig>,
) -> Result<ServerConfig, String> {
    let tls = crypto::server_config(id, None)?;
    let quic = QuicServerConfig::try_from(tls).map_err(|e| format!("QUIC server TLS: {e}"))?;
    let mut master = [0u8; 64];
    crypto::fill(
        &mut RngStream::new(seed, &format!("{label}:token_key")),
        &mut master,
    );
    let prk = ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, &[]).extract(&master);
    let mut cfg = ServerConfig::new(Arc::new(quic), Arc::new(prk));
    cfg.transport_config(transport);
    cfg.time_source(Arc::new(FixedSystemTime));
    Ok(cfg)
}

/// Retry and address-validation tokens carry a wall-clock time; they get a fixed one.
struct FixedSystemTime;

impl quinn_proto::TimeSource for FixedSystemTime {
    fn now(&self) -> std::time::SystemTime {
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_735_689_600)
    }
}
