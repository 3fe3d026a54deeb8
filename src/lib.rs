//! Sealed state for stateless MCP servers.
//!
//! A server seals state into an HMAC-SHA256 token (signed, not encrypted),
//! hands it to the widget under `_meta["ng-mcp-ui/state"]`, and opens it when
//! the widget echoes it back. The v1 wire format is byte-compatible with
//! `createRequestStateCodec` of `@modelcontextprotocol/server` (npm).
//!
//! Payloads travel as JSON text: the caller serializes (in JS that is
//! `JSON.stringify`, which keeps tokens byte-identical to the SDK's) and gets
//! JSON text back from `open`.
//!
//! Public: [`error`] (the one token error and its reasons), [`purpose`],
//! [`clock`], [`reader`] (unverified, for widgets), [`view_state`] (the
//! proposal's names and codes), and with the `edge` feature [`keys`] (key
//! rules and errors) and [`codec`], with the `serde` feature `typed` (seal
//! and open `serde` values). Inside the crate: `wire` (token shape,
//! base64url), `json` (the JSON scanner), `envelope` (the `{p,exp,b}`
//! envelope and the `{p,d,o}` purposes), `sdk_reading` (the drop-in's
//! reading of a raw token, as the SDK's codec reads it), `payload`;
//! `bindings` is the wasm surface.
//!
//! The `widget` and `edge` builds run the same code; `edge` adds HMAC (the
//! codec), and only the leaf kernels differ by target (SIMD128 in wasm).

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

pub mod clock;
mod envelope;
pub mod error;
#[cfg(feature = "edge")]
pub mod jcs;
mod json;
mod payload;
pub mod purpose;
pub mod reader;
#[cfg(feature = "edge")]
mod sdk_reading;
#[cfg(feature = "edge")]
pub mod secret;
pub mod view_state;
mod wire;

#[cfg(feature = "edge")]
pub mod codec;
#[cfg(feature = "edge")]
pub mod keys;
#[cfg(feature = "serde")]
pub mod typed;

/// The wasm exports (public so the wasm-bindgen tests can call them), and
/// the codes they share with the JS glue.
#[doc(hidden)]
pub mod bindings;

/// Hooks into the crate-private modules for the fuzz targets, the wasm
/// tests of the SIMD128 kernels against their scalar references, and
/// `tests/constants.rs`. Not part of the API: no stability, no semver.
#[doc(hidden)]
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
}

pub use error::{Reason, SealedStateError, SEALED_STATE_INVALID_MESSAGE};
pub use payload::Payload;
pub use purpose::Purpose;
pub use reader::{read_token_unverified, TokenView};

#[cfg(feature = "edge")]
pub use clock::Clock;
#[cfg(feature = "edge")]
pub use codec::{
    Codec, CodecOptions, ConfigError, OpenWith, Opened, SealError, SealWith, SealWithError,
};

/// The `_meta` key under which a tool result carries the sealed token.
pub const STATE_META_KEY: &str = "ng-mcp-ui/state";
