//! What a token is for: the one model of purpose used to seal, to open and
//! to read.
//!
//! A view token and an MRTR requestState token never open as each other (the
//! purpose is under the MAC), and a requestState token opens only for its
//! tool. A raw token is the SDK's `mint`: no purpose envelope at all.

/// The purpose of a token. `T` is the tool name: `&str` when sealing or
/// opening, `String` when read back out of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Purpose<T = String> {
    /// The SDK's raw v1 token (`mint`/`verify`): the payload is the whole `p`.
    Raw,
    /// A widget (view) token: `{"p":"v","d":payload}`.
    View,
    /// An MRTR requestState token for this tool: `{"p":"r","d":payload,"o":tool}`.
    RequestState(T),
}

impl<T: AsRef<str>> Purpose<T> {
    /// The same purpose with the tool borrowed.
    pub fn as_deref(&self) -> Purpose<&str> {
        match self {
            Purpose::Raw => Purpose::Raw,
            Purpose::View => Purpose::View,
            Purpose::RequestState(tool) => Purpose::RequestState(tool.as_ref()),
        }
    }

    /// The tool of a requestState token.
    pub fn tool(&self) -> Option<&str> {
        match self {
            Purpose::RequestState(tool) => Some(tool.as_ref()),
            _ => None,
        }
    }
}
