//! Why a payload could not be sealed.

use crate::jcs::JcsError;

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
        /// [`Request::Canonical`](super::Request::Canonical) text, its own length.
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
