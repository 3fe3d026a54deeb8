//! Failure values. Every token failure carries a [`Reason`] for server logs,
//! but its public message is always [`SEALED_STATE_INVALID_MESSAGE`], so a
//! client learns nothing about which check failed.

use core::fmt;

/// The one stable message of every token failure. Chosen once; never change it.
pub const SEALED_STATE_INVALID_MESSAGE: &str =
    "mcp-sealed-state: sealed state is invalid or expired";

/// Which step of opening failed (docs/format.md, "Opening: order and reasons").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u8)]
pub enum Reason {
    /// Shape, size, base64url, UTF-8 or JSON of the token is wrong.
    Malformed = 1,
    /// No configured key made this MAC (or this secret's tag).
    Mac = 2,
    /// `exp` plus the leeway is before the current second.
    Expired = 3,
    /// The bind tag is missing, extra, or for another value.
    Bind = 4,
    /// Another purpose (view or `requestState`) or another tool.
    Purpose = 5,
    /// The request differs from the one sealed, one side has none, or it has no
    /// canonical form.
    Request = 6,
}

impl Reason {
    /// Every reason, in code order (the code is the `repr(u8)` value).
    pub const ALL: [Reason; 6] = [
        Reason::Malformed,
        Reason::Mac,
        Reason::Expired,
        Reason::Bind,
        Reason::Purpose,
        Reason::Request,
    ];

    /// The number the wasm bindings report it by.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The reason code as docs/format.md spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Reason::Malformed => "malformed",
            Reason::Mac => "mac",
            Reason::Expired => "expired",
            Reason::Bind => "bind",
            Reason::Purpose => "purpose",
            Reason::Request => "request",
        }
    }
}

/// A token failed to open. `Display` is always the stable message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SealedStateError {
    reason: Reason,
}

impl SealedStateError {
    /// The failure for `reason`.
    pub const fn new(reason: Reason) -> Self {
        SealedStateError { reason }
    }
    /// For server logs only; never send it to the client.
    pub const fn reason(&self) -> Reason {
        self.reason
    }
}

impl From<Reason> for SealedStateError {
    fn from(reason: Reason) -> Self {
        SealedStateError::new(reason)
    }
}

impl fmt::Display for SealedStateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(SEALED_STATE_INVALID_MESSAGE)
    }
}

impl std::error::Error for SealedStateError {}
