//! The names and codes of the MCP Apps `ui/set-view-state` proposal, which
//! `pkg-template/constants.js` is rendered from. Its rules (an object or
//! `null`, sized in bytes of compact UTF-8 JSON) are the widget's JS, which
//! has the values in hand.

/// JSON-RPC error: this state cannot or will not be stored (never as given).
pub const ERR_INVALID_PARAMS: i32 = -32602;
/// JSON-RPC error: it cannot be stored now.
pub const ERR_INTERNAL: i32 = -32603;
/// JSON-RPC error: an old Host that does not know `ui/set-view-state`.
pub const ERR_METHOD_NOT_FOUND: i32 = -32601;
/// The request method.
pub const SET_VIEW_STATE_METHOD: &str = "ui/set-view-state";
