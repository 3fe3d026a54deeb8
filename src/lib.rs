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
//! Module map: [`wire`] (token shape, base64url), [`json`] (the JSON scanner),
//! [`envelope`] (the `{p,exp,b}` envelope and the `{p,d,o}` purposes),
//! [`error`], [`reader`] (unverified, for widgets), [`view_state`], with the
//! `edge` feature [`keys`] and [`codec`], and with the `serde` feature `typed`
//! (seal and open `serde` values). `bindings` is the wasm surface.

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

pub mod envelope;
pub mod error;
pub mod json;
pub mod reader;
pub mod view_state;
pub mod wire;

#[cfg(feature = "edge")]
pub mod codec;
#[cfg(feature = "edge")]
pub mod keys;
#[cfg(feature = "serde")]
pub mod typed;

/// The wasm exports (public so the wasm-bindgen tests can call them).
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod bindings;

pub use error::{Reason, SealedStateError, SEALED_STATE_INVALID_MESSAGE};
pub use reader::{read_token_unverified, Purpose, TokenView};

#[cfg(feature = "edge")]
pub use codec::{Codec, CodecOptions, ConfigError, Opened};

/// The `_meta` key under which a tool result carries the sealed token.
pub const STATE_META_KEY: &str = "ng-mcp-ui/state";
