//! Seal and open: the v1 codec with purposes, binding, expiry, rotation,
//! the secret part and request binding.
//!
//! Opening checks in the order of docs/format.md ("Opening: order and
//! reasons"): the request's canonical form (when one is given), shape and
//! size (before any hashing), the MAC against every key
//! in constant time, the body, expiry, binding, purpose and tool, the
//! request, the secret. Each failure is a [`SealedStateError`] whose message
//! is the one stable constant.
//!
//! Every buffer that grows with the input is reserved with `try_reserve`, so
//! a payload or token too large for the memory at hand is an error value,
//! never an allocation failure (in wasm, a trap that kills the request).

use std::borrow::Cow;

use hmac::Mac;

use crate::clock::{self, Clock};
use crate::envelope;
use crate::error::{Reason, SealedStateError};
use crate::jcs::JcsError;
use crate::json;
use crate::keys::{HmacSha256, Key, KeyError, Keys};
use crate::payload::{self, Payload};
use crate::purpose::Purpose;
use crate::redacted::{self, RedactedList};
use crate::secret;
use crate::wire;

/// Default token lifetime, in seconds.
pub const DEFAULT_TTL_SECONDS: i64 = 600;
/// Default size limit of a token, in bytes. A 64 KiB payload makes an ~88 KB token.
pub const DEFAULT_MAX_TOKEN_BYTES: usize = 256 * 1024;
/// Default size limit of a request's canonical (RFC 8785) text, in bytes.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 64 * 1024;
/// Printed to stderr once per process when a native codec runs on the
/// development key (the JS glue logs its own words, in its options' names).
#[cfg(not(target_arch = "wasm32"))]
const DEV_KEY_WARNING: &str = "mcp-sealed-state: no key configured; using a random development \
key. Tokens will not survive a restart or open in another process. Give CodecOptions a key of at \
least 32 bytes (and set `production` to make a missing key an error).";
/// Domain separation for bind tags, as the SDK writes it.
pub(crate) const BIND_LABEL: &[u8] = b"mcp.requestState.bind:";
/// Bytes of the bind tag (truncated HMAC).
pub(crate) const BIND_TAG_BYTES: usize = 16;
/// Characters of the base64url bind tag (and of the request digest).
const BIND_TAG_CHARS: usize = wire::encoded_len(BIND_TAG_BYTES);
/// Domain separation for the request digest `q` (docs/format.md, "q: the request digest").
pub(crate) const REQUEST_LABEL: &[u8] = b"mcp-sealed-state/v1/request:";

/// How to build a [`Codec`]: the keys and the limits. Keys are copied at
/// construction.
///
/// ```
/// use mcp_sealed_state::{Codec, CodecOptions};
///
/// let mut options = CodecOptions::with_keys(vec![[7u8; 32]]);
/// options.ttl_seconds = 60;
/// let codec = Codec::new(options)?;
/// # Ok::<(), mcp_sealed_state::ConfigError>(())
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct CodecOptions<K> {
    /// The keys, each at least [`MIN_KEY_BYTES`](crate::MIN_KEY_BYTES) long:
    /// the first seals, every one opens (rotation). `None` is no key: the
    /// process's development key, or [`KeyError::Missing`] when
    /// `production` is set. An empty list is [`KeyError::Empty`], never the
    /// development key.
    pub keys: Option<Vec<K>>,
    /// Seconds from sealing to `exp` ([`DEFAULT_TTL_SECONDS`]).
    pub ttl_seconds: i64,
    /// Seconds past `exp` that a token still opens (0; never negative).
    pub leeway_seconds: i64,
    /// Longest token sealed or opened, in bytes ([`DEFAULT_MAX_TOKEN_BYTES`]);
    /// a longer token is refused before any hashing.
    pub max_token_bytes: usize,
    /// Longest canonical text of a request, in bytes
    /// ([`DEFAULT_MAX_REQUEST_BYTES`]); a longer one is
    /// [`SealError::RequestTooLarge`] when sealing and [`Reason::Request`]
    /// when opening, and is never hashed.
    pub max_request_bytes: usize,
    /// Refuse to build without a key, rather than use the development key.
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
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            production: false,
            now: Clock::system(),
        }
    }
}

