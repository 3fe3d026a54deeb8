//! Rules of the MCP Apps `ui/set-view-state` proposal that both sides share.
//!
//! The saved state is a JSON object or `null`; its size is the byte length of
//! its compact UTF-8 JSON (what `JSON.stringify` writes, UTF-8 encoded). The
//! callers hand in that JSON text, so the length of the `&str` *is* the size.

/// JSON-RPC error: this state cannot or will not be stored (never as given).
pub const ERR_INVALID_PARAMS: i32 = -32602;
/// JSON-RPC error: it cannot be stored now.
pub const ERR_INTERNAL: i32 = -32603;
/// JSON-RPC error: an old Host that does not know `ui/set-view-state`.
pub const ERR_METHOD_NOT_FOUND: i32 = -32601;
/// The request method.
pub const SET_VIEW_STATE_METHOD: &str = "ui/set-view-state";

/// Why a state is refused. Both map to [`ERR_INVALID_PARAMS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewStateError {
    /// Not a JSON object and not `null`.
    NotObjectOrNull,
    /// Larger than the Host's `maxBytes`.
    TooLarge { bytes: usize, max_bytes: usize },
}

impl core::fmt::Display for ViewStateError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ViewStateError::NotObjectOrNull => {
                f.write_str("view state must be a JSON object or null")
            }
            ViewStateError::TooLarge { bytes, max_bytes } => {
                write!(
                    f,
                    "view state is {bytes} bytes of JSON, over the Host's maxBytes of {max_bytes}"
                )
            }
        }
    }
}

impl std::error::Error for ViewStateError {}

/// The size measure of the proposal: bytes of the compact UTF-8 JSON.
pub fn json_bytes(state_json: &str) -> usize {
    state_json.len()
}

/// Check compact state JSON against the rules: an object or `null`, at most
/// `max_bytes` long. Returns its size in bytes.
pub fn check(state_json: &str, max_bytes: usize) -> Result<usize, ViewStateError> {
    let t = state_json.trim_start_matches([' ', '\t', '\n', '\r']);
    if !(t.starts_with('{') || t.starts_with("null")) {
        return Err(ViewStateError::NotObjectOrNull);
    }
    let bytes = json_bytes(state_json);
    if bytes > max_bytes {
        return Err(ViewStateError::TooLarge { bytes, max_bytes });
    }
    Ok(bytes)
}

/// A Host's `maxBytes` is usable when it is a positive whole number of bytes.
pub fn is_valid_max_bytes(max_bytes: f64) -> bool {
    max_bytes.is_finite() && max_bytes >= 1.0 && max_bytes.fract() == 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_and_null_only() {
        assert_eq!(check("{}", 10), Ok(2));
        assert_eq!(check("null", 10), Ok(4));
        for bad in ["[]", "1", "\"s\"", "true", ""] {
            assert_eq!(
                check(bad, 10),
                Err(ViewStateError::NotObjectOrNull),
                "{bad}"
            );
        }
    }

    #[test]
    fn size_is_utf8_bytes() {
        let s = "{\"t\":\"é😀\"}"; // é is 2 bytes, 😀 is 4
        assert_eq!(check(s, 100), Ok(14));
        assert_eq!(check(s, 14), Ok(14));
        assert_eq!(
            check(s, 13),
            Err(ViewStateError::TooLarge {
                bytes: 14,
                max_bytes: 13
            })
        );
    }

    #[test]
    fn max_bytes_must_be_a_positive_integer() {
        assert!(is_valid_max_bytes(65536.0));
        for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY] {
            assert!(!is_valid_max_bytes(bad));
        }
    }
}
