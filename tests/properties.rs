//! Properties of sealing and opening, with proptest.
//!
//! - round trip: any JSON payload, any bind (unicode, empty, none), any ttl:
//!   open(seal(x)) == x, and the unverified reader gives x back;
//! - tamper: every single-byte substitution, insertion and deletion at EVERY
//!   position of a sample of tokens is refused (100% of positions);
//! - wrong key, wrong purpose, wrong tool, bind drift in both directions:
//!   always refused, with the expected reason.
#![cfg(all(feature = "edge", not(target_arch = "wasm32")))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{sdk_vectors, KEY, KEY2};
use mcp_sealed_state::{read_token_unverified, Codec, OpenWith, Purpose, Reason, SealWith};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use serde_json::{Map, Number, Value};

const NOW_S: i64 = 1_764_500_000;

/// Whether a payload is itself shaped like a purpose envelope (serde_json's
/// reading, independent of the crate's scanner).
fn looks_purposed(payload: &str) -> bool {
    let Ok(Value::Object(m)) = serde_json::from_str::<Value>(payload) else {
        return false;
    };
    match m.get("p").and_then(Value::as_str) {
        Some("v") => m.contains_key("d"),
        Some("r") => m.contains_key("d") && m.get("o").is_some_and(Value::is_string),
        _ => false,
    }
}

fn codec_with(keys: &[&[u8]], ttl: i64) -> Codec {
    common::codec_with(keys, |o| o.ttl_seconds = ttl)
}

fn codec() -> Codec {
    codec_with(&[KEY], 600)
}

/// Any JSON value: every scalar kind (strings with any unicode scalar,
/// control characters included), nested arrays and objects.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter_map("finite", Number::from_f64)
            .prop_map(Value::Number),
        any::<String>().prop_map(Value::String),
        "[\"\\\\/\\u{0}-\\u{1f}\\u{7f}\\u{2028}\\u{2029}\\u{fffd}]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..8).prop_map(Value::Array),
            vec((any::<String>(), inner), 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Compact JSON text, as JSON.stringify writes it for these values; with a
/// lone surrogate escape (which only a JS string can hold) mixed in sometimes.
fn payload_json() -> impl Strategy<Value = String> {
    (json_value(), option::of(0xD800u32..0xE000)).prop_map(|(v, lone)| {
        let text = serde_json::to_string(&v).unwrap();
        match lone {
            Some(u) => format!("[{text},\"a\\u{u:04x}b\"]"),
            None => text,
        }
    })
}

/// A small payload (so a token is short enough to edit everywhere).
fn small_payload() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9]{0,12}".prop_map(|s| format!("{{\"s\":\"{s}\"}}")),
        any::<i32>().prop_map(|n| n.to_string()),
        ".{0,6}".prop_map(|s| serde_json::to_string(&s).unwrap()),
    ]
}

/// Any bind: none, empty, ASCII, any unicode.
fn bind() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        Just(Some(String::new())),
        "[ -~]{0,24}".prop_map(Some),
        any::<String>().prop_map(Some),
    ]
}

fn ttl() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => 0i64..=10 * 365 * 86_400,
        1 => any::<i64>(),
    ]
}

fn tool() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_]{1,12}",
        any::<String>().prop_filter("non-empty", |s| !s.is_empty())
    ]
}