/// The keys print as `<redacted>`, one per key.
impl<K> core::fmt::Debug for CodecOptions<K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CodecOptions")
            .field(
                "keys",
                &self.keys.as_ref().map(|keys| RedactedList(keys.len())),
            )
            .field("ttl_seconds", &self.ttl_seconds)
            .field("leeway_seconds", &self.leeway_seconds)
            .field("max_token_bytes", &self.max_token_bytes)
            .field("max_request_bytes", &self.max_request_bytes)
            .field("production", &self.production)
            .field("now", &self.now)
            .finish()
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
#[non_exhaustive]
pub enum ConfigError {
    /// The keys are refused (too short, missing in production, listed twice,
    /// an empty list, or no randomness for the development key).
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
            ConfigError::NegativeLeeway => f.write_str("leeway_seconds must not be negative"),
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Key(e) => Some(e),
            ConfigError::NegativeLeeway => None,
        }
    }
}

/// Why a payload could not be sealed. The codec is unchanged by any of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SealError {
    /// The payload is not one JSON text.
    PayloadNotJson,
    /// The secret is not one JSON text.
    SecretNotJson,
    /// The sealed token would be longer than `max_token_bytes`, so this codec
    /// could not open it again.
    TokenTooLarge {
        /// The token's length, in bytes (for a secret alone: its part's).
        bytes: usize,
        /// The codec's `max_token_bytes`.
        max_bytes: usize,
    },
    /// The request has no RFC 8785 canonical form (or is not JSON).
    Request(JcsError),
    /// The request's canonical text is longer than `max_request_bytes`.
    RequestTooLarge {
        /// Bytes of the canonical text written when it passed the bound
        /// (canonicalizing stops there, so the whole may be longer); for a
        /// [`Request::Canonical`] text, its own length.
        bytes: usize,
        /// The codec's `max_request_bytes`.
        max_bytes: usize,
    },
    /// A request on a view or raw token, or a secret on a raw token: only a
    /// `requestState` token binds a request, and a raw token has no purpose
    /// envelope to carry either.
    NotCarried,
    /// The clock is not finite, or outside the range of a JS `Date`.
    InvalidClock,
    /// The platform's random number generator failed to give a nonce.
    NoRandomness,
    /// The allocator refused room for the token.
    OutOfMemory,
}

impl core::fmt::Display for SealError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SealError::PayloadNotJson => f.write_str("the payload is not valid JSON text"),
            SealError::SecretNotJson => f.write_str("the secret is not valid JSON text"),
            SealError::TokenTooLarge { bytes, max_bytes } => write!(
                f,
                "the sealed token is {bytes} bytes, over max_token_bytes ({max_bytes})"
            ),
            SealError::Request(e) => e.fmt(f),
            SealError::RequestTooLarge { bytes, max_bytes } => write!(
                f,
                "the request's canonical text is over max_request_bytes ({max_bytes}): at least {bytes} bytes"
            ),
            SealError::NotCarried => f.write_str(
                "only a requestState token binds a request, and a raw token carries no secret",
            ),
            SealError::InvalidClock => {
                f.write_str("the clock is not a finite number of milliseconds")
            }
            SealError::NoRandomness => f.write_str("the platform's random number generator failed"),
            SealError::OutOfMemory => f.write_str("out of memory for the sealed token"),
        }
    }
}

impl std::error::Error for SealError {}

/// The arguments of the request a `requestState` token answers, bound by
/// the digest of their RFC 8785 canonical form (docs/format.md, "q").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Request<'a> {
    /// JSON text, canonicalized here: member order and spelling do not matter.
    #[cfg(feature = "jcs")]
    #[cfg_attr(docsrs, doc(cfg(feature = "jcs")))]
    Json(&'a str),
    /// A `serde_json` value, canonicalized here.
    #[cfg(feature = "serde")]
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    Value(&'a serde_json::Value),
    /// Text already in RFC 8785 form, digested exactly as given (the wasm
    /// build's glue canonicalizes in JS). Text that is not canonical only
    /// fails to match, so it fails closed.
    Canonical(&'a str),
}

/// A text that may be absent, as [`SealWith`] and [`OpenWith`] take their
/// bind value and secret: a `&str`, a `&String`, or an `Option<&str>`
/// (`None`: none).
pub trait MaybeStr<'a>: sealed::Sealed {
    /// The text, or `None`.
    fn into_option(self) -> Option<&'a str>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for &str {}
    impl Sealed for &String {}
    impl Sealed for Option<&str> {}
}

impl<'a> MaybeStr<'a> for &'a str {
    fn into_option(self) -> Option<&'a str> {
        Some(self)
    }
}

