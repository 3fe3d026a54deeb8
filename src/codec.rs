//! Seal and open: the v1 codec with purposes, binding, expiry and rotation.
//!
//! Opening checks, in the order of
//! docs/format.md: shape and size (before any hashing), MAC
//! against every key in constant time, body (UTF-8, JSON object, `p`,
//! integer `exp`), expiry, binding, purpose and tool. Each failure is a
//! [`SealedStateError`] whose message is the one stable constant.
//!
//! Every buffer that grows with the input is reserved with `try_reserve`, so
//! a payload or token too large for the memory at hand is an error value,
//! never an allocation failure (in wasm, a trap that kills the request).

use hmac::Mac;

use crate::clock::{self, Clock};
use crate::envelope;
use crate::error::{Reason, SealedStateError};
use crate::jcs::{self, JcsError};
use crate::json;
use crate::keys::{HmacSha256, Key, KeyError, Keys};
use crate::payload::{self, Payload};
use crate::purpose::Purpose;
use crate::secret;
use crate::wire;

/// Default token lifetime, seconds.
pub const DEFAULT_TTL_SECONDS: i64 = 600;
/// Default size limit, bytes. A 64 KiB payload makes an ~88 KB token.
pub const DEFAULT_MAX_TOKEN_BYTES: usize = 256 * 1024;
/// Domain separation for bind tags, as the SDK writes it.
pub const BIND_LABEL: &[u8] = b"mcp.requestState.bind:";
/// Bytes of the bind tag (truncated HMAC).
pub const BIND_TAG_BYTES: usize = 16;
/// Characters of the base64url bind tag (and of the request digest).
const BIND_TAG_CHARS: usize = wire::encoded_len(BIND_TAG_BYTES);
/// Domain separation for the request digest `q` (docs/format.md, "q: the request digest").
pub const REQUEST_LABEL: &[u8] = b"mcp-sealed-state/v1/request:";

/// Construction options. Keys are copied into keyed MAC states.
#[derive(Clone, Debug)]
pub struct CodecOptions<K> {
    /// First seals, all open. `None`: the ephemeral key (dev) or an error
    /// (production); an empty list is an error, never the ephemeral key.
    pub keys: Option<Vec<K>>,
    pub ttl_seconds: i64,
    pub leeway_seconds: i64,
    pub max_token_bytes: usize,
    pub production: bool,
    /// Where seal and open read the time (the system clock by default).
    pub now: Clock,
}

impl<K> Default for CodecOptions<K> {
    fn default() -> Self {
        CodecOptions {
            keys: None,
            ttl_seconds: DEFAULT_TTL_SECONDS,
            leeway_seconds: 0,
            max_token_bytes: DEFAULT_MAX_TOKEN_BYTES,
            production: false,
            now: Clock::system(),
        }
    }
}

impl<K: AsRef<[u8]>> CodecOptions<K> {
    /// Options with these keys and the defaults.
    pub fn with_keys(keys: Vec<K>) -> Self {
        CodecOptions {
            keys: Some(keys),
            ..Default::default()
        }
    }
}

/// Why a codec could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigError {
    Key(KeyError),
    /// `leeway_seconds` is negative.
    NegativeLeeway,
}

impl From<KeyError> for ConfigError {
    fn from(e: KeyError) -> Self {
        ConfigError::Key(e)
    }
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ConfigError::Key(e) => e.fmt(f),
            ConfigError::NegativeLeeway => f.write_str("leewaySeconds must not be negative"),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Why a payload could not be sealed. The codec is unchanged by any of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SealError {
    /// The payload is not one JSON text.
    PayloadNotJson,
    /// The sealed token would be longer than `max_token_bytes`, so this codec
    /// could not open it again.
    TokenTooLarge { bytes: usize, max_bytes: usize },
    /// The clock is not finite, or outside [`clock::MAX_CLOCK_MS`].
    InvalidClock,
    /// The allocator refused room for the token.
    OutOfMemory,
}

impl core::fmt::Display for SealError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SealError::PayloadNotJson => f.write_str("payload is not valid JSON text"),
            SealError::TokenTooLarge { bytes, max_bytes } => write!(
                f,
                "the sealed token is {bytes} bytes, over max_token_bytes ({max_bytes})"
            ),
            SealError::InvalidClock => {
                f.write_str("the clock is not a finite number of milliseconds")
            }
            SealError::OutOfMemory => f.write_str("out of memory for the sealed token"),
        }
    }
}

