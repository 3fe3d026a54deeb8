// The crate's front page is docs/rust.md, so its examples are the ones that
// compile: each runs as a doctest.
#![doc = include_str!("../docs/rust.md")]
// Every byte of a token is attacker-controlled: outside tests, nothing in the
// crate may panic (in wasm a panic is a trap that kills the request).
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]
#![deny(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod clock;
mod envelope;
mod error;
#[cfg(feature = "edge")]
mod jcs;
mod json;
mod payload;
mod purpose;
mod reader;
#[cfg(feature = "edge")]
mod redacted;
#[cfg(feature = "edge")]
mod sdk_reading;
#[cfg(feature = "edge")]
mod secret;
mod view_state;
mod wire;

#[cfg(feature = "edge")]
mod codec;
#[cfg(feature = "edge")]
mod keys;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub mod typed;

/// The wasm exports (public so the wasm-bindgen tests can call them), and
/// the codes they share with the JS glue.
#[doc(hidden)]
#[allow(missing_docs)]
pub mod bindings;

/// Hooks into the crate-private modules for the fuzz targets, the wasm
/// tests of the SIMD128 kernels against their scalar references, and the
/// integration tests (`tests/constants.rs` renders the constants from them).
/// Not part of the API: no stability, no semver.
#[doc(hidden)]
#[allow(missing_docs)]
pub mod internals {
    pub mod json {
        pub use crate::json::{
            is_valid, object_members, parse_int, plain_run, plain_run_scalar, unescape, write_int,
            write_string, Member,
        };
    }
    pub mod wire {
        pub use crate::wire::{
            decode, decode_scalar, encode, encoded_len, split, Parts, MAC_CHARS,
        };
    }
    pub mod clock {
        pub use crate::clock::{seconds_left, unix_seconds, MAX_CLOCK_MS};
    }
    pub mod reader {
        pub use crate::reader::NG_MCP_UI_INVALID_MESSAGE;
    }
    pub mod view_state {
        pub use crate::view_state::*;
    }
    #[cfg(feature = "edge")]
    pub mod keys {
        pub use crate::keys::EPHEMERAL_KEY_WARNING;
    }
    #[cfg(feature = "edge")]
    pub mod jcs {
        pub use crate::jcs::*;
    }
}

pub use error::{Reason, SealedStateError, SEALED_STATE_INVALID_MESSAGE};
pub use payload::Payload;
pub use purpose::Purpose;
pub use reader::{read_token_unverified, TokenView, MAX_READ_BYTES};

#[cfg(feature = "edge")]
#[cfg_attr(docsrs, doc(cfg(feature = "edge")))]
pub use clock::Clock;
#[cfg(feature = "edge")]
#[cfg_attr(docsrs, doc(cfg(feature = "edge")))]
pub use codec::{
    Codec, CodecOptions, ConfigError, MaybeStr, OpenWith, Opened, Request, SealError, SealWith,
    DEFAULT_LEEWAY_SECONDS, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_TOKEN_BYTES,
    DEFAULT_TTL_SECONDS,
};
#[cfg(feature = "edge")]
#[cfg_attr(docsrs, doc(cfg(feature = "edge")))]
pub use jcs::JcsError;
#[cfg(feature = "edge")]
#[cfg_attr(docsrs, doc(cfg(feature = "edge")))]
pub use keys::{KeyError, MIN_KEY_BYTES};

/// The `_meta` key under which a tool result carries the sealed token.
pub const STATE_META_KEY: &str = "ng-mcp-ui/state";
