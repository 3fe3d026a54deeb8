//! Typed payloads (the `serde` feature): seal any `T: Serialize`, open into
//! any `T: DeserializeOwned`, over the JSON-text [`Codec`].
//!
//! ```
//! use mcp_sealed_state::{Codec, CodecOptions, OpenWith, SealWith};
//! use mcp_sealed_state::typed::OpenError;
//!
//! #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
//! struct Game { board: String, turn: u8 }
//!
//! let codec = Codec::new(CodecOptions::with_keys(vec![b"an example key of at least 32 bytes!".to_vec()]))?;
//! let game = Game { board: "X...O....".into(), turn: 2 };
//! let token = codec.typed().seal(&game, &SealWith::view().bind("user-1"))?;
//! assert_eq!(codec.typed().open::<Game>(&token, &OpenWith::view().bind("user-1"))?, game);
//!
//! // A genuine token whose payload is not a `Vec<u8>`: not a token failure.
//! match codec.typed().open::<Vec<u8>>(&token, &OpenWith::view().bind("user-1")) {
//!     Err(OpenError::Payload(_)) => {}
//!     other => panic!("{other:?}"),
//! }
//! // Another principal: a token failure, with its reason for the server log.
//! match codec.typed().open::<Game>(&token, &OpenWith::view().bind("user-2")) {
//!     Err(OpenError::Token(e)) => assert_eq!(e.reason().as_str(), "bind"),
//!     other => panic!("{other:?}"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
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

use crate::codec::{Codec, OpenWith, SealError, SealWith};
use crate::error::SealedStateError;

/// Why a value could not be sealed.
#[derive(Debug)]
#[non_exhaustive]
pub enum SealValueError {
    /// `serde_json` could not serialize the value or the secret (a map with
    /// non-string keys, or a `Serialize` impl that failed).
    Serialize(serde_json::Error),
    /// The codec refused to seal it (for example, the token would exceed
    /// `max_token_bytes`).
    Seal(SealError),
    /// [`Typed::seal_with_secret`] with a `with` that carries a secret of
    /// its own: a token has one secret.
    TwoSecrets,
}

impl core::fmt::Display for SealValueError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SealValueError::Serialize(e) => write!(f, "the value could not be serialized: {e}"),
            SealValueError::Seal(e) => e.fmt(f),
            SealValueError::TwoSecrets => {
                f.write_str("a secret is given twice (as a value and on the SealWith)")
            }
        }
    }
}

impl std::error::Error for SealValueError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SealValueError::Serialize(e) => Some(e),
            SealValueError::Seal(e) => Some(e),
            SealValueError::TwoSecrets => None,
        }
    }
}

impl From<SealError> for SealValueError {
    fn from(e: SealError) -> Self {
        SealValueError::Seal(e)
    }
}

/// Why a token could not be opened as a `T`.
///
/// The cases mean different things and call for different answers:
/// [`OpenError::Token`] is a token that is not genuine, expired, for another
/// principal or another purpose (tell the client only
/// [`crate::SEALED_STATE_INVALID_MESSAGE`]); [`OpenError::Payload`] and
/// [`OpenError::Secret`] are a genuine token, sealed with this key, whose
/// payload or secret is not of the type asked for (a schema change between
/// releases, or a token of another kind of state). These three are all there
/// is (exhaustive on purpose, so a `match` needs no fallback arm).
#[derive(Debug)]
pub enum OpenError {
    /// The token failed to open; `Display` is the stable message.
    Token(SealedStateError),
    /// The token is genuine, but its payload does not deserialize. serde's
    /// message may quote the payload, which anyone holding the token can
    /// read anyway (it is not encrypted).
    Payload(serde_json::Error),
    /// The token is genuine, but its secret does not deserialize. The secret
    /// is decrypted text, so this keeps only serde's category and position,
    /// never a byte of it.
    Secret(SecretMismatch),
}

/// Where a decrypted secret failed to deserialize: serde's category of the
/// failure and its position, and nothing of the secret's text (serde's own
/// message quotes it: `invalid type: string "sk-live-…"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SecretMismatch {
    category: serde_json::error::Category,
    line: usize,
    column: usize,
}

impl SecretMismatch {
    fn new(e: &serde_json::Error) -> Self {
        SecretMismatch {
            category: e.classify(),
            line: e.line(),
            column: e.column(),
        }
    }