impl std::error::Error for SealError {}

/// What a sealed token carries beside its payload: a bind value, a secret
/// (JSON text only a key holder reads) and, for requestState, the request's
/// arguments (JSON text, bound by their RFC 8785 digest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SealWith<'a> {
    pub bind: Option<&'a str>,
    pub secret: Option<&'a str>,
    pub request: Option<&'a str>,
}

/// What opening a token checks beside the MAC, expiry and purpose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenWith<'a> {
    pub bind: Option<&'a str>,
    pub request: Option<&'a str>,
}

/// Why a token with a secret or a request could not be sealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SealWithError {
    /// What plain sealing refuses (the payload, the size, the clock, memory).
    Seal(SealError),
    /// The secret is not one JSON text.
    SecretNotJson,
    /// The request has no RFC 8785 canonical form (or is not JSON).
    Request(JcsError),
    /// A request digest or a secret on a raw token, which has no purpose envelope.
    RawToken,
    /// The platform CSPRNG failed to give a nonce.
    NoRandomness,
}

impl From<SealError> for SealWithError {
    fn from(e: SealError) -> Self {
        SealWithError::Seal(e)
    }
}

impl core::fmt::Display for SealWithError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SealWithError::Seal(e) => e.fmt(f),
            SealWithError::SecretNotJson => f.write_str("secret is not valid JSON text"),
            SealWithError::Request(e) => e.fmt(f),
            SealWithError::RawToken => {
                f.write_str("a raw token carries neither a secret nor a request digest")
            }
            SealWithError::NoRandomness => {
                f.write_str("the platform's random number generator failed")
            }
        }
    }
}

impl std::error::Error for SealWithError {}

/// An opened token: the payload, and the secret when the token has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    pub payload: Payload,
    /// The secret's JSON text; `None` when the token carries none.
    pub secret: Option<String>,
}

/// The codec. Cheap to share; every method takes `&self`.
#[derive(Clone, Debug)]
pub struct Codec {
    keys: Keys,
    ttl_seconds: i64,
    leeway_seconds: i64,
    max_token_bytes: usize,
    clock: Clock,
}

impl Codec {
    /// Build a codec. With no keys, in development, it draws an ephemeral key
    /// and (natively) prints [`crate::keys::EPHEMERAL_KEY_WARNING`] to stderr once;
    /// the wasm bindings leave the warning to the JS side.
    pub fn new<K: AsRef<[u8]>>(options: CodecOptions<K>) -> Result<Codec, ConfigError> {
        if options.leeway_seconds < 0 {
            return Err(ConfigError::NegativeLeeway);
        }
        let keys = Keys::new(options.keys.as_deref(), options.production)?;
        #[cfg(not(target_arch = "wasm32"))]
        if keys.is_ephemeral() && crate::keys::ephemeral_warning_due() {
            eprintln!("{}", crate::keys::EPHEMERAL_KEY_WARNING);
        }
        Ok(Codec {
            keys,
            ttl_seconds: options.ttl_seconds,
            leeway_seconds: options.leeway_seconds,
            max_token_bytes: options.max_token_bytes,
            clock: options.now,
        })
    }

    /// Whether it runs on the dev ephemeral key.
    pub fn is_ephemeral(&self) -> bool {
        self.keys.is_ephemeral()
    }

    /// The size limit of this codec's tokens, bytes.
    pub fn max_token_bytes(&self) -> usize {
        self.max_token_bytes
    }

    /// Seconds past `exp` that a token still opens.
    pub(crate) fn leeway_seconds(&self) -> i64 {
        self.leeway_seconds
    }

    // ---- sealing -------------------------------------------------------

