//! Sealed state for stateless MCP servers: HMAC-SHA256 tokens that carry a
//! tool's state through the client and back, wire-compatible with
//! `createRequestStateCodec` of `@modelcontextprotocol/server` (npm).
//!
//! A server seals its state into a token, hands it to the client (a View
//! keeps it under `_meta["ng-mcp-ui/state"]`, [`STATE_META_KEY`]), and
//! opens it when the client sends it back. A token is signed, so nobody
//! can change it, and it expires. Its payload is readable by anyone who
//! holds it (the client, the host, the model); a **secret** part beside it is
//! encrypted, for a key holder only. The format is in `docs/format.md` of
//! the repository.
//!
//! # Quick start
//!
//! ```toml
//! [dependencies]
//! mcp-sealed-state = { version = "0.1", features = ["serde"] }   # cargo add mcp-sealed-state --features serde
//! ```
//!
//! ```
//! use mcp_sealed_state::{Codec, CodecOptions, OpenWith, SealWith};
//!
//! // One key of at least 32 bytes (from your secret store); a list rotates
//! // keys: the first seals, all open.
//! let key = b"an example key of at least 32 bytes!".to_vec();
//! let codec = Codec::new(CodecOptions::with_keys(vec![key]))?;
//!
//! // Payloads are JSON text. Bind a token to a user so that another user's
//! // request cannot replay it.
//! let token = codec.seal(r#"{"board":"X...O....","turn":2}"#, &SealWith::view().bind("user-42"))?;
//! let opened = codec.open(&token, &OpenWith::view().bind("user-42"))?;
//! assert_eq!(opened.payload_json(), r#"{"board":"X...O....","turn":2}"#);
//!
//! // A failure says nothing to the client but the stable message; the
//! // reason is for the server's log.
//! let refused = codec.open(&token, &OpenWith::view().bind("user-7")).unwrap_err();
//! assert_eq!(refused.to_string(), mcp_sealed_state::SEALED_STATE_INVALID_MESSAGE);
//! assert_eq!(refused.reason().as_str(), "bind");
//!
//! // The secret part: JSON that only a key holder reads.
//! let token = codec.seal("{\"turn\":3}", &SealWith::view().secret(r#"{"seed":42}"#))?;
//! let opened = codec.open(&token, &OpenWith::view())?;
//! assert_eq!(opened.secret.as_deref(), Some(r#"{"seed":42}"#));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! With the `serde` feature, [`Codec::typed`] seals any `T: Serialize` and
//! opens into any `T: DeserializeOwned`:
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! use mcp_sealed_state::{Codec, CodecOptions, OpenWith, Request, SealWith};
//!
//! #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
//! struct Game { board: String, turn: u8 }
//! #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
//! struct Hidden { seed: u64 }
//!
//! let codec = Codec::new(CodecOptions::with_keys(vec![[7u8; 32]]))?;
//! let game = Game { board: "X...O....".into(), turn: 2 };
//!
//! // An MRTR requestState token for the tool "move", bound to the request's
//! // arguments (by their RFC 8785 digest) and carrying a secret.
//! let args = serde_json::json!({ "cell": 4 });
//! let with = SealWith::request_state("move").request(Request::Value(&args));
//! let token = codec.typed().seal_with_secret(&game, &Hidden { seed: 42 }, &with)?;
//!
//! let with = OpenWith::request_state("move").request(Request::Value(&args));
//! let opened = codec.typed().open_with_secret::<Game, Hidden>(&token, &with)?;
//! assert_eq!((opened.payload, opened.secret), (game, Some(Hidden { seed: 42 })));
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Without a key, outside production, a codec uses a random development
//! key, and prints a warning once: tokens do not survive a restart or open
//! on another instance. Set [`CodecOptions::production`] to make a missing
//! key an error.
//!
//! # Features
//!
//! - `edge` (default): the keyed codec ([`Codec`]): HMAC, keys, rotation,
//!   binding, the secret part and request binding.
//! - `jcs` (default): RFC 8785 canonical JSON of a request in Rust
//!   ([`Request::Json`]). Without it (the wasm build, whose JS glue
//!   canonicalizes), only [`Request::Canonical`] text binds a request.
//! - `serde`: [`Codec::typed`], seal and open `serde` values.
//! - `widget`: the unverified reader alone ([`read_token_unverified`]), no HMAC.
//! - `cli`: the `mcp-sealed-state` command.

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
/// tests of the SIMD128 kernels against their scalar references, the CLI,
/// and `tests/constants.rs`. Not part of the API: no stability, no semver.
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
    DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_TOKEN_BYTES, DEFAULT_TTL_SECONDS,
};
#[cfg(feature = "edge")]
#[cfg_attr(docsrs, doc(cfg(feature = "edge")))]
pub use jcs::JcsError;
#[cfg(feature = "edge")]
#[cfg_attr(docsrs, doc(cfg(feature = "edge")))]
pub use keys::{KeyError, MIN_KEY_BYTES};

/// The `_meta` key under which a tool result carries the sealed token.
pub const STATE_META_KEY: &str = "ng-mcp-ui/state";
