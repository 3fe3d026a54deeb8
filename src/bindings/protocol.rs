//! What the wasm bindings and the JS glue must agree on: the operation
//! codes and the statuses of the `*Io` calls. `pkg-template/constants.js`
//! is rendered from these and the core's constants; `tests/constants.rs`
//! fails when the committed file differs.

use crate::purpose::Purpose;

/// `what` of `sealIo`/`openIo`: a view token.
pub const OP_VIEW: u8 = 0;
/// `what` of `sealIo`/`openIo`: an MRTR requestState token for the tool.
pub const OP_REQUEST_STATE: u8 = 1;
/// `what` of `sealIo`/`openIo`: the SDK's raw v1 token (`mint`/`verify`).
pub const OP_RAW: u8 = 2;
/// `what` of `sealIo`/`openIo`: a raw v1 token written and read as the SDK's
/// own codec does, for the drop-in: a payload of 0 bytes is JS `undefined`
/// (an envelope without `"p"`), and opening reads the envelope as `JSON.parse`
/// does (see `crate::sdk_reading`), giving 0 bytes for no `"p"`.
pub const OP_SDK: u8 = 3;

/// A flag on `what` of `openIo`: decrypt the secret part too. The output
/// buffer then holds the payload's length (4 bytes, little-endian), the
/// payload JSON, and the secret's JSON (0 bytes: the token has none).
pub const OP_WITH_SECRET: u8 = 0x80;

/// Negative results of `sealIo`/`openIo` other than minus a reason code
/// (`openIo` returns `-reason` for a token that does not open).
/// The lengths do not add up to the input buffer, or a text is not UTF-8.
pub const STATUS_BAD_INPUT: i8 = -10;
/// `what` is not one of the `OP_*` codes.
pub const STATUS_UNKNOWN_OP: i8 = -11;
/// The clock is not finite milliseconds within `MAX_CLOCK_MS`.
pub const STATUS_INVALID_CLOCK: i8 = -12;
/// The allocator refused room for the result.
pub const STATUS_OUT_OF_MEMORY: i8 = -13;
/// The payload is not one JSON text.
pub const STATUS_PAYLOAD_NOT_JSON: i8 = -14;
/// The token would be longer than `maxTokenBytes`.
pub const STATUS_TOKEN_TOO_LARGE: i8 = -15;

/// The secret is not one JSON text.
pub const STATUS_SECRET_NOT_JSON: i8 = -17;
/// The request's arguments have no RFC 8785 canonical form (a number past
/// the double range, a repeated member name, nesting too deep).
pub const STATUS_REQUEST_NOT_CANONICAL: i8 = -18;
/// The platform CSPRNG failed to give the secret part's nonce.
pub const STATUS_NO_RANDOMNESS: i8 = -19;

/// The `WasmCodec` could not be built (its `configError` is not 0): no
/// codec to seal or open with. The glue never calls one.
pub const STATUS_NO_CODEC: i8 = -16;

/// `configError` of a `WasmCodec` (low byte; for a code about one key, such
/// as [`CONFIG_KEY_TOO_SHORT`], the index of the key is above it,
/// `code | index << 8`): 0 when it was built.
/// Its own codes, not JS errors: a constructor returning `Result` would
/// return three values, and V8 compiles a JS-to-wasm wrapper of its own for
/// every export that returns more than one, which slows every cold start.
/// The glue words them from `CONFIG_ERRORS` in `pkg-template/constants.js`.
pub const CONFIG_OK: u8 = 0;
/// A key is shorter than `MIN_KEY_BYTES`.
pub const CONFIG_KEY_TOO_SHORT: u8 = 1;
/// No key, in production.
pub const CONFIG_KEY_MISSING: u8 = 2;
/// The platform CSPRNG failed drawing the ephemeral key.
pub const CONFIG_NO_RANDOMNESS: u8 = 3;
/// `leewaySeconds` is negative.
pub const CONFIG_NEGATIVE_LEEWAY: u8 = 4;
/// An option the glue checks first is out of range, or the key lengths do
/// not add up to the key bytes.
pub const CONFIG_BAD_OPTIONS: u8 = 5;
/// A key is listed twice (the index of the second is above the low byte).
pub const CONFIG_KEY_DUPLICATE: u8 = 6;
/// The key list is empty (the glue checks this first; kept for completeness).
pub const CONFIG_KEY_EMPTY: u8 = 7;
/// A key is under `MIN_KEY_BYTES` before its trailing zero bytes, which
/// HMAC ignores (the index of the key is above the low byte).
pub const CONFIG_KEY_ZERO_PADDED: u8 = 8;
/// A key is all zero bytes (the index of the key is above the low byte).
pub const CONFIG_KEY_ALL_ZERO: u8 = 9;
/// The message of [`CONFIG_NEGATIVE_LEEWAY`], in the JS option's name.
pub const NEGATIVE_LEEWAY_MESSAGE: &str = "leewaySeconds must not be negative";
/// The message of [`CONFIG_KEY_EMPTY`], in the JS option's words.
pub const KEY_EMPTY_MESSAGE: &str =
    "the key list is empty; give at least one key (or no key option for the development key)";