    /// A view token (`{"p":"v","d":payload}`) expiring `ttl` after now.
    pub fn seal(&self, payload_json: &str, bind: Option<&str>) -> Result<String, SealError> {
        self.seal_string(Purpose::View, payload_json, bind)
    }

    /// An MRTR requestState token for `tool` (`{"p":"r","d":payload,"o":tool}`).
    pub fn seal_request_state(
        &self,
        payload_json: &str,
        tool: &str,
        bind: Option<&str>,
    ) -> Result<String, SealError> {
        self.seal_string(Purpose::RequestState(tool), payload_json, bind)
    }

    /// A view token with a secret part (JSON text) beside the payload.
    pub fn seal_with_secret(
        &self,
        payload_json: &str,
        secret_json: Option<&str>,
        bind: Option<&str>,
    ) -> Result<String, SealWithError> {
        let with = SealWith {
            bind,
            secret: secret_json,
            request: None,
        };
        self.seal_string_with(Purpose::View, payload_json, with)
    }

    /// An MRTR requestState token for `tool` with any of a bind value, a
    /// secret and the request's arguments (JSON text).
    pub fn seal_request_state_with(
        &self,
        payload_json: &str,
        tool: &str,
        with: SealWith<'_>,
    ) -> Result<String, SealWithError> {
        self.seal_string_with(Purpose::RequestState(tool), payload_json, with)
    }

    fn seal_string_with(
        &self,
        purpose: Purpose<&str>,
        payload_json: &str,
        with: SealWith<'_>,
    ) -> Result<String, SealWithError> {
        let mut token = Vec::new();
        let now_ms = self.clock.now_ms();
        self.seal_into_with(purpose, Some(payload_json), with, now_ms, &mut token)?;
        // The token is ASCII, so this never falls back to the empty string.
        Ok(String::from_utf8(token).unwrap_or_default())
    }

    /// A raw v1 token with no purpose envelope, as the SDK's `mint` makes.
    pub fn mint(&self, payload_json: &str, bind: Option<&str>) -> Result<String, SealError> {
        self.seal_string(Purpose::Raw, payload_json, bind)
    }

    fn seal_string(
        &self,
        purpose: Purpose<&str>,
        payload_json: &str,
        bind: Option<&str>,
    ) -> Result<String, SealError> {
        let mut token = Vec::new();
        let now_ms = self.clock.now_ms();
        self.seal_into(purpose, Some(payload_json), bind, now_ms, &mut token)?;
        // The token is ASCII, so this never falls back to the empty string.
        Ok(String::from_utf8(token).unwrap_or_default())
    }

    /// The one sealing path: check the clock and the payload, then write the
    /// token's (ASCII) bytes over `out`, which the wasm bindings keep between
    /// calls. On an error `out` holds no token. No payload (JS `undefined`,
    /// which the SDK's `mint` takes) is for a raw token only.
    pub(crate) fn seal_into(
        &self,
        purpose: Purpose<&str>,
        payload_json: Option<&str>,
        bind: Option<&str>,
        now_ms: f64,
        out: &mut Vec<u8>,
    ) -> Result<(), SealError> {
        let with = SealWith {
            bind,
            ..SealWith::default()
        };
        self.seal_into_with(purpose, payload_json, with, now_ms, out)
            .map_err(|e| match e {
                SealWithError::Seal(e) => e,
                // Unreachable without a secret or a request.
                _ => SealError::PayloadNotJson,
            })
    }

