//! Seal and open: the v1 codec with purposes, binding, expiry and rotation.
//!
//! Opening checks, in SPEC order: shape and size (before any hashing), MAC
//! against every key in constant time, body (UTF-8, JSON object, `p`,
//! integer `exp`), expiry, binding, purpose and tool. Each failure is a
//! [`SealedStateError`] whose message is the one stable constant.

use hmac::Mac;

use crate::envelope::{self, Inner, Opened as Purposed};
use crate::error::{Reason, SealedStateError};
use crate::json;
use crate::keys::{HmacSha256, KeyError, Keys};
use crate::reader::{floor_seconds, offset_in};
use crate::wire;

/// Default token lifetime, seconds.
pub const DEFAULT_TTL_SECONDS: i64 = 600;
/// Default size limit, bytes. A 64 KiB payload makes an ~88 KB token.
pub const DEFAULT_MAX_TOKEN_BYTES: usize = 256 * 1024;
/// Domain separation for bind tags, as the SDK writes it.
pub const BIND_LABEL: &[u8] = b"mcp.requestState.bind:";
/// Bytes of the bind tag (truncated HMAC).
pub const BIND_TAG_BYTES: usize = 16;

/// Construction options. Keys are copied into keyed MAC states.
#[derive(Clone, Debug)]
pub struct CodecOptions<K> {
    /// First seals, all open. Empty: ephemeral key (dev) or an error (production).
    pub keys: Vec<K>,
    pub ttl_seconds: i64,
    pub leeway_seconds: i64,
    pub max_token_bytes: usize,
    pub production: bool,
}

impl<K> Default for CodecOptions<K> {
    fn default() -> Self {
        CodecOptions {
            keys: Vec::new(),
            ttl_seconds: DEFAULT_TTL_SECONDS,
            leeway_seconds: 0,
            max_token_bytes: DEFAULT_MAX_TOKEN_BYTES,
            production: false,
        }
    }
}

impl<K: AsRef<[u8]>> CodecOptions<K> {
    /// Options with these keys and the defaults.
    pub fn with_keys(keys: Vec<K>) -> Self {
        CodecOptions {
            keys,
            ..Default::default()
        }
    }
}

/// Why a codec could not be built, or a payload could not be sealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigError {
    Key(KeyError),
    /// `leeway_seconds` is negative.
    NegativeLeeway,
    /// The payload given to a `seal` is not one JSON text.
    PayloadNotJson,
    /// The sealed token would be longer than `max_token_bytes`, so this codec
    /// could not open it again.
    TokenTooLarge {
        bytes: usize,
        max_bytes: usize,
    },
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
            ConfigError::PayloadNotJson => f.write_str("payload is not valid JSON text"),
            ConfigError::TokenTooLarge { bytes, max_bytes } => {
                write!(
                    f,
                    "the sealed token is {bytes} bytes, over max_token_bytes ({max_bytes})"
                )
            }
        }
    }
}

impl std::error::Error for ConfigError {}

/// An opened token: the decoded body and where the payload JSON sits in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    body: String,
    payload: core::ops::Range<usize>,
}

impl Opened {
    /// The payload as JSON text, exactly as it was sealed.
    pub fn payload_json(&self) -> &str {
        self.body.get(self.payload.clone()).unwrap_or("null")
    }
    /// Take the payload JSON as an owned string.
    pub fn into_payload_json(self) -> String {
        if self.payload.start == 0 && self.payload.end == self.body.len() {
            return self.body;
        }
        self.payload_json().to_owned()
    }
}

/// What the caller expects the token to be.
#[derive(Clone, Copy, Debug)]
enum Expect<'a> {
    Raw,
    View,
    RequestState(&'a str),
}

/// The codec. Cheap to share; every method takes `&self`.
#[derive(Clone, Debug)]
pub struct Codec {
    keys: Keys,
    ttl_seconds: i64,
    leeway_seconds: i64,
    max_token_bytes: usize,
}

impl Codec {
    /// Build a codec. With no keys, in development, it draws an ephemeral key
    /// and (natively) prints [`crate::keys::EPHEMERAL_KEY_WARNING`] to stderr once;
    /// the wasm bindings leave the warning to the JS side.
    pub fn new<K: AsRef<[u8]>>(options: CodecOptions<K>) -> Result<Codec, ConfigError> {
        if options.leeway_seconds < 0 {
            return Err(ConfigError::NegativeLeeway);
        }
        let keys = Keys::new(&options.keys, options.production)?;
        #[cfg(not(target_arch = "wasm32"))]
        if keys.is_ephemeral() && crate::keys::ephemeral_warning_due() {
            eprintln!("{}", crate::keys::EPHEMERAL_KEY_WARNING);
        }
        Ok(Codec {
            keys,
            ttl_seconds: options.ttl_seconds,
            leeway_seconds: options.leeway_seconds,
            max_token_bytes: options.max_token_bytes,
        })
    }

