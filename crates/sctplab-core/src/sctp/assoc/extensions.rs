//! Which extensions an association uses: the Supported Extensions parameter (RFC 5061
//! 4.2.7) of its INIT or INIT ACK with RE-CONFIG (RFC 6525), ASCONF (RFC 5061), I-DATA
//! (RFC 8260) and AUTH (RFC 4895), AUTH's RANDOM, CHUNKS and HMAC-ALGO, and the
//! negotiation once both ends' parameters are known (the client on the INIT ACK, the
//! server on the COOKIE-ECHO: it keeps the INIT's parameters and its own RANDOM in the
//! cookie, staying stateless until then). Each extension then takes over in its own
//! file (`reconfig.rs`, `asconf.rs`, `idata.rs`). Off (no `ext`) for a flow that uses
//! none, which then sends exactly the bytes it did before.

use super::*;
use crate::net::wire::{InitAckChunk, InitExtensions};
use crate::sctp::auth::AuthState;
use crate::sctp::cookie::CookieBody;
use crate::sctp::reconfig::{Reconfig, Request};

/// RE-CONFIG's chunk type, listed in Supported Extensions (RFC 6525 sec. 5.1).
const RE_CONFIG: u8 = 0x82;

/// An association's extension state: what it sent, what was negotiated, and each
/// extension's own state.
#[derive(Debug, Default)]
pub(crate) struct Ext {
    /// Client: the extension parameters its INIT carried, until the INIT ACK.
    pub(super) sent: InitExtensions,
    /// RE-CONFIG, once negotiated (`reconfig.rs`).
    pub(super) reconf: Option<Reconfig>,
    pub(super) auth: Option<AuthState>,
    /// RE-CONFIG requests scripted before the association was up.
    pub(super) pending: Vec<Request>,
    /// Streams this end may send on (for a peer's Incoming SSN Reset Request).
    pub(super) out_streams: u16,
    /// This end's initial TSN (the server has no sending half to ask).
    pub(super) local_initial_tsn: u32,
    /// ASCONF (RFC 5061, `assoc/asconf.rs`).
    pub(super) asconf: super::asconf::AsconfExt,
    /// I-DATA negotiated: both ends listed it (RFC 8260 sec. 2.2.1; `assoc/idata.rs`).
    pub(super) idata: bool,
}

impl Association {
    /// Whether this end announces any extension at all: RE-CONFIG, AUTH, I-DATA or
    /// ASCONF.
    pub(super) fn ext_wanted(&self) -> bool {
        self.cfg.knobs.reconfig
            || self.cfg.knobs.auth.is_some()
            || self.cfg.knobs.interleaving
            || self.ext.as_ref().is_some_and(|e| e.asconf.wanted)
    }

    /// Supported Extensions, in the order this end lists them: RE-CONFIG, ASCONF and
    /// ASCONF-ACK, I-DATA, AUTH.
    fn supported_extensions(&self, ext: &mut InitExtensions) {
        if self.cfg.knobs.reconfig {
            ext.supported = vec![RE_CONFIG];
        }
        self.asconf_supported(ext);
        self.idata_supported(&mut ext.supported);
        self.auth_supported(&mut ext.supported);
    }

    /// The extension parameters of this end's INIT or INIT ACK: Supported Extensions,
    /// and AUTH's RANDOM (32 bytes of the endpoint's random stream, RFC 4895 3.1),
    /// CHUNKS and HMAC-ALGO.
    fn local_ext(&mut self) -> InitExtensions {
        let mut ext = InitExtensions::default();
        self.supported_extensions(&mut ext);
        if let Some(cfg) = self.cfg.knobs.auth.clone() {
            let mut random = [0u8; 32];
            for c in random.chunks_mut(8) {
                c.copy_from_slice(&self.rng.next_u64().to_le_bytes());
            }
            let a = AuthState::local_params(&cfg, random);
            ext.random = a.random;
            ext.chunks = a.chunks;
            ext.hmac_algo = a.hmac_algo;
        }
        ext
    }

    /// `local_ext` without drawing a RANDOM (the server's came back in its cookie).
    fn local_ext_fixed(&self) -> InitExtensions {
        let mut ext = InitExtensions::default();
        self.supported_extensions(&mut ext);
        if let Some(cfg) = &self.cfg.knobs.auth {
            ext.chunks = Some(cfg.chunks.clone());
            ext.hmac_algo = Some(cfg.hmacs.clone());
        }
        ext
    }

