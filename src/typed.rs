//! Typed payloads (the `serde` feature): seal any `T: Serialize`, open into
//! any `T: DeserializeOwned`, over the JSON-text [`Codec`].
//!
//! ```
//! use mcp_sealed_state::{Codec, CodecOptions};
//! use mcp_sealed_state::typed::OpenError;
//!
//! #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
//! struct Game { board: String, turn: u8 }
//!
//! let codec = Codec::new(CodecOptions::with_keys(vec![b"an example key of at least 32 bytes!".to_vec()])).unwrap();
//! let game = Game { board: "X...O....".into(), turn: 2 };
//! let token = codec.typed().seal(&game, Some("user-1")).unwrap();
//! assert_eq!(codec.typed().open::<Game>(&token, Some("user-1")).unwrap(), game);
//!
//! // A genuine token whose payload is not a `Vec<u8>`: not a token failure.
//! match codec.typed().open::<Vec<u8>>(&token, Some("user-1")) {
//!     Err(OpenError::Payload(_)) => {}
//!     other => panic!("{other:?}"),
//! }
//! // Another principal: a token failure, with its reason for the server log.
//! match codec.typed().open::<Game>(&token, Some("user-2")) {
//!     Err(OpenError::Token(e)) => assert_eq!(e.reason().as_str(), "bind"),
//!     other => panic!("{other:?}"),
//! }
//! ```
//!
//! The payload JSON is what `serde_json` writes. For the same key, clock and
//! binding the token is byte-identical to the SDK's exactly when that text is
//! what `JSON.stringify` writes for the same value. It is not for:
//!
//! - floats that JS writes without an exponent: serde_json (1.0.154) writes
//!   `1e+20` and `1e-6` where JS writes `100000000000000000000` and `0.000001`
//!   (JS uses exponents only from `1e21` and below `1e-6`; serde_json from
//!   `1e16` and below `1e-5`). Where both use one they agree: `1e+21`,
//!   `1.5e-7`, `5e-324`;
//! - floats with an integral value: `1.0_f64` is `1.0` in serde_json, `1` in JS;
//!   `-0.0` is `-0.0`, JS writes `0`;
//! - integers beyond 2^53: serde_json writes every digit, JS has already
//!   rounded the number;
//! - map order: a `HashMap` has no order; JS writes integer-like keys first, in
//!   ascending order, then the rest in insertion order.
//!
//! Such tokens differ from the SDK's but are just as valid: both sides parse
//! either text into the same value, so each opens the other's tokens.
//! Strings are escaped alike (`\b \f \n \r \t \" \\`, other controls as
//! `\u00XX`, nothing else), and NaN and infinities are `null` in both.

use serde::{de::DeserializeOwned, Serialize};

use crate::codec::{self, Codec};
use crate::error::SealedStateError;

/// Why a value could not be sealed.
#[derive(Debug)]
pub enum SealValueError {
    /// `serde_json` could not serialize the value (a map with non-string keys,
    /// or a `Serialize` impl that failed).
    Serialize(serde_json::Error),
    /// The codec refused to seal it (for example, the token would exceed
    /// `max_token_bytes`).
    Codec(codec::SealError),
    /// The codec refused the secret or the request (see [`codec::SealWithError`]).
    With(codec::SealWithError),
}

impl core::fmt::Display for SealValueError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SealValueError::Serialize(e) => write!(f, "the payload could not be serialized: {e}"),
            SealValueError::Codec(e) => e.fmt(f),
            SealValueError::With(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SealValueError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SealValueError::Serialize(e) => Some(e),
            SealValueError::Codec(e) => Some(e),
            SealValueError::With(e) => Some(e),
        }
    }
}

/// Why a token could not be opened as a `T`.
///
/// The two cases mean different things and call for different answers:
/// [`OpenError::Token`] is a token that is not genuine, expired, for another
/// principal or another purpose (tell the client only
/// [`crate::SEALED_STATE_INVALID_MESSAGE`]); [`OpenError::Payload`] is a
/// genuine token, sealed with this key, whose payload is not a `T` (a schema
/// change between releases, or a token of another kind of state).
#[derive(Debug)]
pub enum OpenError {
    /// The token failed to open; `Display` is the stable message.
    Token(SealedStateError),
    /// The token is genuine, but its payload does not deserialize into `T`.
    Payload(serde_json::Error),
}

impl OpenError {
    /// The token failure, if this is one.
    pub fn token_error(&self) -> Option<&SealedStateError> {
        match self {
            OpenError::Token(e) => Some(e),
            OpenError::Payload(_) => None,
        }
    }
}

impl core::fmt::Display for OpenError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            OpenError::Token(e) => e.fmt(f),
            OpenError::Payload(e) => {
                write!(f, "the sealed payload is not of the expected type: {e}")
            }
        }
    }
}

impl std::error::Error for OpenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OpenError::Token(e) => Some(e),
            OpenError::Payload(e) => Some(e),
        }
    }
}

impl From<SealedStateError> for OpenError {
    fn from(e: SealedStateError) -> Self {
        OpenError::Token(e)
    }
}

/// The typed face of a [`Codec`]: `codec.typed()`. Same tokens, same checks,
/// in the same order; a payload is deserialized only after every token check
/// has passed.
#[derive(Clone, Copy, Debug)]
pub struct Typed<'a> {
    codec: &'a Codec,
}

impl Codec {
    /// Seal and open `serde` values with this codec.
    pub fn typed(&self) -> Typed<'_> {
        Typed { codec: self }
    }
}

fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, SealValueError> {
    serde_json::to_string(value).map_err(SealValueError::Serialize)
}

fn from_json<T: DeserializeOwned>(json: &str) -> Result<T, OpenError> {
    serde_json::from_str(json).map_err(OpenError::Payload)
}

/// A secret, if any, as JSON text.
fn secret_json<S: Serialize + ?Sized>(
    secret: Option<&S>,
) -> Result<Option<String>, SealValueError> {
    secret.map(to_json).transpose()
}

/// The payload as a `T` and the secret, if the token has one, as an `S`.
fn opened<T: DeserializeOwned, S: DeserializeOwned>(
    o: codec::Opened,
) -> Result<(T, Option<S>), OpenError> {
    let payload = from_json(o.payload.payload_json())?;
    let secret = o.secret.as_deref().map(from_json).transpose()?;
    Ok((payload, secret))
}

/// What a typed requestState token binds besides its tool: a principal and
/// the request's arguments (compared by their RFC 8785 canonical form).
#[derive(Clone, Copy, Debug, Default)]
pub struct RequestWith<'a> {
    pub bind: Option<&'a str>,
    pub request: Option<&'a serde_json::Value>,
}

impl RequestWith<'_> {
    /// The request as JSON text (a `Value` always serializes).
    fn request_json(&self) -> Option<String> {
        self.request.map(serde_json::Value::to_string)
    }
}

impl Typed<'_> {
    /// [`Codec::seal`] for a `T: Serialize`: a view token.
    pub fn seal<T: Serialize + ?Sized>(
        &self,
        value: &T,
        bind: Option<&str>,
    ) -> Result<String, SealValueError> {
        self.codec
            .seal(&to_json(value)?, bind)
            .map_err(SealValueError::Codec)
    }

    /// [`Codec::seal_request_state`] for a `T: Serialize`.
    pub fn seal_request_state<T: Serialize + ?Sized>(
        &self,
        value: &T,
        tool: &str,
        bind: Option<&str>,
    ) -> Result<String, SealValueError> {
        self.codec
            .seal_request_state(&to_json(value)?, tool, bind)
            .map_err(SealValueError::Codec)
    }

    /// [`Codec::seal_with_secret`]: a view token with a readable `T` and a
    /// secret `S` only a key holder reads.
    pub fn seal_with_secret<T: Serialize + ?Sized, S: Serialize + ?Sized>(
        &self,
        value: &T,
        secret: Option<&S>,
        bind: Option<&str>,
    ) -> Result<String, SealValueError> {
        let secret = secret_json(secret)?;
        self.codec
            .seal_with_secret(&to_json(value)?, secret.as_deref(), bind)
            .map_err(SealValueError::With)
    }

    /// [`Codec::seal_request_state_with`] for serde values.
    pub fn seal_request_state_with<T: Serialize + ?Sized, S: Serialize + ?Sized>(
        &self,
        value: &T,
        tool: &str,
        secret: Option<&S>,
        with: RequestWith<'_>,
    ) -> Result<String, SealValueError> {
        let secret = secret_json(secret)?;
        let request = with.request_json();
        let with = codec::SealWith {
            bind: with.bind,
            secret: secret.as_deref(),
            request: request.as_deref(),
        };
        self.codec
            .seal_request_state_with(&to_json(value)?, tool, with)
            .map_err(SealValueError::With)
    }

    /// [`Codec::open_with_secret`] into a `T` and an `S`.
    pub fn open_with_secret<T: DeserializeOwned, S: DeserializeOwned>(
        &self,
        token: &str,
        bind: Option<&str>,
    ) -> Result<(T, Option<S>), OpenError> {
        opened(self.codec.open_with_secret(token, bind)?)
    }

    /// [`Codec::open_request_state_with`] into a `T` and an `S`.
    pub fn open_request_state_with<T: DeserializeOwned, S: DeserializeOwned>(
        &self,
        token: &str,
        tool: &str,
        with: RequestWith<'_>,
    ) -> Result<(T, Option<S>), OpenError> {
        let request = with.request_json();
        let with = codec::OpenWith {
            bind: with.bind,
            request: request.as_deref(),
        };
        opened(self.codec.open_request_state_with(token, tool, with)?)
    }

    /// [`Codec::mint`] for a `T: Serialize`: a raw v1 token, as the SDK's `mint`.
    pub fn mint<T: Serialize + ?Sized>(
        &self,
        value: &T,
        bind: Option<&str>,
    ) -> Result<String, SealValueError> {
        self.codec
            .mint(&to_json(value)?, bind)
            .map_err(SealValueError::Codec)
    }

    /// [`Codec::open`] into a `T`.
    pub fn open<T: DeserializeOwned>(
        &self,
        token: &str,
        bind: Option<&str>,
    ) -> Result<T, OpenError> {
        from_json(self.codec.open(token, bind)?.payload_json())
    }

    /// [`Codec::open_request_state`] into a `T`.
    pub fn open_request_state<T: DeserializeOwned>(
        &self,
        token: &str,
        tool: &str,
        bind: Option<&str>,
    ) -> Result<T, OpenError> {
        from_json(
            self.codec
                .open_request_state(token, tool, bind)?
                .payload_json(),
        )
    }

    /// [`Codec::verify`] into a `T`: the whole `p` of a raw v1 token.
    pub fn verify<T: DeserializeOwned>(
        &self,
        token: &str,
        bind: Option<&str>,
    ) -> Result<T, OpenError> {
        from_json(self.codec.verify(token, bind)?.payload_json())
    }
}
