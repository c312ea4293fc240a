//! TLS 1.3 for the simulated QUIC connections, with every random draw taken from the run
//! seed, so a run is reproducible byte for byte.
//!
//! rustls's ring provider draws its key-exchange secrets and its hello randoms from the
//! operating system and cannot be seeded. The provider built here keeps ring's cipher
//! suites, signature verification and Ed25519 signing (the AEADs, HKDF and RFC 8032
//! signatures are deterministic functions of their inputs) and replaces the two sources
//! of randomness:
//! - `secure_random` reads the endpoint's seeded stream (`SeededRandom`);
//! - the only key-exchange group is X25519 (RFC 7748) from x25519-dalek, its secret
//!   drawn from the same stream.
//!
//! The stream is not stored in the provider (rustls wants `'static` parts): the adapter
//! installs the endpoint's stream in a thread-local slot around each call into quinn
//! (`with_rng`), so two endpoints of one run, or runs on several threads, never share
//! one. A draw with no stream installed fails (`GetRandomFailed`) instead of falling back
//! to the operating system.
//!
//! The server's certificate is a self-signed Ed25519 certificate made by rcgen from a key
//! drawn from the seed; the client trusts exactly that certificate. Certificate checks
//! run at a fixed time (`FixedTime`) inside its validity. Session tickets and resumption
//! are off. None of these keys are secret: they protect nothing, they make the bytes on
//! the simulated wire those of a real QUIC stack.

use crate::sim::RngStream;
use rustls::crypto::{
    ActiveKeyExchange, CryptoProvider, GetRandomFailed, SecureRandom, SharedSecret,
    SupportedKxGroup,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, UnixTime};
use rustls::{NamedGroup, RootCertStore};
use std::cell::RefCell;
use std::sync::Arc;

/// The name the server's certificate is issued to and the client asks for (SNI).
pub const SERVER_NAME: &str = "server.sctplab.invalid";
/// The application protocol both ends announce (ALPN is mandatory in QUIC, RFC 9001
/// sec. 8.1).
pub const ALPN: &[u8] = b"sctplab-bulk";
/// Seconds since the epoch that certificate checks take as "now": 2025-01-01, inside
/// rcgen's default validity (1975 to 4096).
const FIXED_UNIX_TIME_S: u64 = 1_735_689_600;

thread_local! {
    static RNG: RefCell<Option<RngStream>> = const { RefCell::new(None) };
}

/// Runs `f` with the stream in `rng` (taken out for the call) as the source of the
/// provider's randomness on this thread, and puts it back, advanced by what `f` drew.
pub fn with_rng<T>(rng: &mut Option<RngStream>, f: impl FnOnce() -> T) -> T {
    let prev = RNG.with(|slot| std::mem::replace(&mut *slot.borrow_mut(), rng.take()));
    let out = f();
    *rng = RNG.with(|slot| std::mem::replace(&mut *slot.borrow_mut(), prev));
    out
}

/// Fills `buf` from the installed stream; false if none is installed.
fn fill_from_installed(buf: &mut [u8]) -> bool {
    RNG.with(|slot| match slot.borrow_mut().as_mut() {
        Some(rng) => {
            fill(rng, buf);
            true
        }
        None => false,
    })
}

/// Fills `buf` with bytes of `rng`, eight at a time.
pub fn fill(rng: &mut RngStream, buf: &mut [u8]) {
    for chunk in buf.chunks_mut(8) {
        let v = rng.next_u64().to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
}

#[derive(Debug)]
struct SeededRandom;

impl SecureRandom for SeededRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        if fill_from_installed(buf) {
            Ok(())
        } else {
            Err(GetRandomFailed)
        }
    }
}

static SEEDED_RANDOM: SeededRandom = SeededRandom;

#[derive(Debug)]
struct SeededX25519;

struct X25519Exchange {
    secret: x25519_dalek::StaticSecret,
    public: [u8; 32],
}

impl SupportedKxGroup for SeededX25519 {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, rustls::Error> {
        let mut bytes = [0u8; 32];
        if !fill_from_installed(&mut bytes) {
            return Err(rustls::Error::FailedToGetRandomBytes);
        }
        let secret = x25519_dalek::StaticSecret::from(bytes);
        let public = x25519_dalek::PublicKey::from(&secret).to_bytes();
        Ok(Box::new(X25519Exchange { secret, public }))
    }

    fn name(&self) -> NamedGroup {
        NamedGroup::X25519
    }
}

impl ActiveKeyExchange for X25519Exchange {
    fn complete(self: Box<Self>, peer_pub_key: &[u8]) -> Result<SharedSecret, rustls::Error> {
        let peer: [u8; 32] = peer_pub_key
            .try_into()
            .map_err(|_| rustls::Error::from(rustls::PeerMisbehaved::InvalidKeyShare))?;
        let shared = self
            .secret
            .diffie_hellman(&x25519_dalek::PublicKey::from(peer));
        // An all-zero result means a low-order peer key: RFC 8446 sec. 7.4.2 says abort.
        if !shared.was_contributory() {
            return Err(rustls::PeerMisbehaved::InvalidKeyShare.into());
        }
        Ok(SharedSecret::from(&shared.as_bytes()[..]))
    }

    fn pub_key(&self) -> &[u8] {
        &self.public
    }

    fn group(&self) -> NamedGroup {
        NamedGroup::X25519
    }
}

static SEEDED_X25519: SeededX25519 = SeededX25519;

/// ring's provider with seeded randomness and the seeded X25519 as the only group.
pub fn provider() -> Arc<CryptoProvider> {
    let ring = rustls::crypto::ring::default_provider();
    Arc::new(CryptoProvider {
        kx_groups: vec![&SEEDED_X25519],
        secure_random: &SEEDED_RANDOM,
        ..ring
    })
}