    /// [`Codec::seal_into`] with a secret and a request digest. The secret
    /// is checked, and the token's size computed, before anything is
    /// encrypted or written.
    pub(crate) fn seal_into_with(
        &self,
        purpose: Purpose<&str>,
        payload_json: Option<&str>,
        with: SealWith<'_>,
        now_ms: f64,
        out: &mut Vec<u8>,
    ) -> Result<(), SealWithError> {
        let bind = with.bind;
        out.clear();
        let now = clock::unix_seconds(now_ms).ok_or(SealError::InvalidClock)?;
        let valid = match payload_json {
            Some(json) => json::is_valid(json),
            None => purpose == Purpose::Raw,
        };
        if !valid {
            return Err(SealError::PayloadNotJson.into());
        }
        if purpose == Purpose::Raw && (with.secret.is_some() || with.request.is_some()) {
            return Err(SealWithError::RawToken);
        }
        if with.secret.is_some_and(|s| !json::is_valid(s)) {
            return Err(SealWithError::SecretNotJson);
        }
        // Refuse an oversize secret before paying for its encryption.
        let secret_chars = match with.secret {
            Some(s) => secret::sealed_len(s.len()).ok_or(SealError::OutOfMemory)?,
            None => 0,
        };
        if secret_chars > self.max_token_bytes {
            return Err(SealError::TokenTooLarge {
                bytes: secret_chars,
                max_bytes: self.max_token_bytes,
            }
            .into());
        }
        let exp = now.saturating_add(self.ttl_seconds);
        let Some(key) = self.keys.sealing() else {
            return Err(SealError::OutOfMemory.into()); // unreachable: `Keys` always holds a key
        };
        let mut tag_buf = [0u8; BIND_TAG_CHARS];
        let tag = bind.map(|value| bind_tag(&key.mac, value, &mut tag_buf));
        let mut q_buf = [0u8; BIND_TAG_CHARS];
        let q = match with.request {
            Some(args) => Some(request_digest(&key.mac, args, &mut q_buf)?),
            None => None,
        };
        let sealed = match with.secret {
            Some(json) => Some(
                secret::seal(&key.secret, purpose, json).map_err(|e| match e {
                    secret::SealFailure::NoRandomness => SealWithError::NoRandomness,
                    secret::SealFailure::OutOfMemory => SealWithError::Seal(SealError::OutOfMemory),
                })?,
            ),
            None => None,
        };
        let extra = envelope::Extra {
            secret: sealed.as_deref(),
            request: q,
        };

        let max_env =
            envelope::max_len(purpose, payload_json, extra, tag).ok_or(SealError::OutOfMemory)?;
        let mut env = String::new();
        env.try_reserve_exact(max_env)
            .map_err(|_| SealError::OutOfMemory)?;
        envelope::write(purpose, payload_json, extra, exp, tag, &mut env);

        let bytes = wire::PREFIX.len() + wire::encoded_len(env.len()) + 1 + wire::MAC_CHARS;
        if bytes > self.max_token_bytes {
            return Err(SealError::TokenTooLarge {
                bytes,
                max_bytes: self.max_token_bytes,
            }
            .into());
        }
        out.try_reserve_exact(bytes)
            .map_err(|_| SealError::OutOfMemory)?;
        out.extend_from_slice(wire::PREFIX.as_bytes());
        wire::encode_into_bytes(env.as_bytes(), out);
        let sig = key
            .mac
            .clone()
            .chain_update(out.as_slice())
            .finalize()
            .into_bytes();
        out.push(b'.');
        wire::encode_into_bytes(&sig, out);
        Ok(())
    }

    // ---- opening -------------------------------------------------------

    /// Open a view token.
    pub fn open(&self, token: &str, bind: Option<&str>) -> Result<Payload, SealedStateError> {
        let now_ms = self.clock.now_ms();
        self.open_as(token.as_bytes(), Purpose::View, bind, now_ms)
    }

    /// Open an MRTR requestState token minted for `tool`.
    pub fn open_request_state(
        &self,
        token: &str,
        tool: &str,
        bind: Option<&str>,
    ) -> Result<Payload, SealedStateError> {
        let now_ms = self.clock.now_ms();
        self.open_as(token.as_bytes(), Purpose::RequestState(tool), bind, now_ms)
    }

    /// Open a view token and its secret, if it has one.
    pub fn open_with_secret(
        &self,
        token: &str,
        bind: Option<&str>,
    ) -> Result<Opened, SealedStateError> {
        let now_ms = self.clock.now_ms();
        let with = OpenWith {
            bind,
            request: None,
        };
        self.open_as_with(token.as_bytes(), Purpose::View, with, true, now_ms)
    }