impl<'a> MaybeStr<'a> for &'a String {
    fn into_option(self) -> Option<&'a str> {
        Some(self.as_str())
    }
}

impl<'a> MaybeStr<'a> for Option<&'a str> {
    fn into_option(self) -> Option<&'a str> {
        self
    }
}

/// What a token is sealed as and with: its purpose, and optionally a bind
/// value, a secret (JSON text only a key holder reads) and, for
/// `requestState`, the request. Built from [`SealWith::view`],
/// [`SealWith::request_state`] or [`SealWith::raw`].
///
/// ```
/// use mcp_sealed_state::SealWith;
///
/// let with = SealWith::view().bind("user-42").secret(r#"{"cursor":"c-17"}"#);
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SealWith<'a> {
    pub(crate) purpose: Purpose<&'a str>,
    pub(crate) bind: Option<&'a str>,
    pub(crate) secret: Option<&'a str>,
    pub(crate) request: Option<Request<'a>>,
}

/// What a token must be to open: its purpose, and the bind value and request
/// it was sealed with (a token sealed with one opens only with the same, and
/// one sealed without opens only without). Built from [`OpenWith::view`],
/// [`OpenWith::request_state`] or [`OpenWith::raw`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenWith<'a> {
    pub(crate) purpose: Purpose<&'a str>,
    pub(crate) bind: Option<&'a str>,
    pub(crate) request: Option<Request<'a>>,
}

/// The secret prints as `<redacted>`.
impl core::fmt::Debug for SealWith<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SealWith")
            .field("purpose", &self.purpose)
            .field("bind", &self.bind)
            .field("secret", &redacted::option(&self.secret))
            .field("request", &self.request)
            .finish()
    }
}

impl<'a> SealWith<'a> {
    /// A token of `purpose`, with nothing else.
    pub const fn new(purpose: Purpose<&'a str>) -> Self {
        SealWith {
            purpose,
            bind: None,
            secret: None,
            request: None,
        }
    }

    /// A View's token: `{"p":"v","d":payload}`.
    pub const fn view() -> Self {
        SealWith::new(Purpose::View)
    }

    /// An MRTR `requestState` token for `tool`: `{"p":"r","d":payload,"o":tool}`.
    pub const fn request_state(tool: &'a str) -> Self {
        SealWith::new(Purpose::RequestState(tool))
    }

    /// The SDK's raw token (its `mint`): the payload is all of `p`.
    pub const fn raw() -> Self {
        SealWith::new(Purpose::Raw)
    }

    /// Bind the token to a value (a user, a tenant, a session); `None` for
    /// none. Only its tag is in the token.
    pub fn bind(self, value: impl MaybeStr<'a>) -> Self {
        SealWith {
            bind: value.into_option(),
            ..self
        }
    }

    /// Carry a secret, JSON text only a key holder reads; `None` for none.
    pub fn secret(self, json: impl MaybeStr<'a>) -> Self {
        SealWith {
            secret: json.into_option(),
            ..self
        }
    }

    /// Bind the request's arguments (a `requestState` token only).
    pub fn request(self, request: impl Into<Option<Request<'a>>>) -> Self {
        SealWith {
            request: request.into(),
            ..self
        }
    }
}

impl Default for SealWith<'_> {
    /// A view token.
    fn default() -> Self {
        SealWith::view()
    }
}

impl<'a> OpenWith<'a> {
    /// A token of `purpose`, with no bind value and no request.
    pub const fn new(purpose: Purpose<&'a str>) -> Self {
        OpenWith {
            purpose,
            bind: None,
            request: None,
        }
    }

    /// A View's token.
    pub const fn view() -> Self {
        OpenWith::new(Purpose::View)
    }

    /// An MRTR `requestState` token sealed for `tool`.
    pub const fn request_state(tool: &'a str) -> Self {
        OpenWith::new(Purpose::RequestState(tool))
    }

    /// The SDK's raw token (its `verify`): the whole `p` is the payload.
    pub const fn raw() -> Self {
        OpenWith::new(Purpose::Raw)
    }