    /// AUTH in Supported Extensions (RFC 5061 4.2.7) beside RANDOM, CHUNKS and
    /// HMAC-ALGO: usrsctp treats a peer that lists chunks to authenticate but not the
    /// AUTH chunk type there as not supporting AUTH and drops its COOKIE ECHO
    /// (sctp_load_addresses_from_init), as the live interop test found.
    fn auth_supported(&self, list: &mut Vec<u8>) {
        if self.cfg.knobs.auth.is_some() {
            list.push(crate::net::wire::sctp_chunk::chunk_type::AUTH);
        }
    }

    /// Client: the INIT's extension parameters, remembered for the key (RFC 4895 6.1).
    pub(super) fn init_ext(&mut self) -> InitExtensions {
        if !self.ext_wanted() {
            return InitExtensions::default();
        }
        // A resent INIT repeats its RANDOM: the INIT ACK may answer any copy.
        if let Some(e) = self
            .ext
            .as_ref()
            .filter(|e| e.sent != InitExtensions::default())
        {
            return e.sent.clone();
        }
        let ext = self.local_ext();
        self.ext.get_or_insert_with(Default::default).sent = ext.clone();
        ext
    }

    /// Server: the INIT ACK's extension parameters and the cookie blob that keeps the
    /// INIT's and this end's RANDOM for the COOKIE-ECHO: [RANDOM length, RANDOM, the
    /// INIT's extension parameters as TLVs].
    pub(super) fn answer_ext(&mut self, init: &InitChunk) -> (InitExtensions, Option<Vec<u8>>) {
        if !self.ext_wanted() {
            return (InitExtensions::default(), None);
        }
        let ext = self.local_ext();
        let random = ext.random.clone().unwrap_or_default();
        let mut blob = vec![random.len() as u8];
        blob.extend_from_slice(&random);
        blob.extend(InitExtensions::of(&init.ext).to_tlvs());
        (ext, Some(blob))
    }

    /// Server, on a valid COOKIE-ECHO: the negotiation from the cookie's blob.
    pub(super) fn ext_from_cookie(&mut self, body: &CookieBody) {
        let Some(blob) = body.ext.as_deref() else {
            return;
        };
        let n = usize::from(blob.first().copied().unwrap_or(0));
        let (Some(random), Some(tlvs)) = (blob.get(1..1 + n), blob.get(1 + n..)) else {
            return;
        };
        let mut local = self.local_ext_fixed();
        if n > 0 {
            local.random = Some(random.to_vec());
        }
        let Ok(peer) = InitExtensions::from_tlvs(tlvs) else {
            return;
        };
        self.ext_established(
            local,
            &peer,
            body.local_out_streams,
            body.local_initial_tsn,
            body.peer_initial_tsn,
        );
    }

    /// Client, on the INIT ACK.
    pub(super) fn ext_on_init_ack(&mut self, ack: &InitAckChunk) {
        let Some(sent) = self.ext.as_ref().map(|e| e.sent.clone()) else {
            return;
        };
        let out_streams = self.cfg.streams.min(ack.inbound_streams).max(1);
        self.ext_established(
            sent,
            InitExtensions::of(&ack.ext),
            out_streams,
            self.pending_initial_tsn,
            ack.initial_tsn,
        );
    }

    /// Both ends' parameters known: RE-CONFIG when both list it, AUTH when both sent
    /// RANDOM and HMAC-ALGO (RFC 4895 6.1) with an HMAC in common, I-DATA when both
    /// list it (`idata.rs`), ASCONF when both list it and AUTH is on (`asconf.rs`).
    fn ext_established(
        &mut self,
        local: InitExtensions,
        peer: &InitExtensions,
        out_streams: u16,
        local_tsn: u32,
        peer_tsn: u32,
    ) {
        let reconf = (self.cfg.knobs.reconfig && peer.supported.contains(&RE_CONFIG))
            .then(|| Reconfig::new(local_tsn, peer_tsn));
        let auth = if self.cfg.knobs.auth.is_some() {
            AuthState::new(local, peer)
        } else {
            None
        };
        let idata = self.idata_negotiated(peer);
        let e = self.ext.get_or_insert_with(Default::default);
        e.reconf = reconf;
        e.auth = auth;
        e.idata = idata;
        e.out_streams = out_streams;
        e.local_initial_tsn = local_tsn;
        let pending = std::mem::take(&mut e.pending);
        for r in pending {
            self.queue_reconfig(r);
        }
        self.asconf_established(peer, local_tsn, peer_tsn);
    }
}