fn reason<T: std::fmt::Debug>(r: Result<T, mcp_sealed_state::SealedStateError>) -> Reason {
    r.expect_err("must be refused").reason()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn round_trip(payload in payload_json(), bind in bind(), ttl in ttl(), tool in tool()) {
        let c = codec_with(&[KEY], ttl);
        let b = bind.as_deref();
        let exp = NOW_S.saturating_add(ttl);
        let view = c.seal(&payload, &SealWith::view().bind(b)).unwrap();
        let rs = c.seal(&payload, &SealWith::request_state(&tool).bind(b)).unwrap();
        let raw = c.seal(&payload, &SealWith::raw().bind(b)).unwrap();

        let opened = [
            c.open(&view, &OpenWith::view().bind(b)),
            c.open(&rs, &OpenWith::request_state(&tool).bind(b)),
            c.open(&raw, &OpenWith::raw().bind(b)),
        ];
        for o in opened {
            if exp >= NOW_S {
                let opened = o.unwrap();
                prop_assert_eq!(opened.payload_json(), payload.as_str());
            } else {
                prop_assert_eq!(reason(o), Reason::Expired);
            }
        }
        // Open through the last millisecond of `exp`, expired one ms later.
        if (0..=10 * 365 * 86_400).contains(&ttl) {
            let last = exp as f64 * 1000.0 + 999.0;
            prop_assert!(common::at(last, || c.open(&view, &OpenWith::view().bind(b))).is_ok());
            prop_assert_eq!(reason(common::at(last + 1.0, || c.open(&view, &OpenWith::view().bind(b)))), Reason::Expired);
        }

        // The unverified reader gives the same payload and claims back.
        let v = read_token_unverified(&view).unwrap();
        prop_assert_eq!(
            (v.payload_json(), v.purpose.as_deref(), v.exp, v.bound),
            (payload.as_str(), Purpose::View, exp, b.is_some())
        );
        let v = read_token_unverified(&rs).unwrap();
        prop_assert_eq!(
            (v.payload_json(), v.purpose.as_deref(), v.exp, v.bound),
            (payload.as_str(), Purpose::RequestState(tool.as_str()), exp, b.is_some())
        );
        let v = read_token_unverified(&raw).unwrap();
        prop_assert_eq!((v.exp, v.bound), (exp, b.is_some()));
        if !looks_purposed(&payload) {
            prop_assert_eq!((v.payload_json(), v.purpose.as_deref()), (payload.as_str(), Purpose::Raw));
        }
    }

    #[test]
    fn serde_json_reads_back_what_was_sealed(v in json_value()) {
        let c = codec();
        let text = serde_json::to_string(&v).unwrap();
        let token = c.seal(&text, &SealWith::view()).unwrap();
let opened = c.open(&token, &OpenWith::view()).unwrap();
        prop_assert_eq!(opened.payload_json(), text.as_str());
        // (Compared with serde_json's own reading of the text: its default
        // float parsing is not exact, so `v` itself may differ in the last bit.)
        let back: Value = serde_json::from_str(opened.payload_json()).unwrap();
        prop_assert_eq!(back, serde_json::from_str::<Value>(&text).unwrap());
    }

    #[test]
    fn wrong_key_is_refused(
        payload in payload_json(),
        bind in bind(),
        tool in tool(),
        mut other in vec(any::<u8>(), 32..80),
    ) {
        // A last byte of zero may leave fewer than 32 bytes that key HMAC, a
        // key the codec refuses at construction (KeyError::ZeroPadded).
        if let Some(last) = other.last_mut() {
            *last |= 1;
        }
        prop_assume!(other.as_slice() != KEY.as_slice());
        let c = codec();
        let wrong = codec_with(&[other.as_slice()], 600);
        let b = bind.as_deref();
        let view = c.seal(&payload, &SealWith::view().bind(b)).unwrap();
        let rs = c.seal(&payload, &SealWith::request_state(&tool).bind(b)).unwrap();
        prop_assert_eq!(reason(wrong.open(&view, &OpenWith::view().bind(b))), Reason::Mac);
        prop_assert_eq!(reason(wrong.open(&rs, &OpenWith::request_state(&tool).bind(b))), Reason::Mac);
        prop_assert_eq!(reason(wrong.open(&view, &OpenWith::raw().bind(b))), Reason::Mac);
        // And a token of the other key does not open here.
        let theirs = wrong.seal(&payload, &SealWith::view().bind(b)).unwrap();
        prop_assert_eq!(reason(c.open(&theirs, &OpenWith::view().bind(b))), Reason::Mac);
    }

    #[test]
    fn wrong_purpose_is_refused(payload in payload_json(), bind in bind(), tool in tool()) {
        let c = codec();
        let b = bind.as_deref();
        let view = c.seal(&payload, &SealWith::view().bind(b)).unwrap();
        let rs = c.seal(&payload, &SealWith::request_state(&tool).bind(b)).unwrap();
        prop_assert_eq!(reason(c.open(&view, &OpenWith::request_state(&tool).bind(b))), Reason::Purpose);
        prop_assert_eq!(reason(c.open(&rs, &OpenWith::view().bind(b))), Reason::Purpose);
        // A raw token is neither, unless its payload is itself shaped like a
        // purpose envelope (see SECURITY.md).
        if !looks_purposed(&payload) {
            let raw = c.seal(&payload, &SealWith::raw().bind(b)).unwrap();
            prop_assert_eq!(reason(c.open(&raw, &OpenWith::view().bind(b))), Reason::Purpose);
            prop_assert_eq!(reason(c.open(&raw, &OpenWith::request_state(&tool).bind(b))), Reason::Purpose);
        }
    }

    #[test]
    fn wrong_tool_is_refused(payload in payload_json(), bind in bind(), tool in tool(), other in tool()) {
        prop_assume!(tool != other);
        let c = codec();
        let b = bind.as_deref();
        let rs = c.seal(&payload, &SealWith::request_state(&tool).bind(b)).unwrap();
        prop_assert_eq!(reason(c.open(&rs, &OpenWith::request_state(&other).bind(b))), Reason::Purpose);
        let longer = format!("{tool}x");
        prop_assert_eq!(reason(c.open(&rs, &OpenWith::request_state(&longer).bind(b))), Reason::Purpose);
    }

    #[test]
    fn bind_drift_is_refused(payload in payload_json(), bind in any::<String>(), other in any::<String>(), tool in tool()) {
        let c = codec();
        // bound, opened without a bind
        let bound = c.seal(&payload, &SealWith::view().bind(&bind)).unwrap();
        prop_assert_eq!(reason(c.open(&bound, &OpenWith::view())), Reason::Bind);
        let bound_rs = c.seal(&payload, &SealWith::request_state(&tool).bind(&bind)).unwrap();
        prop_assert_eq!(reason(c.open(&bound_rs, &OpenWith::request_state(&tool))), Reason::Bind);
        // unbound, opened with a bind
        let unbound = c.seal(&payload, &SealWith::view()).unwrap();
        prop_assert_eq!(reason(c.open(&unbound, &OpenWith::view().bind(&other))), Reason::Bind);
        let unbound_raw = c.seal(&payload, &SealWith::raw()).unwrap();
        prop_assert_eq!(reason(c.open(&unbound_raw, &OpenWith::raw().bind(&bind))), Reason::Bind);
        // bound to another value
        if bind != other {
            prop_assert_eq!(reason(c.open(&bound, &OpenWith::view().bind(&other))), Reason::Bind);
        }
    }
}