    /// Whether it runs on the dev ephemeral key.
    pub fn is_ephemeral(&self) -> bool {
        self.keys.is_ephemeral()
    }

    // ---- sealing -------------------------------------------------------

    /// A view token (`{"p":"v","d":payload}`) expiring `ttl` after `now_ms`.
    pub fn seal_at(
        &self,
        payload_json: &str,
        bind: Option<&str>,
        now_ms: f64,
    ) -> Result<String, ConfigError> {
        self.seal_checked(Inner::View(payload_json), bind, now_ms)
    }

    /// An MRTR requestState token for `tool` (`{"p":"r","d":payload,"o":tool}`).
    pub fn seal_request_state_at(
        &self,
        payload_json: &str,
        tool: &str,
        bind: Option<&str>,
        now_ms: f64,
    ) -> Result<String, ConfigError> {
        self.seal_checked(
            Inner::RequestState {
                payload: payload_json,
                tool,
            },
            bind,
            now_ms,
        )
    }

    /// A raw v1 token with no purpose envelope, as the SDK's `mint` makes.
    pub fn mint_at(
        &self,
        payload_json: &str,
        bind: Option<&str>,
        now_ms: f64,
    ) -> Result<String, ConfigError> {
        self.seal_checked(Inner::Raw(payload_json), bind, now_ms)
    }

    /// Seal after checking that the payload is JSON text and that the token
    /// will fit this codec's own size limit.
    pub fn seal_checked(
        &self,
        inner: Inner<'_>,
        bind: Option<&str>,
        now_ms: f64,
    ) -> Result<String, ConfigError> {
        let (Inner::Raw(payload) | Inner::View(payload) | Inner::RequestState { payload, .. }) =
            inner;
        if !json::is_valid(payload) {
            return Err(ConfigError::PayloadNotJson);
        }
        self.fits(self.seal_unchecked(inner, bind, now_ms))
    }

    /// A token this codec could not open again is refused when it is made.
    fn fits(&self, token: String) -> Result<String, ConfigError> {
        if token.len() > self.max_token_bytes {
            return Err(ConfigError::TokenTooLarge {
                bytes: token.len(),
                max_bytes: self.max_token_bytes,
            });
        }
        Ok(token)
    }

    /// Seal without validating the payload JSON: for callers whose JSON comes
    /// from a serializer (`JSON.stringify`, serde_json), where a second scan
    /// would only cost time.
    pub fn seal_unchecked(&self, inner: Inner<'_>, bind: Option<&str>, now_ms: f64) -> String {
        let mut token = Vec::new();
        self.seal_into(inner, bind, now_ms, &mut token);
        // The token is ASCII, so this never falls back to the empty string.
        String::from_utf8(token).unwrap_or_default()
    }

    /// [`Codec::seal_unchecked`], appending the token's (ASCII) bytes to
    /// `out`: for callers that keep a buffer between calls (the wasm bindings).
    pub fn seal_into(&self, inner: Inner<'_>, bind: Option<&str>, now_ms: f64, out: &mut Vec<u8>) {
        let exp = floor_seconds(now_ms).saturating_add(self.ttl_seconds);
        let Some(mac) = self.keys.sealing() else {
            return; // unreachable: `Keys` always holds a key
        };
        let tag = bind.map(|value| bind_tag(mac, value));
        let mut env = String::with_capacity(payload_len(inner) + 96);
        envelope::write(inner, exp, tag.as_deref(), &mut env);

        let start = out.len();
        out.reserve(wire::PREFIX.len() + wire::encoded_len(env.len()) + 1 + wire::MAC_CHARS);
        out.extend_from_slice(wire::PREFIX.as_bytes());
        wire::encode_into_bytes(env.as_bytes(), out);
        let sig = mac
            .clone()
            .chain_update(out.get(start..).unwrap_or_default())
            .finalize()
            .into_bytes();
        out.push(b'.');
        wire::encode_into_bytes(&sig, out);
    }

    // ---- opening -------------------------------------------------------

    /// Open a view token.
    pub fn open_at(
        &self,
        token: &str,
        bind: Option<&str>,
        now_ms: f64,
    ) -> Result<Opened, SealedStateError> {
        self.open_expecting(token, Expect::View, bind, now_ms)
    }

    /// Open an MRTR requestState token minted for `tool`.
    pub fn open_request_state_at(
        &self,
        token: &str,
        tool: &str,
        bind: Option<&str>,
        now_ms: f64,
    ) -> Result<Opened, SealedStateError> {
        self.open_expecting(token, Expect::RequestState(tool), bind, now_ms)
    }

    /// Verify a raw v1 token (the SDK's `verify`): the whole `p` comes back.
    pub fn verify_at(
        &self,
        token: &str,
        bind: Option<&str>,
        now_ms: f64,
    ) -> Result<Opened, SealedStateError> {
        self.open_expecting(token, Expect::Raw, bind, now_ms)
    }

