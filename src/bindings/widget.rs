//! Exports of both builds: the unverified reader. The rest of the widget API
//! (expiry arithmetic, adoption, substring tests, view-state sizes) is plain
//! JS in `pkg-template/widget/`: what JS does natively costs no wasm bytes,
//! and these bytes ride inside every View.

#[cfg(not(feature = "edge"))]
use wasm_bindgen::prelude::wasm_bindgen;

use crate::reader;

/// What a token claims, UNVERIFIED, as the JSON of a `TokenView`; `undefined`
/// when it is not a v1 token. `pkg-template/widget/read-js.js` is its JS twin
/// for pages that refuse WebAssembly: the two must give the same text.
/// (The edge build exports it from `bindings::edge`, as one JS value.)
#[cfg_attr(not(feature = "edge"), wasm_bindgen(js_name = readTokenJson))]
pub fn read_token_json(token: &str) -> Option<String> {
    reader::read_token_unverified(token)
        .ok()
        .map(|v| v.to_json())
}