    /// Open an MRTR requestState token minted for `tool`, checking the
    /// request's arguments (JSON text) when it was sealed with them, and its
    /// secret, if it has one.
    pub fn open_request_state_with(
        &self,
        token: &str,
        tool: &str,
        with: OpenWith<'_>,
    ) -> Result<Opened, SealedStateError> {
        let now_ms = self.clock.now_ms();
        self.open_as_with(
            token.as_bytes(),
            Purpose::RequestState(tool),
            with,
            true,
            now_ms,
        )
    }

    /// Verify a raw v1 token (the SDK's `verify`): the whole `p` comes back.
    pub fn verify(&self, token: &str, bind: Option<&str>) -> Result<Payload, SealedStateError> {
        let now_ms = self.clock.now_ms();
        self.open_as(token.as_bytes(), Purpose::Raw, bind, now_ms)
    }

    /// The one opening path. A clock that cannot be read fails the expiry
    /// step (no token can be shown fresh by it); a body too large for the
    /// memory at hand fails the body step. The token is bytes (the glue's,
    /// unchecked): any byte that is not ASCII fails the shape step.
    pub(crate) fn open_as(
        &self,
        token: &[u8],
        expect: Purpose<&str>,
        bind: Option<&str>,
        now_ms: f64,
    ) -> Result<Payload, SealedStateError> {
        let with = OpenWith {
            bind,
            request: None,
        };
        self.open_as_with(token, expect, with, false, now_ms)
            .map(|opened| opened.payload)
    }

    /// [`Codec::open_as`] with the request check (step 7) and, when
    /// `with_secret`, the secret decrypted with the key whose MAC matched
    /// (step 8). Without `with_secret` a secret is left sealed.
    pub(crate) fn open_as_with(
        &self,
        token: &[u8],
        expect: Purpose<&str>,
        with: OpenWith<'_>,
        with_secret: bool,
        now_ms: f64,
    ) -> Result<Opened, SealedStateError> {
        let bind = with.bind;
        let (key, body) = self.authenticate(token)?;
        // 3. body. Parsing the envelope validates all of it, payload included.
        let env = envelope::parse(&body).ok_or(Reason::Malformed)?;
        // 4. expiry
        let now = clock::unix_seconds(now_ms).ok_or(Reason::Expired)?;
        if env.exp.saturating_add(self.leeway_seconds) < now {
            return Err(Reason::Expired.into());
        }
        // 5. binding
        check_binding(key, bind, env.b)?;
        // 6. purpose and tool
        let (payload, secret) = match expect {
            Purpose::Raw => (env.p, None),
            _ => {
                let claim = env.claim_all();
                if claim.purpose.as_deref() != expect {
                    return Err(Reason::Purpose.into());
                }
                // 7. request: fail closed both ways, as for the bind tag.
                check_request(&key.mac, with.request, claim.request)?;
                (claim.payload, claim.secret)
            }
        };
        // 8. the secret, with the encryption key of the key whose MAC matched
        let secret = match (with_secret, secret) {
            (true, Some(raw)) => {
                let sealed = envelope::string_value(raw).ok_or(Reason::Malformed)?;
                Some(secret::open(&key.secret, expect, &sealed)?)
            }
            _ => None,
        };
        let range = payload::range_in(&body, payload).ok_or(Reason::Malformed)?;
        let payload = Payload::new(body, range).ok_or(Reason::Malformed)?;
        Ok(Opened { payload, secret })
    }

    /// Steps 1 to 3 of opening, up to the body as text: shape and size
    /// (before any hashing), the MAC against each key in constant time, then
    /// strict base64url and UTF-8. Gives the key whose MAC matched (the bind
    /// tag was made with it) and the body.
    pub(crate) fn authenticate(&self, token: &[u8]) -> Result<(&Key, String), SealedStateError> {
        // The body's alphabet is judged while decoding it, in one pass; a
        // body that is all alphabet but has an impossible length or
        // non-canonical bits stays for the body step, after the MAC.
        let parts = wire::split(token, self.max_token_bytes)?;
        let decoded = match wire::decode_classified(parts.body) {
            Err(wire::DecodeError::Alphabet) => return Err(Reason::Malformed.into()),
            other => other.ok(),
        };
        let mac_bytes = wire::decode_exact::<{ wire::MAC_BYTES }>(parts.mac).ok_or(Reason::Mac)?;
        let key = self
            .keys
            .all()
            .iter()
            .find(|k| {
                k.mac
                    .clone()
                    .chain_update(parts.signed)
                    .verify_slice(&mac_bytes)
                    .is_ok()
            })
            .ok_or(Reason::Mac)?;
        let body = decoded
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or(Reason::Malformed)?;
        Ok((key, body))
    }
}

