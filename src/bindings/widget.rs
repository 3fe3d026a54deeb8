//! Exports of both builds: the unverified reader and the view-state rules.

use wasm_bindgen::prelude::wasm_bindgen;

use crate::{reader, view_state};

/// What a token claims, UNVERIFIED, as the JSON of a `TokenView`; `undefined`
/// when it is not a v1 token.
#[wasm_bindgen(js_name = readTokenJson)]
pub fn read_token_json(token: &str) -> Option<String> {
    reader::read_token_unverified(token)
        .ok()
        .map(|v| v.to_json())
}

/// The token's `exp` (unverified), or NaN when it is not a v1 token.
#[wasm_bindgen(js_name = tokenExp)]
pub fn token_exp(token: &str) -> f64 {
    reader::read_exp(token).map_or(f64::NAN, |exp| exp as f64)
}

/// Seconds left at `now_ms`, or NaN when it is not a v1 token.
#[wasm_bindgen(js_name = secondsLeft)]
pub fn seconds_left(token: &str, now_ms: f64) -> f64 {
    reader::read_exp(token)
        .ok()
        .and_then(|exp| crate::clock::seconds_left(exp, now_ms))
        .map_or(f64::NAN, |left| left as f64)
}

/// SPEC's adoption rule: whether `candidate` replaces `current`.
#[wasm_bindgen(js_name = preferCandidate)]
pub fn prefer_candidate(current: Option<String>, candidate: &str) -> bool {
    reader::prefer_candidate(current.as_deref(), candidate)
}

/// Whether an error text carries our stable message or ng-mcp-ui's.
#[wasm_bindgen(js_name = isSealedStateMessage)]
pub fn is_sealed_state_message(text: &str) -> bool {
    reader::is_sealed_state_message(text)
}

/// The stable message, so the glue can check its copy against the core's.
#[wasm_bindgen(js_name = sealedStateInvalidMessage)]
pub fn sealed_state_invalid_message() -> String {
    crate::SEALED_STATE_INVALID_MESSAGE.into()
}

/// Check compact state JSON: its byte size when it is an object or null
/// within `max_bytes`; -1 when it is not an object or null; -2 when too large.
#[wasm_bindgen(js_name = checkViewStateJson)]
pub fn check_view_state_json(state_json: &str, max_bytes: f64) -> f64 {
    let max = if max_bytes.is_nan() {
        0
    } else {
        max_bytes as usize
    };
    match view_state::check(state_json, max) {
        Ok(bytes) => bytes as f64,
        Err(view_state::ViewStateError::NotObjectOrNull) => -1.0,
        Err(view_state::ViewStateError::TooLarge { .. }) => -2.0,
    }
}

/// UTF-8 bytes of compact JSON text: the view-state size measure.
#[wasm_bindgen(js_name = jsonBytes)]
pub fn json_bytes(json: &str) -> usize {
    view_state::json_bytes(json)
}

/// Whether a Host's advertised `maxBytes` is usable.
#[wasm_bindgen(js_name = isValidMaxBytes)]
pub fn is_valid_max_bytes(max_bytes: f64) -> bool {
    view_state::is_valid_max_bytes(max_bytes)
}