proptest! {
    // Each case makes ~40 edits per token position, so fewer cases and small payloads.
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn tamper_anywhere_in_random_tokens(payload in small_payload(), bind in bind(), tool in tool()) {
        let c = codec();
        let b = bind.as_deref();
        let view = c.seal(&payload, &SealWith::view().bind(b)).unwrap();
        let rs = c.seal(&payload, &SealWith::request_state(&tool).bind(b)).unwrap();
        let open_view = |t: &str| c.open(t, &OpenWith::view().bind(b)).is_ok();
        let open_rs = |t: &str| c.open(t, &OpenWith::request_state(&tool).bind(b)).is_ok();
        prop_assert!(open_view(&view) && open_rs(&rs));
        let n = every_edit(&view, TOKEN_CHARS, &open_view);
        prop_assert_eq!(n.positions_missed(), 0);
        let n = every_edit(&rs, TOKEN_CHARS, &open_rs);
        prop_assert_eq!(n.positions_missed(), 0);
    }
}

// ---- tamper, exhaustively -------------------------------------------------

/// Characters a token may hold, and the usual strangers.
const TOKEN_CHARS: &[char] = &[
    'A', 'B', 'Q', 'g', 'w', 'z', '0', '9', '-', '_', '.', '=', '+', '/', ' ', '\0', '\n', 'é',
];

#[derive(Debug, Default)]
struct Coverage {
    len: usize,
    substituted_positions: usize,
    inserted_positions: usize,
    deleted_positions: usize,
    edits: usize,
}

impl Coverage {
    fn positions_missed(&self) -> usize {
        (self.len - self.substituted_positions)
            + (self.len + 1 - self.inserted_positions)
            + (self.len - self.deleted_positions)
    }
}

/// Every single-character substitution (by each of `chars` that differs),
/// insertion (of each of `chars`) and deletion at every position of `token`,
/// asserting `opens` refuses each. Returns the positions covered.
fn every_edit(token: &str, chars: &[char], opens: &dyn Fn(&str) -> bool) -> Coverage {
    assert!(token.is_ascii());
    let mut cov = Coverage {
        len: token.len(),
        ..Coverage::default()
    };
    let mut buf = String::with_capacity(token.len() + 4);
    for i in 0..=token.len() {
        let (head, tail) = token.split_at(i);
        for &c in chars {
            // insert c before position i
            buf.clear();
            buf.push_str(head);
            buf.push(c);
            buf.push_str(tail);
            assert!(!opens(&buf), "insertion of {c:?} at {i} opened");
            cov.edits += 1;
            // substitute c for the byte at i
            if i < token.len() && tail.as_bytes()[0] != c as u8 {
                buf.clear();
                buf.push_str(head);
                buf.push(c);
                buf.push_str(&tail[1..]);
                assert!(!opens(&buf), "substitution of {c:?} at {i} opened");
                cov.edits += 1;
            }
        }
        cov.inserted_positions += 1;
        if i < token.len() {
            cov.substituted_positions += 1;
            buf.clear();
            buf.push_str(head);
            buf.push_str(&tail[1..]);
            assert!(!opens(&buf), "deletion at {i} opened");
            cov.edits += 1;
            cov.deleted_positions += 1;
        }
    }
    cov
}

