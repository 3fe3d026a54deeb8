//! The widget exports, run as wasm in headless Chromium
//! (`wasm-pack test --headless --chrome --no-default-features --features widget`).
#![cfg(target_arch = "wasm32")]

mod common;

use mcp_sealed_state::bindings::widget::*;
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
        assert_eq!(token_exp(&v.token), v.exp as f64);
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
        assert!(token_exp(bad).is_nan());
        assert!(seconds_left(bad, 0.0).is_nan());
    }
    // still usable after all of that
    let v = &common::sdk_vectors()[0];
    assert!(read_token_json(&v.token).is_some());
}

#[wasm_bindgen_test]
fn seconds_left_and_adoption() {
    let vs = common::sdk_vectors();
    let v = vs.iter().find(|v| v.name == "view-tictactoe").unwrap();
    assert_eq!(seconds_left(&v.token, v.now_ms), 601.0);
    assert_eq!(seconds_left(&v.token, (v.exp as f64 + 1.0) * 1000.0), 0.0);

    let short = vs.iter().find(|v| v.name == "view-ttl-1").unwrap();
    let long = vs.iter().find(|v| v.name == "view-ttl-86400").unwrap();
    assert!(short.exp < long.exp);
    assert!(prefer_candidate(None, &short.token));
    assert!(prefer_candidate(Some(short.token.clone()), &long.token));
    assert!(!prefer_candidate(Some(long.token.clone()), &short.token));
    assert!(!prefer_candidate(Some(long.token.clone()), "v2.garbage"));
    assert!(prefer_candidate(Some("garbage".into()), &short.token));
}

#[wasm_bindgen_test]
fn stable_messages() {
    assert!(is_sealed_state_message(&sealed_state_invalid_message()));
    assert!(is_sealed_state_message(
        "Error: ng-mcp-ui: sealed state is invalid or expired"
    ));
    assert!(!is_sealed_state_message("mcp-sealed-state: something else"));
}

#[wasm_bindgen_test]
fn view_state_rules() {
    assert_eq!(check_view_state_json("{\"tab\":\"é\"}", 65536.0), 12.0);
    assert_eq!(check_view_state_json("null", 4.0), 4.0);
    assert_eq!(check_view_state_json("[1]", 65536.0), -1.0);
    assert_eq!(check_view_state_json("\"s\"", 65536.0), -1.0);
    assert_eq!(check_view_state_json("{\"a\":1}", 6.0), -2.0);
    assert_eq!(json_bytes("{\"s\":\"😀\\ud800\"}"), 18);
    assert!(is_valid_max_bytes(65536.0));
    assert!(!is_valid_max_bytes(0.5) && !is_valid_max_bytes(f64::NAN) && !is_valid_max_bytes(-1.0));
}