    /// serde_json's category: `Data` for a value of another type or shape,
    /// `Syntax` or `Eof` for text that is not JSON.
    pub fn category(&self) -> serde_json::error::Category {
        self.category
    }

    /// The line of the secret's JSON where it failed, from 1.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The column of the secret's JSON where it failed, from 1.
    pub fn column(&self) -> usize {
        self.column
    }
}

impl core::fmt::Display for SecretMismatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use serde_json::error::Category;
        let what = match self.category {
            Category::Data => "a value of another type or shape",
            Category::Syntax | Category::Eof => "not JSON of that type",
            Category::Io => "unreadable",
        };
        write!(
            f,
            "the sealed secret is not of the expected type: {what} at line {}, column {} \
             (its text is not shown)",
            self.line, self.column
        )
    }
}

impl std::error::Error for SecretMismatch {}

impl OpenError {
    /// The token failure, if this is one.
    pub fn token_error(&self) -> Option<&SealedStateError> {
        match self {
            OpenError::Token(e) => Some(e),
            OpenError::Payload(_) | OpenError::Secret(_) => None,
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
            OpenError::Secret(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for OpenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OpenError::Token(e) => Some(e),
            OpenError::Payload(e) => Some(e),
            OpenError::Secret(e) => Some(e),
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
/// has passed. A request is given as [`crate::Request::Value`] (or as JSON
/// text) on the [`SealWith`] and [`OpenWith`].
#[derive(Clone, Copy, Debug)]
pub struct Typed<'a> {
    codec: &'a Codec,
}

/// A token opened by [`Typed::open_with_secret`]: the payload and the
/// secret. `Debug` prints the secret as `<redacted>`.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OpenedValue<T, S> {
    /// The payload.
    pub payload: T,
    /// The secret; `None` when the token carries none.
    pub secret: Option<S>,
}

impl<T: core::fmt::Debug, S> core::fmt::Debug for OpenedValue<T, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("OpenedValue")
            .field("payload", &self.payload)
            .field("secret", &crate::redacted::option(&self.secret))
            .finish()
    }
}

impl Codec {
    /// Seal and open `serde` values with this codec.
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
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

/// The secret into an `S`; its error keeps nothing of the text.
fn secret_from_json<S: DeserializeOwned>(json: &str) -> Result<S, OpenError> {
    serde_json::from_str(json).map_err(|e| OpenError::Secret(SecretMismatch::new(&e)))
}

impl Typed<'_> {
    /// [`Codec::seal`] for a `T: Serialize`; a secret on `with` is JSON text.
    pub fn seal<T: Serialize + ?Sized>(
        &self,
        value: &T,
        with: &SealWith<'_>,
    ) -> Result<String, SealValueError> {
        Ok(self.codec.seal(&to_json(value)?, with)?)
    }

    /// [`Codec::seal`] for a `T: Serialize` with a secret `S: Serialize`,
    /// which only a key holder reads. `with` must carry no secret of its own.
    pub fn seal_with_secret<T: Serialize + ?Sized, S: Serialize + ?Sized>(
        &self,
        value: &T,
        secret: &S,
        with: &SealWith<'_>,
    ) -> Result<String, SealValueError> {
        if with.secret.is_some() {
            return Err(SealValueError::TwoSecrets);
        }
        let secret = to_json(secret)?;
        let with = with.secret(secret.as_str());
        Ok(self.codec.seal(&to_json(value)?, &with)?)
    }

    /// [`Codec::open`] into a `T` (a secret, if any, is left unread).
    pub fn open<T: DeserializeOwned>(
        &self,
        token: &str,
        with: &OpenWith<'_>,
    ) -> Result<T, OpenError> {
        let opened = self
            .codec
            .open_as_with(token.as_bytes(), with, false, self.codec.now_ms())?;
        from_json(opened.payload_json())
    }

    /// [`Codec::open`] into a `T` and the secret, if the token has one, into an `S`.
    pub fn open_with_secret<T: DeserializeOwned, S: DeserializeOwned>(
        &self,
        token: &str,
        with: &OpenWith<'_>,
    ) -> Result<OpenedValue<T, S>, OpenError> {
        let opened = self.codec.open(token, with)?;
        Ok(OpenedValue {
            payload: from_json(opened.payload_json())?,
            secret: opened.secret.as_deref().map(secret_from_json).transpose()?,
        })
    }
}
