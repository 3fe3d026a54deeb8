//! Seal and open: the v1 codec with purposes, binding, expiry and rotation.
//!
//! Opening checks, in SPEC order: shape and size (before any hashing), MAC
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
use crate::json;
use crate::keys::{HmacSha256, KeyError, Keys};
use crate::payload::{self, Payload};
use crate::purpose::Purpose;
use crate::wire;

/// Default token lifetime, seconds.
pub const DEFAULT_TTL_SECONDS: i64 = 600;
/// Default size limit, bytes. A 64 KiB payload makes an ~88 KB token.
pub const DEFAULT_MAX_TOKEN_BYTES: usize = 256 * 1024;
/// Domain separation for bind tags, as the SDK writes it.
pub const BIND_LABEL: &[u8] = b"mcp.requestState.bind:";
/// Bytes of the bind tag (truncated HMAC).
pub const BIND_TAG_BYTES: usize = 16;
/// Characters of the base64url bind tag.
const BIND_TAG_CHARS: usize = wire::encoded_len(BIND_TAG_BYTES);

/// Construction options. Keys are copied into keyed MAC states.
#[derive(Clone, Debug)]
pub struct CodecOptions<K> {
    /// First seals, all open. Empty: ephemeral key (dev) or an error (production).
    pub keys: Vec<K>,
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
            keys: Vec::new(),
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
            keys,
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
        out.clear();
        let now = clock::unix_seconds(now_ms).ok_or(SealError::InvalidClock)?;
        let valid = match payload_json {
            Some(json) => json::is_valid(json),
            None => purpose == Purpose::Raw,
        };
        if !valid {
            return Err(SealError::PayloadNotJson);
        }
        let exp = now.saturating_add(self.ttl_seconds);
        let Some(mac) = self.keys.sealing() else {
            return Err(SealError::OutOfMemory); // unreachable: `Keys` always holds a key
        };
        let mut tag_buf = [0u8; BIND_TAG_CHARS];
        let tag = bind.map(|value| bind_tag(mac, value, &mut tag_buf));

        let max_env =
            envelope::max_len(purpose, payload_json, tag).ok_or(SealError::OutOfMemory)?;
        let mut env = String::new();
        env.try_reserve_exact(max_env)
            .map_err(|_| SealError::OutOfMemory)?;
        envelope::write(purpose, payload_json, exp, tag, &mut env);

        let bytes = wire::PREFIX.len() + wire::encoded_len(env.len()) + 1 + wire::MAC_CHARS;
        if bytes > self.max_token_bytes {
            return Err(SealError::TokenTooLarge {
                bytes,
                max_bytes: self.max_token_bytes,
            });
        }
        out.try_reserve_exact(bytes)
            .map_err(|_| SealError::OutOfMemory)?;
        out.extend_from_slice(wire::PREFIX.as_bytes());
        wire::encode_into_bytes(env.as_bytes(), out);
        let sig = mac
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
        let payload = match expect {
            Purpose::Raw => env.p,
            _ => match env.claim() {
                (claimed, d) if claimed.as_deref() == expect => d,
                _ => return Err(Reason::Purpose.into()),
            },
        };
        let range = payload::range_in(&body, payload).ok_or(Reason::Malformed)?;
        Payload::new(body, range).ok_or_else(|| Reason::Malformed.into())
    }

    /// Steps 1 to 3 of opening, up to the body as text: shape and size
    /// (before any hashing), the MAC against each key in constant time, then
    /// strict base64url and UTF-8. Gives the key whose MAC matched (the bind
    /// tag was made with it) and the body.
    pub(crate) fn authenticate(
        &self,
        token: &[u8],
    ) -> Result<(&HmacSha256, String), SealedStateError> {
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
                (*k).clone()
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
    key: &HmacSha256,
    bind: Option<&str>,
    raw_tag: Option<&str>,
) -> Result<(), SealedStateError> {
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
