//! The widget's one wasm export, run as wasm in headless Chromium
//! (`wasm-pack test --headless --chrome --no-default-features --features widget`).
//! The JS over it, and its JS twin, are tested from the packed package in
//! js/test/widget*.test.mjs.
#![cfg(target_arch = "wasm32")]

mod common;

use mcp_sealed_state::bindings::widget::read_token_json;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn reads_every_sdk_vector_unverified() {
    for v in common::sdk_vectors() {
        let json = read_token_json(&v.token).unwrap_or_else(|| panic!("{}", v.name));
        // The payload is spliced in verbatim, so it is the SDK's exact JSON text
        // (lone surrogates too, which serde_json would refuse to parse).
        let head = format!("{{\"payload\":{},", v.payload_json);
        assert!(json.starts_with(&head), "{}", v.name);
        let rest: serde_json::Value =
            serde_json::from_str(&format!("{{{}", &json[head.len()..])).unwrap();
        assert_eq!(rest["exp"], v.exp, "{}", v.name);
        assert_eq!(rest["bound"], v.bind.is_some(), "{}", v.name);
        let purpose = match v.kind.as_str() {
            "view" => "view",
            "requestState" => "requestState",
            _ => "",
        };
        assert_eq!(
            rest["purpose"].as_str().unwrap_or(""),
            purpose,
            "{}",
            v.name
        );
        assert_eq!(rest["tool"].as_str(), v.tool.as_deref(), "{}", v.name);
    }
}

#[wasm_bindgen_test]
fn malformed_tokens_read_as_nothing_and_never_trap() {
    let huge = "v1.".to_string() + &"A".repeat(2 << 20) + "." + &"A".repeat(43);
    for bad in [
        "",
        "v1.",
        "v1.a.b.c",
        "not a token",
        "v1.W10.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        &huge,
    ] {
        assert_eq!(read_token_json(bad), None, "{bad:.20}");
    }
    // still usable after all of that
    let v = &common::sdk_vectors()[0];
    assert!(read_token_json(&v.token).is_some());
}