/// Every ASCII character, and a few that take 2, 3 and 4 bytes in UTF-8.
fn all_chars() -> Vec<char> {
    (0u8..128)
        .map(char::from)
        .chain(['é', '€', '\u{fffd}', '😀'])
        .collect()
}

/// Whether a (tampered) token opens, with the sample's codec and options.
type Opener = Box<dyn Fn(&str) -> bool>;

#[test]
fn tamper_every_position_of_sample_tokens() {
    let chars = all_chars();
    let c = codec();
    let rotating = codec_with(&[KEY2, KEY], 600);
    let mut samples: Vec<(String, Opener)> = Vec::new();
    for (payload, bind) in [
        ("{\"board\":[0,0,0,0,0,0,0,0,0],\"turn\":1}", None),
        ("null", Some("alice")),
        ("\"é😀\\u2028\\ud800\"", Some("")),
        ("[1,-2.5e+21,{\"a\":{}}]", Some("ünïcødé principal")),
    ] {
        let view = c.seal(payload, &SealWith::view().bind(bind)).unwrap();
        let rs = c
            .seal(payload, &SealWith::request_state("move").bind(bind))
            .unwrap();
        let raw = c.seal(payload, &SealWith::raw().bind(bind)).unwrap();
        let (c1, c2, c3) = (c.clone(), c.clone(), rotating.clone());
        let b1 = bind.map(String::from);
        let (b2, b3) = (b1.clone(), b1.clone());
        samples.push((
            view.clone(),
            Box::new(move |t| c1.open(t, &OpenWith::view().bind(b1.as_deref())).is_ok()),
        ));
        samples.push((
            rs,
            Box::new(move |t| {
                c2.open(t, &OpenWith::request_state("move").bind(b2.as_deref()))
                    .is_ok()
            }),
        ));
        // raw, opened by a codec with two keys (rotation): still nothing passes
        samples.push((
            raw,
            Box::new(move |t| c3.open(t, &OpenWith::raw().bind(b3.as_deref())).is_ok()),
        ));
    }
    // And tokens minted by the SDK, each opened with its own key (short ones).
    for v in sdk_vectors()
        .into_iter()
        .filter(|v| v.token.len() <= 200)
        .step_by(6)
    {
        let vc = common::codec_with(&[&v.key], |o| o.ttl_seconds = v.ttl_seconds);
        let v2 = v.clone();
        samples.push((
            v.token.clone(),
            Box::new(move |t| {
                let b = v2.bind.as_deref();
                match v2.kind.as_str() {
                    "raw" => common::at(v2.now_ms, || vc.open(t, &OpenWith::raw().bind(b))),
                    "view" => common::at(v2.now_ms, || vc.open(t, &OpenWith::view().bind(b))),
                    _ => common::at(v2.now_ms, || {
                        vc.open(
                            t,
                            &OpenWith::request_state(v2.tool.as_deref().unwrap()).bind(b),
                        )
                    }),
                }
                .is_ok()
            }),
        ));
    }

    let mut total = Coverage::default();
    for (token, opens) in &samples {
        assert!(opens(token), "the sample opens untouched: {token}");
        let cov = every_edit(token, &chars, opens.as_ref());
        assert_eq!(cov.positions_missed(), 0, "{token}");
        total.len += cov.len;
        total.substituted_positions += cov.substituted_positions;
        total.inserted_positions += cov.inserted_positions;
        total.deleted_positions += cov.deleted_positions;
        total.edits += cov.edits;
    }
    eprintln!(
        "tamper: {} tokens, {} positions (100% substituted with {} chars, inserted, deleted), {} edits, all refused",
        samples.len(),
        total.len,
        chars.len(),
        total.edits
    );
}

/// The string-scan cases the edge wasm runs with SIMD128, here by the
/// scalar kernel.
#[test]
fn string_scan_judges_every_position() {
    let checked = common::string_scan_cases(mcp_sealed_state::internals::json::is_valid);
    assert!(checked > 25_000, "{checked}");
}

/// The scanner judges every text as serde_json does where it can judge (it
/// refuses lone surrogates and numbers out of f64 range, which JSON and
/// `JSON.parse` take).
#[test]
fn scanner_agrees_with_serde_json() {
    use mcp_sealed_state::internals::json::is_valid;
    let (mut valid, mut by_serde) = (0, 0);
    let checked = common::json_like_texts(|text| {
        let edge = is_valid(text);
        match serde_json::from_str::<Value>(text) {
            Err(e) if e.to_string().contains("out of range") || text.contains("\\ud") => {}
            serde => {
                assert_eq!(edge, serde.is_ok(), "{text:?}");
                by_serde += 1;
            }
        }
        valid += usize::from(edge);
    });
    assert!(checked > 40_000, "{checked}");
    assert!(valid > 2_000 && by_serde > 40_000, "{valid} {by_serde}");
}