#[derive(Debug)]
struct FixedTime;

impl rustls::time_provider::TimeProvider for FixedTime {
    fn current_time(&self) -> Option<UnixTime> {
        Some(UnixTime::since_unix_epoch(std::time::Duration::from_secs(
            FIXED_UNIX_TIME_S,
        )))
    }
}

/// The server's identity: a self-signed certificate and its Ed25519 key (PKCS #8).
pub struct Identity {
    pub cert: CertificateDer<'static>,
    pub key: PrivatePkcs8KeyDer<'static>,
}

/// The PKCS #8 v1 wrapping of an Ed25519 private key (RFC 8410 sec. 7): this prefix, then
/// the 32-byte seed.
const ED25519_PKCS8_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

/// Makes the server identity from `rng`: the same stream gives the same certificate
/// (rcgen derives the serial number from the public key; Ed25519 signatures are
/// deterministic).
pub fn identity(rng: &mut RngStream) -> Result<Identity, String> {
    let mut seed = [0u8; 32];
    fill(rng, &mut seed);
    let mut der = ED25519_PKCS8_PREFIX.to_vec();
    der.extend_from_slice(&seed);
    let key = PrivatePkcs8KeyDer::from(der);
    let pair = rcgen::KeyPair::from_pkcs8_der_and_sign_algo(&key, &rcgen::PKCS_ED25519)
        .map_err(|e| format!("QUIC server key: {e}"))?;
    let params = rcgen::CertificateParams::new(vec![SERVER_NAME.to_string()])
        .map_err(|e| format!("QUIC server certificate: {e}"))?;
    let cert = params
        .self_signed(&pair)
        .map_err(|e| format!("QUIC server certificate: {e}"))?;
    Ok(Identity {
        cert: cert.der().clone(),
        key,
    })
}

/// The client's TLS configuration: TLS 1.3 only, trusting `cert` alone, no resumption.
pub fn client_config(
    cert: &CertificateDer<'static>,
    key_log: Option<Arc<dyn rustls::KeyLog>>,
) -> Result<rustls::ClientConfig, String> {
    let mut roots = RootCertStore::empty();
    roots
        .add(cert.clone())
        .map_err(|e| format!("QUIC trust anchor: {e}"))?;
    let mut cfg = rustls::ClientConfig::builder_with_details(provider(), Arc::new(FixedTime))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| format!("QUIC client TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    cfg.alpn_protocols = vec![ALPN.to_vec()];
    cfg.resumption = rustls::client::Resumption::disabled();
    if let Some(k) = key_log {
        cfg.key_log = k;
    }
    Ok(cfg)
}

/// The server's TLS configuration: TLS 1.3 only, `id` as its certificate, no tickets.
pub fn server_config(
    id: &Identity,
    key_log: Option<Arc<dyn rustls::KeyLog>>,
) -> Result<rustls::ServerConfig, String> {
    let mut cfg = rustls::ServerConfig::builder_with_details(provider(), Arc::new(FixedTime))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| format!("QUIC server TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(
            vec![id.cert.clone()],
            PrivateKeyDer::Pkcs8(id.key.clone_key()),
        )
        .map_err(|e| format!("QUIC server TLS: {e}"))?;
    cfg.alpn_protocols = vec![ALPN.to_vec()];
    cfg.send_tls13_tickets = 0;
    cfg.session_storage = Arc::new(rustls::server::NoServerSessionStorage {});
    if let Some(k) = key_log {
        cfg.key_log = k;
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_is_a_function_of_the_stream() {
        let a = identity(&mut RngStream::new(7, "id")).expect("identity");
        let b = identity(&mut RngStream::new(7, "id")).expect("identity");
        let c = identity(&mut RngStream::new(8, "id")).expect("identity");
        assert_eq!(a.cert, b.cert);
        assert_ne!(a.cert, c.cert);
    }

    #[test]
    fn random_draws_need_an_installed_stream() {
        let mut buf = [0u8; 4];
        assert!(SEEDED_RANDOM.fill(&mut buf).is_err());
        let mut rng = Some(RngStream::new(1, "r"));
        let mut expected = [0u8; 8];
        fill(&mut RngStream::new(1, "r"), &mut expected);
        with_rng(&mut rng, || SEEDED_RANDOM.fill(&mut buf)).expect("installed");
        assert_eq!(buf, expected[..4]);
        // The stream comes back advanced: the next draw continues it.
        let mut next = [0u8; 4];
        with_rng(&mut rng, || SEEDED_RANDOM.fill(&mut next)).expect("installed");
        let mut again = RngStream::new(1, "r");
        let mut two = [0u8; 16];
        fill(&mut again, &mut two);
        assert_eq!(next, two[8..12]);
    }

    #[test]
    fn x25519_agrees_with_itself() {
        let mut rng = Some(RngStream::new(3, "kx"));
        let (a, b) = with_rng(&mut rng, || (SEEDED_X25519.start(), SEEDED_X25519.start()));
        let (a, b) = (a.expect("a"), b.expect("b"));
        let (pa, pb) = (a.pub_key().to_vec(), b.pub_key().to_vec());
        let sa = a.complete(&pb).expect("a completes");
        let sb = b.complete(&pa).expect("b completes");
        assert_eq!(sa.secret_bytes(), sb.secret_bytes());
        // RFC 7748 sec. 6.1: a low-order point (here 0) is refused.
        let c = with_rng(&mut rng, || SEEDED_X25519.start()).expect("c");
        assert!(c.complete(&[0u8; 32]).is_err());
    }
}
