//! One canonical form of a request (RFC 8785): a request that has none is refused when
//! sealing and is reason `"request"` when opening, never mapped onto the form
//! of another request (which would let a token sealed for one open for the other).
#![cfg(feature = "jcs")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use mcp_sealed_state::internals::jcs::{canonicalize, MAX_REQUEST_DEPTH};
use mcp_sealed_state::{Codec, JcsError, OpenWith, Reason, Request, SealError, SealWith};

const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

fn codec() -> Codec {
    common::codec_with(&[KEY], |_| {})
}

fn seal(c: &Codec, request: &str) -> Result<String, SealError> {
    let with = SealWith::request_state("move").request(Request::Json(request));
    c.seal("{\"n\":1}", &with)
}

fn open(c: &Codec, token: &str, request: &str) -> Result<(), Reason> {
    let with = OpenWith::request_state("move").request(Request::Json(request));
    c.open(token, &with).map(|_| ()).map_err(|e| e.reason())
}

/// `request` has no canonical form, for `why`: sealing says so, and a token
/// sealed for any other request refuses it as `"request"`.
fn refused(request: &str, why: JcsError) {
    let c = codec();
    assert_eq!(canonicalize(request), Err(why), "{request}");
    match seal(&c, request) {
        Err(SealError::Request(e)) => {
            assert_eq!(e, why, "{request}");
            assert_eq!(
                SealError::Request(e).to_string(),
                why.to_string(),
                "the seal error says what"
            );
        }
        other => panic!("{request}: sealed or failed otherwise: {other:?}"),
    }
    let token = seal(&c, "{}").unwrap();
    assert_eq!(open(&c, &token, request), Err(Reason::Request), "{request}");
}

#[test]
fn lone_surrogates_are_refused_not_read_as_u_fffd() {
    // Read as U+FFFD, these three shared one digest: a token sealed for
    // one opened for the others.
    let c = codec();
    let replacement = seal(&c, "{\"a\":\"\\ufffd\"}").unwrap();
    assert_eq!(open(&c, &replacement, "{\"a\":\"\u{fffd}\"}"), Ok(()));
    for lone in ["\\ud800", "\\udfff"] {
        let request = format!("{{\"a\":\"{lone}\"}}");
        assert_eq!(
            open(&c, &replacement, &request),
            Err(Reason::Request),
            "{lone}"
        );
        refused(&request, JcsError::LoneSurrogate);
    }
    for text in [
        "\"\\ud800\"",
        "\"\\uDBFF\"",
        "\"\\udc00\"",
        "\"x\\ud800\"",
        "\"\\ud800x\"",
        "\"\\ud800\\n\"",
        "\"\\ud800\\\\udc00\"",      // the low half is text, not an escape
        "\"\\udc00\\ud800\"",        // a pair in the wrong order
        "\"\\ud800\\ud800\\udc00\"", // a pair after a lone high half
        "[\"ok\",{\"b\":[\"\\udfff\"]}]",
    ] {
        refused(text, JcsError::LoneSurrogate);
    }
    // A pair is one character, however it is spelled.
    assert_eq!(canonicalize("\"\\ud83d\\ude00\"").unwrap(), "\"\u{1f600}\"");
    assert_eq!(canonicalize("\"\\uD83D\\uDE00\"").unwrap(), "\"\u{1f600}\"");
    let emoji = seal(&c, "[\"\u{1f600}\"]").unwrap();
    assert_eq!(open(&c, &emoji, "[\"\\ud83d\\ude00\"]"), Ok(()));
}

#[test]
fn lone_surrogate_member_names_are_refused() {
    // Two names in JS, one (U+FFFD twice) in Rust: no form either way.
    refused("{\"\\ud800\":1,\"\\udc00\":2}", JcsError::LoneSurrogate);
    refused("{\"\\ud800\":1}", JcsError::LoneSurrogate);
    refused("{\"k\":{\"\\udfff\":null}}", JcsError::LoneSurrogate);
}

/// `depth` arrays (or objects, or both in turn) around a scalar.
fn nested(depth: usize, kind: usize) -> String {
    let (mut open, mut close) = (String::new(), String::new());
    for i in 0..depth {
        if (kind == 1) || (kind == 2 && i % 2 == 1) {
            open.push_str("{\"k\":");
            close.insert(0, '}');
        } else {
            open.push('[');
            close.insert(0, ']');
        }
    }
    format!("{open}0{close}")
}

#[test]
fn nesting_deeper_than_64_is_refused_and_64_is_not() {
    assert_eq!(MAX_REQUEST_DEPTH, 64);
    let c = codec();
    // A scalar is depth 0, `[]` depth 1.
    assert_eq!(canonicalize("0").unwrap(), "0");
    for kind in 0..3 {
        let ok = nested(MAX_REQUEST_DEPTH, kind);
        let token = seal(&c, &ok).unwrap();
        assert_eq!(open(&c, &token, &ok), Ok(()));
        refused(&nested(MAX_REQUEST_DEPTH + 1, kind), JcsError::TooDeep);
    }
    let empty = format!("{}{}", "[".repeat(64), "]".repeat(64));
    assert_eq!(canonicalize(&empty).unwrap(), empty);
    refused(&format!("[{empty}]"), JcsError::TooDeep);
    // Ten thousand levels: refused, no stack overflow.
    refused(&nested(10_000, 2), JcsError::TooDeep);
    // Brackets inside strings are text, not nesting.
    let text = format!("[\"{}\"]", "[{".repeat(100));
    assert!(canonicalize(&text).is_ok());
}

#[test]
fn numbers_beyond_the_double_range_are_refused() {
    let digits = format!("1{}", "0".repeat(309)); // 1e309, written out
    for text in [
        "1e400",
        "-1e400",
        "{\"amount\":1e400}",
        "[0,1E+309]",
        &digits,
    ] {
        refused(text, JcsError::NumberOutOfRange);
    }
    // A token sealed for `null` does not open for a number beyond the range
    // (in JS both once read as `null`).
    let c = codec();
    let null = seal(&c, "{\"amount\":null}").unwrap();
    assert_eq!(open(&c, &null, "{\"amount\":1e400}"), Err(Reason::Request));
    // The largest double and the smallest subnormal have a form.
    assert_eq!(
        canonicalize("[1.7976931348623157e308,5e-324,1e-400]").unwrap(),
        "[1.7976931348623157e+308,5e-324,0]"
    );
}

#[test]
fn repeated_member_names_are_refused() {
    for text in [
        "{\"a\":1,\"a\":1}",
        "{\"a\":1,\"\\u0061\":2}",
        "[{\"x\":{\"b\":0,\"c\":0,\"b\":0}}]",
        "{\"\\ud83d\\ude00\":1,\"\u{1f600}\":2}",
    ] {
        refused(text, JcsError::DuplicateName);
    }
}

#[test]
fn integers_beyond_2_pow_53_collide_as_rfc_8785_says() {
    // Documented in docs/secret.md: numbers are doubles, so 2^53 + 1 binds as
    // 2^53. Ids that large belong in strings.
    let c = codec();
    let token = seal(&c, "{\"id\":9007199254740993}").unwrap();
    assert_eq!(open(&c, &token, "{\"id\":9007199254740992}"), Ok(()));
    let token = seal(&c, "{\"id\":\"9007199254740993\"}").unwrap();
    assert_eq!(
        open(&c, &token, "{\"id\":\"9007199254740992\"}"),
        Err(Reason::Request)
    );
    assert_eq!(
        canonicalize(&u64::MAX.to_string()).unwrap(),
        "18446744073709552000"
    );
}
