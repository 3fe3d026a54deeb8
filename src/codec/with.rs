//! What a call seals and opens with ([`SealWith`], [`OpenWith`]) and what an
//! opening gives ([`Opened`]).

use super::request::{MaybeStr, Request};
use crate::payload::Payload;
use crate::purpose::Purpose;
use crate::redacted;

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