    /// The value the token must be bound to; `None`: it must be unbound.
    pub fn bind(self, value: impl MaybeStr<'a>) -> Self {
        OpenWith {
            bind: value.into_option(),
            ..self
        }
    }

    /// The request the token must have been sealed with; `None`: it must
    /// have been sealed without one. A view or raw token never opens with one.
    pub fn request(self, request: impl Into<Option<Request<'a>>>) -> Self {
        OpenWith {
            request: request.into(),
            ..self
        }
    }
}

impl Default for OpenWith<'_> {
    /// A view token.
    fn default() -> Self {
        OpenWith::view()
    }
}

/// An opened token: the payload, and the secret when the token has one.
/// `Debug` prints the secret as `<redacted>`.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Opened {
    /// The payload, exactly the JSON text that was sealed.
    pub payload: Payload,
    /// The secret's JSON text, decrypted; `None` when the token carries none.
    pub secret: Option<String>,
}

impl core::fmt::Debug for Opened {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Opened")
            .field("payload", &self.payload)
            .field("secret", &redacted::option(&self.secret))
            .finish()
    }
}

impl Opened {
    /// The payload as JSON text.
    pub fn payload_json(&self) -> &str {
        self.payload.payload_json()
    }
}

/// Seals and opens tokens. Cheap to clone and share; every method takes `&self`.
#[derive(Clone, Debug)]
pub struct Codec {
    keys: Keys,
    ttl_seconds: i64,
    leeway_seconds: i64,
    max_token_bytes: usize,
    max_request_bytes: usize,
    clock: Clock,
}

impl Codec {
    /// Build a codec. With no keys, outside production, it uses a random
    /// development key and prints a warning to stderr once per process.
    pub fn new<K: AsRef<[u8]>>(options: CodecOptions<K>) -> Result<Codec, ConfigError> {
        if options.leeway_seconds < 0 {
            return Err(ConfigError::NegativeLeeway);
        }
        let keys = Keys::new(options.keys.as_deref(), options.production)?;
        #[cfg(not(target_arch = "wasm32"))]
        if keys.is_ephemeral() && crate::keys::ephemeral_warning_due() {
            eprintln!("{DEV_KEY_WARNING}");
        }
        Ok(Codec {
            keys,
            ttl_seconds: options.ttl_seconds,
            leeway_seconds: options.leeway_seconds,
            max_token_bytes: options.max_token_bytes,
            max_request_bytes: options.max_request_bytes,
            clock: options.now,
        })
    }

    /// Whether it runs on the development key.
    pub fn is_ephemeral(&self) -> bool {
        self.keys.is_ephemeral()
    }

    /// The size limit of this codec's tokens, in bytes.
    pub fn max_token_bytes(&self) -> usize {
        self.max_token_bytes
    }

    /// The codec's clock, read now, in ms (for the typed open).
    #[cfg(feature = "serde")]
    pub(crate) fn now_ms(&self) -> f64 {
        self.clock.now_ms()
    }

    /// Seconds past `exp` that a token still opens.
    pub(crate) fn leeway_seconds(&self) -> i64 {
        self.leeway_seconds
    }

