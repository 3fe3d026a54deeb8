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
/// does (see [`crate::envelope::parse_as_sdk`]), giving 0 bytes for no `"p"`.
pub const OP_SDK: u8 = 3;

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

/// What an operation code asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation<'a> {
    /// A token of this purpose, by SPEC's rules.
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
}
