//! The JSON scanner that view state and every token body go through
//! (`json::is_valid`, `object_members`, `unescape`, `write_string`,
//! `parse_int`), checked against serde_json. (The view-state rules
//! themselves are the widget's JS.)
//!
//! Input: the first 4 bytes are skipped (they were a `maxBytes`; the corpus
//! keeps them), the rest is the JSON text (lossy UTF-8).
#![no_main]

mod common;

use common::*;
use libfuzzer_sys::fuzz_target;
use mcp_sealed_state::internals::json;

fuzz_target!(|data: &[u8]| {
    let rest = data.get(4..).unwrap_or(data);
    let s = String::from_utf8_lossy(rest);
    let s = s.as_ref();

    // The scanner accepts exactly JSON.parse's grammar. serde_json's RawValue
    // checks grammar only (lone surrogates and any depth allowed, like JSON.parse).
    let valid = json::is_valid(s);
    assert_eq!(valid, serde_grammar_ok(s), "grammar differs on {s:?}");
    // And serde_json's Value, wherever it can judge.
    if !has_lone_surrogate_escape(s) && !may_be_too_deep_for_serde(s) && !has_serde_marker_key(s) {
        assert_eq!(
            valid,
            serde_json::from_str::<serde_json::Value>(s).is_ok(),
            "serde_json::Value differs on {s:?}"
        );
    }

    // object_members: exactly the valid objects, members as serde_json sees them.
    let members = json::object_members(s);
    let is_object = valid && trim_json_ws(s).starts_with('{');
    assert_eq!(members.is_some(), is_object, "{s:?}");
    if let Some(members) = members {
        let reference = (!has_serde_marker_key(s))
            .then(|| serde_json::from_str::<Entries>(s).ok())
            .flatten();
        if let Some(r) = &reference {
            assert_eq!(members.len(), r.0.len());
        }
        for (i, m) in members.iter().enumerate() {
            assert!(json::is_valid(m.value) && m.value == trim_json_ws(m.value));
            let key = json::unescape(m.key).expect("a member key unescapes");
            if let Some(r) = &reference {
                assert_eq!(key, r.0[i].0, "key {i} of {s:?}");
                assert_eq!(m.value, r.0[i].1.get(), "value {i} of {s:?}");
            }
        }
    }

    // write_string writes what JSON.stringify (and serde_json) write, and it
    // unescapes back to the same text.
    let mut lit = String::new();
    json::write_string(s, &mut lit);
    assert_eq!(lit, serde_json::to_string(s).expect("a str serializes"));
    assert!(json::is_valid(&lit));
    assert_eq!(json::unescape(&lit).as_deref(), Some(s));
    // A string literal's value, as serde_json reads it.
    if let Ok(v) = serde_json::from_str::<String>(s) {
        assert_eq!(json::unescape(trim_json_ws(s)), Some(v));
    }

    // parse_int: plain integers in the i64 range, written back canonically.
    if let Some(n) = json::parse_int(s) {
        let mut w = String::new();
        json::write_int(n, &mut w);
        assert!(w == s || (s == "-0" && n == 0), "{s:?} -> {n}");
    }
});