    /// Seal `payload_json` (one JSON text) as `with` says, expiring
    /// `ttl_seconds` from now.
    ///
    /// ```
    /// use mcp_sealed_state::{Codec, CodecOptions, OpenWith, SealWith};
    ///
    /// let codec = Codec::new(CodecOptions::with_keys(vec![[7u8; 32]]))?;
    /// let token = codec.seal(r#"{"step":2}"#, &SealWith::request_state("move").bind("user-42"))?;
    /// let opened = codec.open(&token, &OpenWith::request_state("move").bind("user-42"))?;
    /// assert_eq!(opened.payload_json(), r#"{"step":2}"#);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn seal(&self, payload_json: &str, with: &SealWith<'_>) -> Result<String, SealError> {
        let mut token = Vec::new();
        let now_ms = self.clock.now_ms();
        self.seal_into(with, Some(payload_json), now_ms, &mut token)?;
        // The token is ASCII, so this never falls back to the empty string.
        Ok(String::from_utf8(token).unwrap_or_default())
    }

    /// Open `token` as `with` says: its payload, and its secret decrypted
    /// when it has one. Every failure has the same message; its
    /// [`reason`](SealedStateError::reason) is for the server's log.
    pub fn open(&self, token: &str, with: &OpenWith<'_>) -> Result<Opened, SealedStateError> {
        let now_ms = self.clock.now_ms();
        self.open_as_with(token.as_bytes(), with, true, now_ms)
    }

    /// The one sealing path: check the clock, the payload and what `with`
    /// carries, then write the token's (ASCII) bytes over `out`, which the
    /// wasm bindings keep between calls. On an error `out` holds no token.
    /// No payload (JS `undefined`, which the SDK's `mint` takes) is for a
    /// raw token only. The secret is checked, and the token's size computed,
    /// before anything is encrypted or written.
    pub(crate) fn seal_into(
        &self,
        with: &SealWith<'_>,
        payload_json: Option<&str>,
        now_ms: f64,
        out: &mut Vec<u8>,
    ) -> Result<(), SealError> {
        let SealWith {
            purpose,
            bind,
            secret: secret_json,
            request,
        } = *with;
        out.clear();
        let now = clock::unix_seconds(now_ms).ok_or(SealError::InvalidClock)?;
        let valid = match payload_json {
            Some(json) => json::is_valid(json),
            None => purpose == Purpose::Raw,
        };
        if !valid {
            return Err(SealError::PayloadNotJson);
        }
        let carried = match purpose {
            Purpose::Raw => secret_json.is_none() && request.is_none(),
            Purpose::View => request.is_none(),
            Purpose::RequestState(_) => true,
        };
        if !carried {
            return Err(SealError::NotCarried);
        }
        if secret_json.is_some_and(|s| !json::is_valid(s)) {
            return Err(SealError::SecretNotJson);
        }
        // Refuse an oversize secret before paying for its encryption.
        let secret_chars = match secret_json {
            Some(s) => secret::sealed_len(s.len()).ok_or(SealError::OutOfMemory)?,
            None => 0,
        };
        if secret_chars > self.max_token_bytes {
            return Err(SealError::TokenTooLarge {
                bytes: secret_chars,
                max_bytes: self.max_token_bytes,
            });
        }
        let canonical = match request {
            Some(request) => Some(self.request_text(request)?),
            None => None,
        };
        let exp = now.saturating_add(self.ttl_seconds);
        let Some(key) = self.keys.sealing() else {
            return Err(SealError::OutOfMemory); // unreachable: `Keys` always holds a key
        };
        let mut tag_buf = [0u8; BIND_TAG_CHARS];
        let tag = bind.map(|value| bind_tag(&key.mac, value, &mut tag_buf));
        let mut q_buf = [0u8; BIND_TAG_CHARS];
        let q = canonical
            .as_deref()
            .map(|text| request_digest(&key.mac, text, &mut q_buf));
        let sealed = match secret_json {
            Some(json) => Some(
                secret::seal(&key.secret, purpose, json).map_err(|e| match e {
                    secret::SealFailure::NoRandomness => SealError::NoRandomness,
                    secret::SealFailure::OutOfMemory => SealError::OutOfMemory,
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
            });
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

    /// The text a request's digest is taken over: its canonical form, within
    /// `max_request_bytes`. A [`Request::Canonical`] text is measured before
    /// it is read at all.
    fn request_text<'r>(&self, request: Request<'r>) -> Result<Cow<'r, str>, SealError> {
        let too_large = |bytes| SealError::RequestTooLarge {
            bytes,
            max_bytes: self.max_request_bytes,
        };
        #[cfg(feature = "jcs")]
        let bounded = |e| match e {
            crate::jcs::Bounded::Jcs(e) => SealError::Request(e),
            crate::jcs::Bounded::TooLarge(bytes) => too_large(bytes),
        };
        let text = match request {
            Request::Canonical(text) => {
                if text.len() > self.max_request_bytes {
                    return Err(too_large(text.len()));
                }
                if !json::is_valid(text) {
                    return Err(SealError::Request(JcsError::NotJson));
                }
                crate::jcs::check_text(text).map_err(SealError::Request)?;
                Cow::Borrowed(text)
            }
            // Canonicalized within the bound, so an oversized request stops
            // there rather than being read to its end.
            #[cfg(feature = "jcs")]
            Request::Json(text) => Cow::Owned(
                crate::jcs::canonicalize_within(text, self.max_request_bytes).map_err(bounded)?,
            ),
            #[cfg(feature = "serde")]
            Request::Value(value) => Cow::Owned(
                crate::jcs::canonicalize_value_within(value, self.max_request_bytes)
                    .map_err(bounded)?,
            ),
        };
        Ok(text)
    }

    /// The one opening path. A clock that cannot be read fails the expiry
    /// step (no token can be shown fresh by it); a body too large for the
    /// memory at hand fails the body step. The token is bytes (the glue's,
    /// unchecked): any byte that is not ASCII fails the shape step. The
    /// secret is decrypted (step 8) when `with_secret`, with the key whose
    /// MAC matched, else left sealed.
    pub(crate) fn open_as_with(
        &self,
        token: &[u8],
        with: &OpenWith<'_>,
        with_secret: bool,
        now_ms: f64,
    ) -> Result<Opened, SealedStateError> {
        let OpenWith {
            purpose: expect,
            bind,
            request,
        } = *with;
        // 0. A request with no canonical form within the bound can match no
        // token: refused before the token is read, as the JS glue refuses it
        // before calling in.
        let request = match request {
            Some(request) => Some(self.request_text(request).map_err(|_| Reason::Request)?),
            None => None,
        };
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
            Purpose::Raw => {
                // 7. A raw token binds no request: one asked for never opens.
                if request.is_some() {
                    return Err(Reason::Request.into());
                }
                (env.p, None)
            }
            _ => {
                let claim = env.claim_all();
                if claim.purpose.as_deref() != expect {
                    return Err(Reason::Purpose.into());
                }
                // 7. request: fail closed both ways, as for the bind tag.
                check_request(&key.mac, request.as_deref(), claim.request)?;
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

/// Step 7: a token sealed with a request opens only with the same request
/// (`canonical`, its canonical form from step 0), and one sealed without
/// opens only without. `raw_q` is the raw JSON of `q`.
fn check_request(
    key: &HmacSha256,
    canonical: Option<&str>,
    raw_q: Option<&str>,
) -> Result<(), SealedStateError> {
    check_tag(
        canonical.map(|c| request_mac(key, c)),
        raw_q,
        Reason::Request,
    )
}

/// Step 5: fail closed on configuration drift in both directions. `raw_tag`
/// is the raw JSON of `b`.
pub(crate) fn check_binding(
    key: &Key,
    bind: Option<&str>,
    raw_tag: Option<&str>,
) -> Result<(), SealedStateError> {
    check_tag(bind.map(|v| bind_mac(&key.mac, v)), raw_tag, Reason::Bind)
}

/// A tag (`b` or `q`) is in the token exactly when the caller gives a value,
/// and is the first 16 bytes of that value's MAC (`expected`). A tag is a
/// string of the canonical spelling of 16 bytes, so comparing bytes compares
/// the strings the SDK compares.
fn check_tag(
    expected: Option<HmacSha256>,
    raw_tag: Option<&str>,
    reason: Reason,
) -> Result<(), SealedStateError> {
    match (expected, raw_tag) {
        (None, None) => Ok(()),
        (Some(mac), Some(raw_tag)) => {
            let tag = envelope::string_value(raw_tag)
                .and_then(|t| wire::decode_exact::<BIND_TAG_BYTES>(t.as_bytes()))
                .ok_or(reason)?;
            mac.verify_truncated_left(&tag).map_err(|_| reason.into())
        }
        _ => Err(reason.into()),
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

fn request_mac(key: &HmacSha256, canonical: &str) -> HmacSha256 {
    key.clone()
        .chain_update(REQUEST_LABEL)
        .chain_update(canonical.as_bytes())
}

/// `q`: `b64url(HMAC(key, "mcp-sealed-state/v1/request:" + canonical)[0..16])`,
/// written into `buf` (no allocation).
fn request_digest<'b>(
    key: &HmacSha256,
    canonical: &str,
    buf: &'b mut [u8; BIND_TAG_CHARS],
) -> &'b str {
    let full = request_mac(key, canonical).finalize().into_bytes();
    wire::encode_to(full.get(..BIND_TAG_BYTES).unwrap_or(&[]), buf);
    // base64url is ASCII, so this never falls back.
    core::str::from_utf8(buf).unwrap_or("")
}