    fn open_expecting(
        &self,
        token: &str,
        expect: Expect<'_>,
        bind: Option<&str>,
        now_ms: f64,
    ) -> Result<Opened, SealedStateError> {
        // 1. shape and size, before any hashing. The body's alphabet is judged
        // while decoding it, in one pass; a body that is all alphabet but has an
        // impossible length or non-canonical bits stays for step 3, after the
        // MAC, as it always was.
        let parts = wire::split_unscanned(token, self.max_token_bytes)?;
        let decoded = match wire::decode_classified(parts.body) {
            Err(wire::DecodeError::Alphabet) => return Err(Reason::Malformed.into()),
            other => other.ok(),
        };
        let mac_bytes = wire::decode_exact::<{ wire::MAC_BYTES }>(parts.mac).ok_or(Reason::Mac)?;
        // 2. MAC, constant time, against each key; bind with the one that matched
        let key = self
            .keys
            .all()
            .iter()
            .find(|k| {
                (*k).clone()
                    .chain_update(parts.signed.as_bytes())
                    .verify_slice(&mac_bytes)
                    .is_ok()
            })
            .ok_or(Reason::Mac)?;
        // 3. body
        let body = decoded
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or(Reason::Malformed)?;
        // Parsing the envelope validates all of it, payload included.
        let env = envelope::parse(&body).ok_or(Reason::Malformed)?;
        // 4. expiry
        if env.exp.saturating_add(self.leeway_seconds) < floor_seconds(now_ms) {
            return Err(Reason::Expired.into());
        }
        // 5. binding: fail closed on configuration drift in both directions
        match (bind, env.b) {
            (None, None) => {}
            (Some(value), Some(raw_tag)) => {
                let tag = envelope::string_value(raw_tag)
                    .and_then(|t| wire::decode_exact::<BIND_TAG_BYTES>(&t))
                    .ok_or(Reason::Bind)?;
                bind_mac(key, value)
                    .verify_truncated_left(&tag)
                    .map_err(|_| Reason::Bind)?;
            }
            _ => return Err(Reason::Bind.into()),
        }
        // 6. purpose and tool
        let payload = match (expect, envelope::parse_inner(env.p)) {
            (Expect::Raw, _) => env.p,
            (Expect::View, Some(Purposed::View { d })) => d,
            (Expect::RequestState(want), Some(Purposed::RequestState { d, tool }))
                if tool == want =>
            {
                d
            }
            _ => return Err(Reason::Purpose.into()),
        };
        let start = offset_in(&body, payload).ok_or(Reason::Malformed)?;
        Ok(Opened {
            payload: start..start + payload.len(),
            body,
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Codec {
    pub(crate) fn now_ms() -> f64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as f64)
            .unwrap_or(0.0)
    }
    /// [`Codec::seal_at`] at the system clock.
    pub fn seal(&self, payload_json: &str, bind: Option<&str>) -> Result<String, ConfigError> {
        self.seal_at(payload_json, bind, Self::now_ms())
    }
    /// [`Codec::open_at`] at the system clock.
    pub fn open(&self, token: &str, bind: Option<&str>) -> Result<Opened, SealedStateError> {
        self.open_at(token, bind, Self::now_ms())
    }
    /// [`Codec::seal_request_state_at`] at the system clock.
    pub fn seal_request_state(
        &self,
        payload_json: &str,
        tool: &str,
        bind: Option<&str>,
    ) -> Result<String, ConfigError> {
        self.seal_request_state_at(payload_json, tool, bind, Self::now_ms())
    }
    /// [`Codec::open_request_state_at`] at the system clock.
    pub fn open_request_state(
        &self,
        token: &str,
        tool: &str,
        bind: Option<&str>,
    ) -> Result<Opened, SealedStateError> {
        self.open_request_state_at(token, tool, bind, Self::now_ms())
    }
    /// [`Codec::mint_at`] at the system clock.
    pub fn mint(&self, payload_json: &str, bind: Option<&str>) -> Result<String, ConfigError> {
        self.mint_at(payload_json, bind, Self::now_ms())
    }
    /// [`Codec::verify_at`] at the system clock.
    pub fn verify(&self, token: &str, bind: Option<&str>) -> Result<Opened, SealedStateError> {
        self.verify_at(token, bind, Self::now_ms())
    }
}

fn payload_len(inner: Inner<'_>) -> usize {
    match inner {
        Inner::Raw(p) | Inner::View(p) => p.len(),
        Inner::RequestState { payload, tool } => payload.len() + tool.len(),
    }
}

fn bind_mac(key: &HmacSha256, value: &str) -> HmacSha256 {
    key.clone()
        .chain_update(BIND_LABEL)
        .chain_update(value.as_bytes())
}

/// `b64url(HMAC(key, "mcp.requestState.bind:" + value)[0..16])`, 22 chars.
fn bind_tag(key: &HmacSha256, value: &str) -> String {
    let full = bind_mac(key, value).finalize().into_bytes();
    wire::encode(full.get(..BIND_TAG_BYTES).unwrap_or(&[]))
}