/// The message of [`CONFIG_BAD_OPTIONS`] (the others but the two above are
/// the core's `Display`, in Rust's words).
pub const BAD_OPTIONS_MESSAGE: &str =
    "an option is out of range (ttlSeconds, leewaySeconds and maxTokenBytes are safe integers, maxTokenBytes positive; the key lengths add up to the key bytes)";

/// The `configError` of a codec that could not be built.
#[cfg(feature = "edge")]
pub fn config_error(e: crate::codec::ConfigError) -> u32 {
    use crate::codec::ConfigError;
    use crate::keys::KeyError;
    let of_key = |code: u8, index: usize| {
        u32::from(code) | u32::try_from(index).unwrap_or(u32::MAX).min(0x00ff_ffff) << 8
    };
    match e {
        ConfigError::Key(KeyError::TooShort { index, .. }) => of_key(CONFIG_KEY_TOO_SHORT, index),
        ConfigError::Key(KeyError::ZeroPadded { index, .. }) => {
            of_key(CONFIG_KEY_ZERO_PADDED, index)
        }
        ConfigError::Key(KeyError::AllZero { index }) => of_key(CONFIG_KEY_ALL_ZERO, index),
        ConfigError::Key(KeyError::Missing) => u32::from(CONFIG_KEY_MISSING),
        ConfigError::Key(KeyError::NoRandomness) => u32::from(CONFIG_NO_RANDOMNESS),
        ConfigError::NegativeLeeway => u32::from(CONFIG_NEGATIVE_LEEWAY),
        ConfigError::Key(KeyError::Empty) => u32::from(CONFIG_KEY_EMPTY),
        ConfigError::Key(KeyError::Duplicate { index, .. }) => of_key(CONFIG_KEY_DUPLICATE, index),
    }
}

/// What an operation code asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation<'a> {
    /// A token of this purpose, by docs/format.md's rules.
    Purpose(Purpose<&'a str>),
    /// A raw token by the SDK codec's rules ([`OP_SDK`]).
    Sdk,
}

/// The operation a code stands for; `None` for an unknown code, which is
/// refused (never read as raw, which would skip the purpose check).
pub fn operation(op: u8, tool: &str) -> Option<Operation<'_>> {
    match op {
        OP_VIEW => Some(Operation::Purpose(Purpose::View)),
        OP_REQUEST_STATE => Some(Operation::Purpose(Purpose::RequestState(tool))),
        OP_RAW => Some(Operation::Purpose(Purpose::Raw)),
        OP_SDK => Some(Operation::Sdk),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_operation_codes_are_refused() {
        let of = |p| Some(Operation::Purpose(p));
        assert_eq!(operation(OP_VIEW, "t"), of(Purpose::View));
        assert_eq!(
            operation(OP_REQUEST_STATE, "t"),
            of(Purpose::RequestState("t"))
        );
        assert_eq!(operation(OP_RAW, "t"), of(Purpose::Raw));
        assert_eq!(operation(OP_SDK, "t"), Some(Operation::Sdk));
        for op in 4..=u8::MAX {
            assert_eq!(operation(op, "t"), None, "{op}");
        }
    }

    #[cfg(feature = "edge")]
    #[test]
    fn config_errors_have_their_codes_and_the_short_key_its_index() {
        use crate::codec::ConfigError;
        use crate::keys::KeyError;
        let short = |index| ConfigError::Key(KeyError::TooShort { index, len: 5 });
        assert_eq!(config_error(short(0)), u32::from(CONFIG_KEY_TOO_SHORT));
        assert_eq!(
            config_error(short(3)),
            3 << 8 | u32::from(CONFIG_KEY_TOO_SHORT)
        );
        assert_eq!(config_error(short(usize::MAX)), 0x00ff_ffff << 8 | 1);
        assert_eq!(config_error(ConfigError::Key(KeyError::Missing)), 2);
        assert_eq!(config_error(ConfigError::Key(KeyError::NoRandomness)), 3);
        assert_eq!(config_error(ConfigError::NegativeLeeway), 4);
        let dup = ConfigError::Key(KeyError::Duplicate { index: 2, first: 0 });
        assert_eq!(config_error(dup), 2 << 8 | u32::from(CONFIG_KEY_DUPLICATE));
        let padded = ConfigError::Key(KeyError::ZeroPadded { index: 1, len: 32 });
        assert_eq!(config_error(padded), 1 << 8 | 8);
        let zero = ConfigError::Key(KeyError::AllZero { index: 4 });
        assert_eq!(config_error(zero), 4 << 8 | 9);
    }
}