/// Step 5: fail closed on configuration drift in both directions. `raw_tag`
/// is the raw JSON of `b`: a tag is a string of the canonical spelling of 16
/// bytes, so comparing bytes compares the strings the SDK compares.
pub(crate) fn check_binding(
    key: &Key,
    bind: Option<&str>,
    raw_tag: Option<&str>,
) -> Result<(), SealedStateError> {
    let key = &key.mac;
    match (bind, raw_tag) {
        (None, None) => Ok(()),
        (Some(value), Some(raw_tag)) => {
            let tag = envelope::string_value(raw_tag)
                .and_then(|t| wire::decode_exact::<BIND_TAG_BYTES>(t.as_bytes()))
                .ok_or(Reason::Bind)?;
            bind_mac(key, value)
                .verify_truncated_left(&tag)
                .map_err(|_| Reason::Bind.into())
        }
        _ => Err(Reason::Bind.into()),
    }
}

fn bind_mac(key: &HmacSha256, value: &str) -> HmacSha256 {
    key.clone()
        .chain_update(BIND_LABEL)
        .chain_update(value.as_bytes())
}

/// `b64url(HMAC(key, "mcp.requestState.bind:" + value)[0..16])`, 22 chars,
/// written into `buf` (no allocation).
fn bind_tag<'b>(key: &HmacSha256, value: &str, buf: &'b mut [u8; BIND_TAG_CHARS]) -> &'b str {
    let full = bind_mac(key, value).finalize().into_bytes();
    wire::encode_to(full.get(..BIND_TAG_BYTES).unwrap_or(&[]), buf);
    // base64url is ASCII, so this never falls back.
    core::str::from_utf8(buf).unwrap_or("")
}

/// Step 7: a token sealed with a request opens only with the same request
/// (by its canonical form), and one sealed without opens only without.
/// `raw_q` is the raw JSON of `q`; a request with no canonical form is refused.
fn check_request(
    key: &HmacSha256,
    request: Option<&str>,
    raw_q: Option<&str>,
) -> Result<(), SealedStateError> {
    match (request, raw_q) {
        (None, None) => Ok(()),
        (Some(args), Some(raw_q)) => {
            let q = envelope::string_value(raw_q)
                .and_then(|t| wire::decode_exact::<BIND_TAG_BYTES>(t.as_bytes()))
                .ok_or(Reason::Request)?;
            let canonical = jcs::request_form(args).map_err(|_| Reason::Request)?;
            request_mac(key, &canonical)
                .verify_truncated_left(&q)
                .map_err(|_| Reason::Request.into())
        }
        _ => Err(Reason::Request.into()),
    }
}

fn request_mac(key: &HmacSha256, canonical: &str) -> HmacSha256 {
    key.clone()
        .chain_update(REQUEST_LABEL)
        .chain_update(canonical.as_bytes())
}

/// `q`: `b64url(HMAC(key, "mcp-sealed-state/v1/request:" + JCS(args))[0..16])`.
fn request_digest<'b>(
    key: &HmacSha256,
    args: &str,
    buf: &'b mut [u8; BIND_TAG_CHARS],
) -> Result<&'b str, SealWithError> {
    let canonical = jcs::request_form(args).map_err(SealWithError::Request)?;
    let full = request_mac(key, &canonical).finalize().into_bytes();
    wire::encode_to(full.get(..BIND_TAG_BYTES).unwrap_or(&[]), buf);
    // base64url is ASCII, so this never falls back.
    Ok(core::str::from_utf8(buf).unwrap_or(""))
}
