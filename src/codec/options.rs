//! How a codec is built: [`CodecOptions`], its defaults, and why building
//! one can fail ([`ConfigError`]).

use crate::clock::Clock;
use crate::keys::KeyError;
use crate::redacted::RedactedList;

/// Default token lifetime, in seconds.
pub const DEFAULT_TTL_SECONDS: i64 = 600;
/// Default grace past `exp`, in seconds: none, an expired token does not open.
pub const DEFAULT_LEEWAY_SECONDS: i64 = 0;
/// Default size limit of a token, in bytes. A 64 KiB payload makes an ~88 KB token.
pub const DEFAULT_MAX_TOKEN_BYTES: usize = 256 * 1024;
/// Default size limit of a request's canonical (RFC 8785) text, in bytes.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 64 * 1024;

/// How to build a [`Codec`](super::Codec): the keys and the limits. Keys are copied at
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
    /// Seconds past `exp` that a token still opens ([`DEFAULT_LEEWAY_SECONDS`]; never negative).
    pub leeway_seconds: i64,
    /// Longest token sealed or opened, in bytes ([`DEFAULT_MAX_TOKEN_BYTES`]);
    /// a longer token is refused before any hashing.
    pub max_token_bytes: usize,
    /// Longest canonical text of a request, in bytes
    /// ([`DEFAULT_MAX_REQUEST_BYTES`]); a longer one is
    /// [`SealError::RequestTooLarge`](super::SealError::RequestTooLarge) when sealing and [`Reason::Request`](crate::Reason::Request)
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
            leeway_seconds: DEFAULT_LEEWAY_SECONDS,
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
