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
use crate::keys::{Key, Keys};
use crate::payload::{self, Payload};
use crate::purpose::Purpose;
use crate::secret;
use crate::wire;

mod options;
mod request;
mod seal_error;
mod tags;
mod with;

pub use options::{
    CodecOptions, ConfigError, DEFAULT_LEEWAY_SECONDS, DEFAULT_MAX_REQUEST_BYTES,
    DEFAULT_MAX_TOKEN_BYTES, DEFAULT_TTL_SECONDS,
};
pub use request::{MaybeStr, Request};
pub use seal_error::SealError;
pub(crate) use tags::check_binding;
use tags::{bind_tag, check_request, request_digest, BIND_TAG_CHARS};
pub use with::{OpenWith, Opened, SealWith};

/// Printed to stderr once per process when a native codec runs on the
/// development key (the JS glue logs its own words, in its options' names).
#[cfg(not(target_arch = "wasm32"))]
const DEV_KEY_WARNING: &str = "mcp-sealed-state: no key configured; using a random development \
key. Tokens will not survive a restart or open in another process. Give CodecOptions a key of at \
least 32 bytes (and set `production` to make a missing key an error).";

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
