//! The constants the widget's JS (pkg-template/) repeats from the core are the
//! core's: the JS cannot import them, so this holds both sides to one value.
#![cfg(not(target_arch = "wasm32"))]

use mcp_sealed_state::reader::{MAX_READ_BYTES, NG_MCP_UI_INVALID_MESSAGE};
use mcp_sealed_state::view_state::{
    ERR_INTERNAL, ERR_INVALID_PARAMS, ERR_METHOD_NOT_FOUND, SET_VIEW_STATE_METHOD,
};
use mcp_sealed_state::{SEALED_STATE_INVALID_MESSAGE, STATE_META_KEY};

const COMMON: &str = include_str!("../pkg-template/common.js");
const TOKEN: &str = include_str!("../pkg-template/widget/token.js");
const READ_JS: &str = include_str!("../pkg-template/widget/read-js.js");
const VIEW_STATE: &str = include_str!("../pkg-template/widget/view-state.js");

/// The JS text of `name = <value>;` in `source` (the first such line).
fn js_value<'a>(source: &'a str, name: &str) -> &'a str {
    let at = format!("const {name} = ");
    let line = source
        .lines()
        .find_map(|l| {
            l.trim_start()
                .strip_prefix("export ")
                .unwrap_or(l.trim_start())
                .strip_prefix(&at)
        })
        .unwrap_or_else(|| panic!("no `const {name} = ...` in the JS"));
    line.trim_end_matches(';')
}

fn js_string(literal: &str) -> String {
    serde_json::from_str(literal)
        .unwrap_or_else(|_| panic!("not a JSON-compatible string: {literal}"))
}

/// `1 << 20`-style or decimal integer literals, as the JS writes them.
fn js_int(expr: &str) -> i64 {
    match expr.split_once("<<") {
        Some((a, b)) => a.trim().parse::<i64>().unwrap() << b.trim().parse::<u32>().unwrap(),
        None => expr.replace('_', "").trim().parse().unwrap(),
    }
}

#[test]
fn messages_and_meta_key() {
    assert_eq!(
        js_string(js_value(COMMON, "SEALED_STATE_INVALID_MESSAGE")),
        SEALED_STATE_INVALID_MESSAGE
    );
    assert_eq!(
        js_string(js_value(COMMON, "STATE_META_KEY")),
        STATE_META_KEY
    );
    assert_eq!(
        js_string(js_value(TOKEN, "NG_MCP_UI_INVALID_MESSAGE")),
        NG_MCP_UI_INVALID_MESSAGE
    );
}

#[test]
fn read_limits() {
    assert_eq!(
        js_int(js_value(COMMON, "MAX_READ_CHARS")),
        MAX_READ_BYTES as i64
    );
    assert_eq!(
        js_int(js_value(READ_JS, "MAX_READ_BYTES")),
        MAX_READ_BYTES as i64
    );
    assert_eq!(
        js_int(js_value(READ_JS, "MAC_CHARS")),
        mcp_sealed_state::wire::MAC_CHARS as i64
    );
}

#[test]
fn view_state_codes_and_method() {
    for (name, code) in [
        ("INVALID_PARAMS", ERR_INVALID_PARAMS),
        ("INTERNAL_ERROR", ERR_INTERNAL),
        ("METHOD_NOT_FOUND", ERR_METHOD_NOT_FOUND),
    ] {
        assert!(VIEW_STATE.contains(&format!("  {name}: {code},")), "{name}");
    }
    assert_eq!(
        js_string(js_value(VIEW_STATE, "METHOD")),
        SET_VIEW_STATE_METHOD
    );
}
