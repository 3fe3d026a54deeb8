//! The hostile-input table: one test per row. Every byte of a token comes back
//! from the client, so each row asserts the stable error, its reason code, and
//! what the UNVERIFIED reader (the widget's) makes of the same text.
//!
//! Rows that must fail *after* the MAC step carry a genuine MAC, computed here
//! with the `hmac`/`sha2` crates directly (not with the crate under test), and
//! also check that the same token with a broken MAC fails as `mac`: so the row
//! fails at the step it is about, not at the MAC. Rows about the shape step
//! check the reverse: a broken MAC changes nothing, because step 1 refuses the
//! token before any key is used.
#![cfg(all(feature = "edge", not(target_arch = "wasm32")))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use common::{KEY, KEY2, NOW_MS};
use hmac::{Hmac, Mac};
use mcp_sealed_state::internals::wire;
use mcp_sealed_state::DEFAULT_MAX_TOKEN_BYTES;
use mcp_sealed_state::MAX_READ_BYTES;
use mcp_sealed_state::{
    read_token_unverified, Codec, OpenWith, Purpose, Reason, SealWith, SealedStateError, TokenView,
    SEALED_STATE_INVALID_MESSAGE,
};
use sha2::Sha256;

/// What the reader refuses anything that is not a v1 token with.
const MALFORMED: SealedStateError = SealedStateError::new(Reason::Malformed);

const NOW_S: i64 = 1_764_500_000;
const FUTURE: i64 = NOW_S + 600;
const BIND_LABEL: &[u8] = b"mcp.requestState.bind:";

// ---- helpers -----------------------------------------------------------

/// Keys `keys`, a leeway and a size limit.
fn codec_with(keys: &[&[u8]], leeway: i64, max: usize) -> Codec {
    common::codec_with(keys, |o| {
        o.leeway_seconds = leeway;
        o.max_token_bytes = max;
    })
}

/// Key `KEY`, default size limit, no leeway.
fn codec() -> Codec {
    codec_with(&[KEY], 0, DEFAULT_MAX_TOKEN_BYTES)
}

fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).unwrap();
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// `prefix body "." mac` with a genuine MAC by `key` over `prefix body`.
fn sign_with(key: &[u8], prefix: &str, body_b64: &str) -> String {
    let signed = format!("{prefix}{body_b64}");
    let mac = b64(&hmac(key, &[signed.as_bytes()]));
    format!("{signed}.{mac}")
}

/// A v1 token with a genuine `KEY` MAC over any body text.
fn signed_body(body_b64: &str) -> String {
    sign_with(KEY, "v1.", body_b64)
}

/// A v1 token with a genuine `KEY` MAC over any envelope bytes.
fn signed_env(env: &[u8]) -> String {
    signed_body(&b64(env))
}

/// The SDK's bind tag: b64url(HMAC(key, label + value)[..16]).
fn bind_tag(key: &[u8], value: &str) -> String {
    b64(&hmac(key, &[BIND_LABEL, value.as_bytes()])[..16])
}

/// The same token with another (well-formed, wrong) MAC: first char of the
/// last segment changed.
fn mac_broken(token: &str) -> String {
    let dot = token.rfind('.').unwrap();
    let mut t = token.to_owned();
    let c = if &t[dot + 1..dot + 2] == "A" {
        "B"
    } else {
        "A"
    };
    t.replace_range(dot + 1..dot + 2, c);
    t
}

/// The reason of a refusal, after checking the message is the stable one.
fn reason<T: std::fmt::Debug>(r: Result<T, SealedStateError>) -> Reason {
    let e = r.expect_err("must be refused");
    assert_eq!(e.to_string(), SEALED_STATE_INVALID_MESSAGE);
    e.reason()
}

fn open_view(c: &Codec, t: &str, bind: Option<&str>) -> Result<String, SealedStateError> {
    c.open(t, &OpenWith::view().bind(bind))
        .map(|o| o.payload_json().to_owned())
}

fn open_rs(c: &Codec, t: &str, tool: &str, bind: Option<&str>) -> Result<String, SealedStateError> {
    c.open(t, &OpenWith::request_state(tool).bind(bind))
        .map(|o| o.payload_json().to_owned())
}

fn verify(c: &Codec, t: &str, bind: Option<&str>) -> Result<String, SealedStateError> {
    c.open(t, &OpenWith::raw().bind(bind))
        .map(|o| o.payload_json().to_owned())
}

/// Refused at step 1 (shape): as view, requestState and raw, and with a
/// broken MAC too (no key was consulted). The reader refuses it as well.
fn assert_shape_refused(t: &str) {
    let c = codec();
    assert_eq!(reason(open_view(&c, t, None)), Reason::Malformed);
    assert_eq!(reason(open_rs(&c, t, "move", None)), Reason::Malformed);
    assert_eq!(reason(verify(&c, t, Some("x"))), Reason::Malformed);
    if t.contains('.') && t.len() > t.rfind('.').unwrap() + 1 {
        assert_eq!(
            reason(open_view(&c, &mac_broken(t), None)),
            Reason::Malformed
        );
    }
    assert_eq!(read_token_unverified(t), Err(MALFORMED));
}

/// `t` carries a genuine MAC and fails with `want` when opened by `open`; the
/// same token with a broken MAC fails as `mac`, so `want` is a later step.
fn assert_after_mac(
    t: &str,
    want: Reason,
    open: impl Fn(&str) -> Result<String, SealedStateError>,
) {
    assert_eq!(reason(open(t)), want, "{t}");
    assert_eq!(reason(open(&mac_broken(t))), Reason::Mac, "{t}");
}

fn envelope(p: &str, exp: i64) -> String {
    format!("{{\"p\":{p},\"exp\":{exp}}}")
}

fn view_env(d: &str) -> String {
    envelope(&format!("{{\"p\":\"v\",\"d\":{d}}}"), FUTURE)
}

/// A genuine view token of `KEY` (sealed by the crate).
fn good_view() -> String {
    codec()
        .seal("{\"board\":[0,1,2]}", &SealWith::view())
        .unwrap()
}

fn read(t: &str) -> TokenView {
    read_token_unverified(t).expect("the reader reads it")
}

// ---- step 1: shape -------------------------------------------------------

#[test]
fn row01_empty_string() {
    assert_shape_refused("");
}

#[test]
fn row02_prefix_alone() {
    assert_shape_refused("v1.");
    assert_shape_refused("v1..");
}

#[test]
fn row03_two_segments() {
    let t = good_view();
    let two = &t[..t.rfind('.').unwrap()];
    assert_shape_refused(two);
}

#[test]
fn row04_four_segments() {
    let t = good_view();
    assert_shape_refused(&format!("{t}.AAAA"));
    // a dot inside the body, MAC genuine over all of it
    let body = t.split('.').nth(1).unwrap();
    assert_shape_refused(&signed_body(&format!("{}.{}", &body[..4], &body[4..])));
}

#[test]
fn row05_v2_prefix_with_a_mac_genuine_over_it() {
    let body = b64(view_env("1").as_bytes());
    assert_shape_refused(&sign_with(KEY, "v2.", &body));
    assert_shape_refused(&sign_with(KEY, "V1.", &body));
    assert_shape_refused(&sign_with(KEY, "v1", &format!(".{body}"))[2..]);
}

#[test]
fn row06_padding_in_the_body() {
    // 2 bytes of JSON encode to 3 chars, which standard base64 pads with '='.
    let env = view_env("\"padd\"");
    let body = b64(env.as_bytes());
    assert!(env.len() % 3 != 0);
    let padded = format!("{body}{}", "=".repeat((4 - body.len() % 4) % 4));
    assert_shape_refused(&signed_body(&padded));
}

#[test]
fn row07_padding_after_the_mac() {
    // A MAC is 43 chars: standard base64 writes 44 with one '='.
    assert_shape_refused(&format!("{}=", good_view()));
}

/// A view token whose body contains both '-' and '_' (so the standard
/// alphabet would spell them '+' and '/').
fn body_with_dash_and_underscore() -> String {
    (0..64)
        .map(|k| b64(view_env(&format!("\"{}~~~???\"", "x".repeat(k))).as_bytes()))
        .find(|b| b.contains('-') && b.contains('_'))
        .expect("a body with both")
}

#[test]
fn row08_plus_in_the_body() {
    let body = body_with_dash_and_underscore().replace('-', "+");
    assert_shape_refused(&signed_body(&body));
}

#[test]
fn row09_slash_in_the_body() {
    let body = body_with_dash_and_underscore().replace('_', "/");
    assert_shape_refused(&signed_body(&body));
}

#[test]
fn row10_plus_and_slash_in_the_mac() {
    let t = good_view();
    let dot = t.rfind('.').unwrap();
    for c in ["+", "/"] {
        let mut bad = t.clone();
        bad.replace_range(dot + 5..dot + 6, c);
        assert_shape_refused(&bad);
    }
}

#[test]
fn row11_non_canonical_trailing_bits_in_the_body() {
    // 1 or 2 spare bits in the last char must be zero; set them, sign it.
    let env = view_env("\"x\""); // length % 3 != 0, so the last char has spare bits
    assert!(env.len() % 3 != 0);
    let body = b64(env.as_bytes());
    let last = body.as_bytes()[body.len() - 1];
    let idx = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        .iter()
        .position(|&c| c == last)
        .unwrap();
    let alt = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[idx | 1];
    let noncanonical = format!("{}{}", &body[..body.len() - 1], alt as char);
    // The base64 crate's lenient mode reads the same bytes: only the spelling differs.
    assert_eq!(
        base64::engine::GeneralPurpose::new(
            &base64::alphabet::URL_SAFE,
            base64::engine::GeneralPurposeConfig::new()
                .with_decode_allow_trailing_bits(true)
                .with_decode_padding_mode(base64::engine::DecodePaddingMode::RequireNone),
        )
        .decode(&noncanonical)
        .unwrap(),
        env.as_bytes()
    );
    // Passes the shape and the (genuine) MAC, refused when the body is decoded.
    let t = signed_body(&noncanonical);
    assert_after_mac(&t, Reason::Malformed, |t| open_view(&codec(), t, None));
    assert_eq!(read_token_unverified(&t), Err(MALFORMED));
}

#[test]
fn row12_non_canonical_trailing_bits_in_the_mac() {
    // 32 bytes make 43 chars; the last carries 2 spare bits.
    let t = good_view();
    let last = t.as_bytes()[t.len() - 1];
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let idx = alphabet.iter().position(|&c| c == last).unwrap();
    let alt = alphabet[idx ^ 1] as char;
    let bad = format!("{}{alt}", &t[..t.len() - 1]);
    assert_eq!(reason(open_view(&codec(), &bad, None)), Reason::Mac);
    // The reader checks no MAC: it reads what the body claims.
    assert_eq!(read(&bad).payload_json(), "{\"board\":[0,1,2]}");
}

#[test]
fn row13_leading_whitespace() {
    assert_shape_refused(&format!(" {}", good_view()));
}

#[test]
fn row14_trailing_newline() {
    assert_shape_refused(&format!("{}\n", good_view()));
    assert_shape_refused(&format!("{}\r\n", good_view()));
}

#[test]
fn row15_whitespace_inside() {
    let t = good_view();
    for ws in [" ", "\t", "\n", "\u{a0}", "\u{2028}"] {
        let mut bad = t.clone();
        bad.insert_str(10, ws);
        assert_shape_refused(&bad);
        let mut bad = t.clone();
        bad.insert_str(t.len() - 10, ws);
        assert_shape_refused(&bad);
    }
}

#[test]
fn row16_nul_inside() {
    let t = good_view();
    let mut bad = t.clone();
    bad.replace_range(10..11, "\0");
    assert_shape_refused(&bad);
    assert_shape_refused(&format!("{t}\0"));
    assert_shape_refused(&format!("v1.\0.{}", &t[t.rfind('.').unwrap() + 1..]));
}

#[test]
fn row17_non_ascii_inside() {
    let t = good_view();
    let mut bad = t.clone();
    bad.replace_range(10..11, "é");
    assert_shape_refused(&bad);
}

#[test]
fn row18_empty_body_or_empty_mac() {
    let t = good_view();
    let mac = &t[t.rfind('.').unwrap() + 1..];
    assert_shape_refused(&format!("v1..{mac}"));
    assert_shape_refused(&format!("{}.", &t[..t.rfind('.').unwrap()]));
}

/// A view token of exactly `len` bytes, MAC genuine. `len - 47` must not be
/// 1 mod 4 (no base64 text has such a length).
fn view_token_of_len(len: usize) -> String {
    let overhead = view_env("\"\"").len();
    let body_chars = len - "v1.".len() - 1 - wire::MAC_CHARS;
    // bytes n encode to 4n/3 rounded up; find the n whose encoding is body_chars.
    let n = (0..=body_chars)
        .rev()
        .find(|&n| wire::encoded_len(n) == body_chars)
        .expect("reachable length");
    let t = signed_env(view_env(&format!("\"{}\"", "a".repeat(n - overhead))).as_bytes());
    assert_eq!(t.len(), len);
    t
}

#[test]
fn row19_over_1_mib_refused_before_hashing() {
    // Just over 1 MiB, with a GENUINE MAC: a codec at the default 256 KiB
    // limit refuses it as malformed, although every other check would pass
    // (a codec with a larger limit opens the very same token).
    let t = view_token_of_len(MAX_READ_BYTES + 1);
    assert!(t.len() > DEFAULT_MAX_TOKEN_BYTES);
    let payload = open_view(&codec_with(&[KEY], 0, 2 << 20), &t, None).unwrap();
    assert!(payload.len() > 780_000 && payload.starts_with("\"aaa"));
    assert_eq!(reason(open_view(&codec(), &t, None)), Reason::Malformed);
    // With a WRONG MAC the answer is still malformed, not mac: the MAC step,
    // which answers `mac` to any token that reaches it with a wrong MAC, never
    // ran. (Step 1 is a length comparison, the first statement of wire::split.)
    assert_eq!(
        reason(open_view(&codec(), &mac_broken(&t), None)),
        Reason::Malformed
    );
    assert_eq!(
        wire::split(t.as_bytes(), DEFAULT_MAX_TOKEN_BYTES),
        Err(Reason::Malformed)
    );
    // The configurable limit is exact: at the limit it opens, one byte under it refuses.
    let at_limit = codec_with(&[KEY], 0, t.len());
    assert!(open_view(&at_limit, &t, None).is_ok());
    let under = codec_with(&[KEY], 0, t.len() - 1);
    assert_eq!(reason(open_view(&under, &t, None)), Reason::Malformed);
    // The reader's limit is 1 MiB, inclusive: one byte over is refused, one under is read.
    assert_eq!(read_token_unverified(&t), Err(MALFORMED));
    let under_reader = view_token_of_len(MAX_READ_BYTES - 1);
    assert_eq!(read(&under_reader).purpose, Purpose::View);
}

#[test]
fn row20_100_mib_refused_before_hashing() {
    let mac = "A".repeat(wire::MAC_CHARS);
    let t = format!("v1.{}.{mac}", "A".repeat(100 << 20));
    assert!(t.len() > 100 << 20);
    // malformed (step 1), not mac (step 2): no key was used.
    for max in [DEFAULT_MAX_TOKEN_BYTES, 1 << 20, (100 << 20) - 1] {
        let c = codec_with(&[KEY], 0, max);
        assert_eq!(reason(open_view(&c, &t, None)), Reason::Malformed);
        assert_eq!(reason(verify(&c, &t, None)), Reason::Malformed);
    }
    assert_eq!(read_token_unverified(&t), Err(MALFORMED));
    assert_eq!(
        wire::split(t.as_bytes(), DEFAULT_MAX_TOKEN_BYTES),
        Err(Reason::Malformed)
    );
    // Only the size refuses it: the same text at 1,000 body chars has the
    // shape and reaches the MAC step (answering mac).
    let small = format!("v1.{}.{mac}", "A".repeat(1000));
    assert_eq!(reason(open_view(&codec(), &small, None)), Reason::Mac);
}

// ---- step 2: MAC -----------------------------------------------------------

#[test]
fn row21_mac_of_the_wrong_length() {
    let t = good_view();
    let c = codec();
    let short = &t[..t.len() - 1];
    let long = format!("{t}A");
    let long4 = format!("{t}AAAA"); // 47 chars = 35 bytes
    for bad in [short, long.as_str(), long4.as_str()] {
        assert_eq!(reason(open_view(&c, bad, None)), Reason::Mac, "{bad}");
        // The reader wants the 43 chars of a MAC.
        assert_eq!(read_token_unverified(bad), Err(MALFORMED));
    }
    // A genuine MAC truncated to 16 bytes (as bind tags are) does not pass either.
    let body = t.split('.').nth(1).unwrap();
    let signed = format!("v1.{body}");
    let trunc = format!("{signed}.{}", b64(&hmac(KEY, &[signed.as_bytes()])[..16]));
    assert_eq!(reason(open_view(&c, &trunc, None)), Reason::Mac);
}

#[test]
fn row22_wrong_mac_right_length() {
    let t = good_view();
    assert_eq!(
        reason(open_view(&codec(), &mac_broken(&t), None)),
        Reason::Mac
    );
    assert_eq!(read(&mac_broken(&t)).purpose, Purpose::View);
}

#[test]
fn row23_wrong_key() {
    let t = good_view();
    let other = codec_with(&[KEY2], 0, DEFAULT_MAX_TOKEN_BYTES);
    assert_eq!(reason(open_view(&other, &t, None)), Reason::Mac);
}

#[test]
fn row24_token_of_a_rotated_out_key() {
    // Sealed under KEY; the server rotates to [KEY2, KEY], then drops KEY.
    let t = good_view();
    let rotating = codec_with(&[KEY2, KEY], 0, DEFAULT_MAX_TOKEN_BYTES);
    assert_eq!(
        open_view(&rotating, &t, None).unwrap(),
        "{\"board\":[0,1,2]}"
    );
    let rotated = codec_with(&[KEY2], 0, DEFAULT_MAX_TOKEN_BYTES);
    assert_eq!(reason(open_view(&rotated, &t, None)), Reason::Mac);
    // New tokens are sealed with the first key only.
    let new = rotating.seal("1", &SealWith::view()).unwrap();
    assert_eq!(reason(open_view(&codec(), &new, None)), Reason::Mac);
    assert_eq!(open_view(&rotated, &new, None).unwrap(), "1");
}

// ---- step 3: body -----------------------------------------------------------

#[test]
fn row25_body_valid_base64_but_not_utf8() {
    let c = codec();
    for bytes in [
        &[0xff, 0xfe, 0xfd][..],
        b"{\"p\":\"\xc3\",\"exp\":1}",
        b"\x80",
    ] {
        let t = signed_env(bytes);
        assert_after_mac(&t, Reason::Malformed, |t| open_view(&c, t, None));
        assert_eq!(read_token_unverified(&t), Err(MALFORMED));
    }
}

#[test]
fn row26_lone_surrogate_as_raw_bytes_is_not_utf8() {
    // U+D800 written in UTF-8's form (CESU-8 / WTF-8): not UTF-8.
    let mut env = b"{\"p\":{\"p\":\"v\",\"d\":\"".to_vec();
    env.extend_from_slice(&[0xed, 0xa0, 0x80]);
    env.extend_from_slice(format!("\"}},\"exp\":{FUTURE}}}").as_bytes());
    let t = signed_env(&env);
    assert_after_mac(&t, Reason::Malformed, |t| open_view(&codec(), t, None));
    assert_eq!(read_token_unverified(&t), Err(MALFORMED));
}

#[test]
fn row27_body_of_an_impossible_base64_length() {
    // One char (or 5, 9, ...) decodes to no whole byte.
    for body in ["e", "eyJwe"] {
        let t = signed_body(body);
        assert_after_mac(&t, Reason::Malformed, |t| open_view(&codec(), t, None));
        assert_eq!(read_token_unverified(&t), Err(MALFORMED));
    }
}

#[test]
fn row28_json_not_an_object() {
    let c = codec();
    for json in [
        "[1,2]",
        "\"v1\"",
        "null",
        "42",
        "true",
        "[{\"p\":1,\"exp\":1}]",
    ] {
        let t = signed_env(json.as_bytes());
        assert_after_mac(&t, Reason::Malformed, |t| verify(&c, t, None));
        assert_eq!(read_token_unverified(&t), Err(MALFORMED), "{json}");
    }
}

#[test]
fn row29_not_json_at_all() {
    let c = codec();
    for text in [
        "",
        "{p:1,exp:1}",
        "{'p':1,'exp':1}",
        "{\"p\":1,\"exp\":1,}",
        "{\"p\":NaN,\"exp\":1}",
        "{\"p\":1,\"exp\":1} x",
        "{\"p\":1,\"exp\":1}{}",
        "\u{feff}{\"p\":1,\"exp\":1}",
    ] {
        let t = signed_env(text.as_bytes());
        if text.is_empty() {
            // an empty body is a shape error
            assert_shape_refused(&t);
            continue;
        }
        assert_after_mac(&t, Reason::Malformed, |t| verify(&c, t, None));
        assert_eq!(read_token_unverified(&t), Err(MALFORMED), "{text}");
    }
}

const DEEP: usize = 10_000;

#[test]
fn row30_json_nested_10000_deep_signed_opens() {
    // Documented outcome: valid JSON of any depth opens, without recursion
    // (the scanner keeps its nesting on the heap), and comes back exactly.
    let c = codec();
    for d in [
        "[".repeat(DEEP) + &"]".repeat(DEEP),
        "{\"a\":".repeat(DEEP) + "null" + &"}".repeat(DEEP),
    ] {
        let t = signed_env(view_env(&d).as_bytes());
        assert_eq!(open_view(&c, &t, None).unwrap(), d);
        assert_eq!(read(&t).payload_json(), d);
        // The crate seals it too.
        let sealed = c.seal(&d, &SealWith::view()).unwrap();
        assert_eq!(open_view(&c, &sealed, None).unwrap(), d);
    }
    // And as the whole envelope: 10,000 levels inside `p` of a raw token.
    let p = "[".repeat(DEEP) + &"]".repeat(DEEP);
    let t = signed_env(envelope(&p, FUTURE).as_bytes());
    assert_eq!(verify(&c, &t, None).unwrap(), p);
    assert_eq!(reason(open_view(&c, &t, None)), Reason::Purpose);
}

#[test]
fn row31_json_nested_10000_deep_signed_unbalanced() {
    let c = codec();
    let d = "[".repeat(DEEP) + &"]".repeat(DEEP - 1);
    let t = signed_env(view_env(&d).as_bytes());
    assert_after_mac(&t, Reason::Malformed, |t| open_view(&c, t, None));
    assert_eq!(read_token_unverified(&t), Err(MALFORMED));
    // 100,000 deep does not overflow a stack either.
    let d = "[".repeat(100_000);
    let t = signed_env(view_env(&d).as_bytes());
    assert_after_mac(&t, Reason::Malformed, |t| open_view(&c, t, None));
}

#[test]
fn row32_json_nested_10000_deep_unsigned() {
    // Without a genuine MAC nothing of the body is read: `mac`. The reader,
    // which checks no MAC, reads it fine.
    let d = "[".repeat(DEEP) + &"]".repeat(DEEP);
    let body = b64(view_env(&d).as_bytes());
    let t = format!("v1.{body}.{}", "A".repeat(wire::MAC_CHARS));
    assert_eq!(reason(open_view(&codec(), &t, None)), Reason::Mac);
    assert_eq!(read(&t).payload_json(), d);
}

#[test]
fn row33_duplicate_p() {
    let t = signed_env(format!("{{\"p\":1,\"p\":2,\"exp\":{FUTURE}}}").as_bytes());
    assert_after_mac(&t, Reason::Malformed, |t| verify(&codec(), t, None));
    assert_eq!(read_token_unverified(&t), Err(MALFORMED));
}

#[test]
fn row34_duplicate_exp() {
    // JSON.parse would keep the last `exp`; a token must have one reading.
    let t = signed_env(format!("{{\"p\":1,\"exp\":1,\"exp\":{FUTURE}}}").as_bytes());
    assert_after_mac(&t, Reason::Malformed, |t| verify(&codec(), t, None));
    assert_eq!(read_token_unverified(&t), Err(MALFORMED));
}

#[test]
fn row35_duplicate_b() {
    let tag = bind_tag(KEY, "alice");
    let t = signed_env(
        format!("{{\"p\":1,\"exp\":{FUTURE},\"b\":\"{tag}\",\"b\":\"{tag}\"}}").as_bytes(),
    );
    assert_after_mac(&t, Reason::Malformed, |t| {
        verify(&codec(), t, Some("alice"))
    });
    assert_eq!(read_token_unverified(&t), Err(MALFORMED));
}

#[test]
fn row36_duplicate_key_spelled_with_an_escape() {
    // "\u0065xp" is "exp" to JSON.parse: still a duplicate.
    let t = signed_env(format!("{{\"p\":1,\"exp\":{FUTURE},\"\\u0065xp\":1}}").as_bytes());
    assert_after_mac(&t, Reason::Malformed, |t| verify(&codec(), t, None));
    // An escaped spelling alone is the member itself.
    let t = signed_env(format!("{{\"\\u0070\":7,\"\\u0065xp\":{FUTURE}}}").as_bytes());
    assert_eq!(verify(&codec(), &t, None).unwrap(), "7");
}

#[test]
fn row37_duplicate_keys_in_the_purpose_envelope() {
    // Step 6 reads the purpose envelope; a repeated `p`, `d` or `o` is no purpose.
    let c = codec();
    for inner in [
        "{\"p\":\"v\",\"p\":\"v\",\"d\":1}",
        "{\"p\":\"v\",\"d\":1,\"d\":2}",
        "{\"p\":\"r\",\"d\":1,\"o\":\"move\",\"o\":\"move\"}",
    ] {
        let t = signed_env(envelope(inner, FUTURE).as_bytes());
        assert_after_mac(&t, Reason::Purpose, |t| open_view(&c, t, None));
        assert_after_mac(&t, Reason::Purpose, |t| open_rs(&c, t, "move", None));
        // The reader sees no purpose: the whole `p` is the payload.
        let v = read(&t);
        assert_eq!((v.purpose.clone(), v.payload_json()), (Purpose::Raw, inner));
    }
}

#[test]
fn row38_duplicate_keys_inside_the_payload_pass_through() {
    // Documented outcome: the payload is the caller's JSON, passed on as text;
    // JSON.parse on the caller's side keeps the last one.
    let d = "{\"a\":1,\"a\":2}";
    let t = signed_env(view_env(d).as_bytes());
    assert_eq!(open_view(&codec(), &t, None).unwrap(), d);
}

// exp ------------------------------------------------------------------------

fn exp_row(exp_json: &str) -> String {
    signed_env(format!("{{\"p\":{{\"p\":\"v\",\"d\":1}},\"exp\":{exp_json}}}").as_bytes())
}

#[test]
fn row39_exp_float() {
    for exp in [
        format!("{FUTURE}.0"),
        format!("{FUTURE}.5"),
        "1.7645006e9".into(),
    ] {
        let t = exp_row(&exp);
        assert_after_mac(&t, Reason::Malformed, |t| open_view(&codec(), t, None));
        assert_eq!(read_token_unverified(&t), Err(MALFORMED));
    }
}

#[test]
fn row40_exp_string() {
    let t = exp_row(&format!("\"{FUTURE}\""));
    assert_after_mac(&t, Reason::Malformed, |t| open_view(&codec(), t, None));
    assert_eq!(read_token_unverified(&t), Err(MALFORMED));
}

#[test]
fn row41_exp_null() {
    let t = exp_row("null");
    assert_after_mac(&t, Reason::Malformed, |t| open_view(&codec(), t, None));
    assert_eq!(read_token_unverified(&t), Err(MALFORMED));
}

#[test]
fn row42_exp_negative_is_expired() {
    // An integer, so well-formed; long past, so expired.
    let t = exp_row("-1");
    assert_after_mac(&t, Reason::Expired, |t| open_view(&codec(), t, None));
    assert_eq!(read(&t).exp, -1);
    let t = exp_row(&i64::MIN.to_string());
    assert_after_mac(&t, Reason::Expired, |t| {
        open_view(&codec_with(&[KEY], 100, DEFAULT_MAX_TOKEN_BYTES), t, None)
    });
}

#[test]
fn row43_exp_1e300() {
    let t = exp_row("1e300");
    assert_after_mac(&t, Reason::Malformed, |t| open_view(&codec(), t, None));
    assert_eq!(read_token_unverified(&t), Err(MALFORMED));
}

#[test]
fn row44_exp_beyond_i64() {
    let t = exp_row("99999999999999999999");
    assert_after_mac(&t, Reason::Malformed, |t| open_view(&codec(), t, None));
    assert_eq!(read_token_unverified(&t), Err(MALFORMED));
}

#[test]
fn row45_exp_i64_max_does_not_overflow_with_leeway() {
    let t = exp_row(&i64::MAX.to_string());
    let lenient = codec_with(&[KEY], i64::MAX, DEFAULT_MAX_TOKEN_BYTES);
    assert_eq!(open_view(&lenient, &t, None).unwrap(), "1");
    assert_eq!(read(&t).exp, i64::MAX);
}

#[test]
fn row46_exp_missing() {
    let t = signed_env(b"{\"p\":{\"p\":\"v\",\"d\":1}}");
    assert_after_mac(&t, Reason::Malformed, |t| open_view(&codec(), t, None));
    assert_eq!(read_token_unverified(&t), Err(MALFORMED));
}

#[test]
fn row47_expired_by_one_second() {
    let c = codec();
    let t = exp_row(&(NOW_S - 1).to_string());
    assert_after_mac(&t, Reason::Expired, |t| open_view(&c, t, None));
    // exp == floor(now) still opens; a leeway of 1 s opens the one before.
    assert_eq!(
        open_view(&c, &exp_row(&NOW_S.to_string()), None).unwrap(),
        "1"
    );
    let lenient = codec_with(&[KEY], 1, DEFAULT_MAX_TOKEN_BYTES);
    assert_eq!(open_view(&lenient, &t, None).unwrap(), "1");
}

// p ----------------------------------------------------------------------------

#[test]
fn row48_p_missing() {
    let t = signed_env(format!("{{\"exp\":{FUTURE},\"d\":1}}").as_bytes());
    assert_after_mac(&t, Reason::Malformed, |t| verify(&codec(), t, None));
    assert_eq!(read_token_unverified(&t), Err(MALFORMED));
}

#[test]
fn row49_unknown_members_are_ignored() {
    // Documented outcome, as the SDK does: extra members do not matter.
    let t = signed_env(
        format!("{{\"x\":[1],\"p\":{{\"p\":\"v\",\"d\":2,\"z\":0}},\"exp\":{FUTURE},\"y\":null}}")
            .as_bytes(),
    );
    assert_eq!(open_view(&codec(), &t, None).unwrap(), "2");
}

// ---- step 4 comes before 5 and 6 -------------------------------------------

#[test]
fn row50_expired_wins_over_bind_and_purpose() {
    // An expired token with the wrong bind and purpose says `expired`.
    let c = codec_with(&[KEY], 0, DEFAULT_MAX_TOKEN_BYTES);
    let t = common::at(NOW_MS - 601_000.0, || {
        c.seal("1", &SealWith::view().bind("alice"))
    })
    .unwrap();
    assert_after_mac(&t, Reason::Expired, |t| open_rs(&c, t, "move", None));
}

// ---- step 5: binding -----------------------------------------------------------

#[test]
fn row51_bound_token_opened_without_bind() {
    let c = codec();
    let t = c.seal("1", &SealWith::view().bind("alice")).unwrap();
    assert_after_mac(&t, Reason::Bind, |t| open_view(&c, t, None));
    assert!(read(&t).bound);
}

#[test]
fn row52_unbound_token_opened_with_bind() {
    let c = codec();
    let t = c.seal("1", &SealWith::view()).unwrap();
    assert_after_mac(&t, Reason::Bind, |t| open_view(&c, t, Some("alice")));
    assert_after_mac(&t, Reason::Bind, |t| open_view(&c, t, Some("")));
    assert!(!read(&t).bound);
}

#[test]
fn row53_bound_to_someone_else() {
    let c = codec();
    let t = c.seal("1", &SealWith::view().bind("alice")).unwrap();
    for other in ["bob", "alice ", "Alice", "", "alice\0"] {
        assert_after_mac(&t, Reason::Bind, |t| open_view(&c, t, Some(other)));
    }
    // The empty string is a binding too.
    let t = c.seal("1", &SealWith::view().bind("")).unwrap();
    assert_eq!(open_view(&c, &t, Some("")).unwrap(), "1");
    assert_after_mac(&t, Reason::Bind, |t| open_view(&c, t, None));
}

fn bound_env(b_json: &str) -> String {
    signed_env(
        format!("{{\"p\":{{\"p\":\"v\",\"d\":1}},\"exp\":{FUTURE},\"b\":{b_json}}}").as_bytes(),
    )
}

#[test]
fn row54_bind_tag_of_the_wrong_length() {
    let full = b64(&hmac(KEY, &[BIND_LABEL, b"alice"]));
    let good = bind_tag(KEY, "alice");
    assert_eq!(
        open_view(&codec(), &bound_env(&format!("\"{good}\"")), Some("alice")).unwrap(),
        "1"
    );
    let mac = hmac(KEY, &[BIND_LABEL, b"alice"]);
    for tag in [
        good[..21].to_owned(), // 21 chars
        full[..23].to_owned(), // 23 chars
        b64(&mac[..15]),       // 15 bytes
        b64(&mac[..17]),       // 17 bytes (its first 16 are the right tag)
        full.clone(),          // all 32 bytes
        String::new(),
    ] {
        let t = bound_env(&format!("\"{tag}\""));
        assert_after_mac(&t, Reason::Bind, |t| open_view(&codec(), t, Some("alice")));
        assert!(read(&t).bound);
    }
}

#[test]
fn row55_bind_tag_not_a_string() {
    for b in ["null", "1", "[]", "{}", "true"] {
        let t = bound_env(b);
        assert_after_mac(&t, Reason::Bind, |t| open_view(&codec(), t, Some("alice")));
        // `b` present in any form is a binding the codec was not told of.
        assert_after_mac(&t, Reason::Bind, |t| open_view(&codec(), t, None));
    }
}

#[test]
fn row56_bind_tag_non_canonical_or_escaped() {
    let good = bind_tag(KEY, "alice");
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let last = good.as_bytes()[21];
    let idx = alphabet.iter().position(|&c| c == last).unwrap();
    let noncanonical = format!("{}{}", &good[..21], alphabet[idx ^ 1] as char);
    let t = bound_env(&format!("\"{noncanonical}\""));
    assert_after_mac(&t, Reason::Bind, |t| open_view(&codec(), t, Some("alice")));
    // A JSON escape of the same text is the same string, as JSON.parse reads it.
    let escaped: String = good
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let t = bound_env(&format!("\"{escaped}\""));
    assert_eq!(open_view(&codec(), &t, Some("alice")).unwrap(), "1");
}

#[test]
fn row57_bind_tag_of_another_key_in_the_rotation() {
    // The bind tag is checked with the key whose MAC matched: a tag made with
    // another key of the same rotation does not pass.
    let rotating = codec_with(&[KEY, KEY2], 0, DEFAULT_MAX_TOKEN_BYTES);
    let t = bound_env(&format!("\"{}\"", bind_tag(KEY2, "alice")));
    assert_after_mac(&t, Reason::Bind, |t| open_view(&rotating, t, Some("alice")));
    let t = bound_env(&format!("\"{}\"", bind_tag(KEY, "alice")));
    assert_eq!(open_view(&rotating, &t, Some("alice")).unwrap(), "1");
}

// ---- step 6: purpose and tool ---------------------------------------------

#[test]
fn row58_unknown_purpose() {
    let c = codec();
    for inner in [
        "{\"p\":\"x\",\"d\":1}",
        "{\"p\":\"V\",\"d\":1}",
        "{\"p\":\"view\",\"d\":1}",
        "{\"p\":1,\"d\":1}",
        "{\"p\":null,\"d\":1}",
        "{\"d\":1}",
    ] {
        let t = signed_env(envelope(inner, FUTURE).as_bytes());
        assert_after_mac(&t, Reason::Purpose, |t| open_view(&c, t, None));
        assert_after_mac(&t, Reason::Purpose, |t| open_rs(&c, t, "move", None));
        assert_eq!(read(&t).purpose, Purpose::Raw);
        // The raw `verify` has no purpose to check: it returns `p` as it is.
        assert_eq!(verify(&c, &t, None).unwrap(), inner);
    }
}

#[test]
fn row59_purpose_envelope_missing_d_or_o() {
    let c = codec();
    for (inner, expect_rs) in [
        ("{\"p\":\"v\"}", false),
        ("{\"p\":\"r\",\"o\":\"move\"}", true),
        ("{\"p\":\"r\",\"d\":1}", true),
        ("{\"p\":\"r\",\"d\":1,\"o\":7}", true),
    ] {
        let t = signed_env(envelope(inner, FUTURE).as_bytes());
        if expect_rs {
            assert_after_mac(&t, Reason::Purpose, |t| open_rs(&c, t, "move", None));
        } else {
            assert_after_mac(&t, Reason::Purpose, |t| open_view(&c, t, None));
        }
    }
}

#[test]
fn row60_mrtr_token_for_another_tool() {
    let c = codec();
    let t = c
        .seal("{\"step\":2}", &SealWith::request_state("move"))
        .unwrap();
    assert_eq!(open_rs(&c, &t, "move", None).unwrap(), "{\"step\":2}");
    for other in ["start", "Move", "move ", "mov", "", "move\0"] {
        assert_after_mac(&t, Reason::Purpose, |t| open_rs(&c, t, other, None));
    }
    assert_eq!(read(&t).purpose.tool(), Some("move"));
}

#[test]
fn row61_view_token_as_request_state() {
    let c = codec();
    let t = good_view();
    assert_after_mac(&t, Reason::Purpose, |t| open_rs(&c, t, "move", None));
}

#[test]
fn row62_request_state_as_view_token() {
    let c = codec();
    let t = c.seal("1", &SealWith::request_state("move")).unwrap();
    assert_after_mac(&t, Reason::Purpose, |t| open_view(&c, t, None));
    assert!(read(&t).purpose.tool().is_some());
}

#[test]
fn row63_raw_token_as_view_or_request_state() {
    let c = codec();
    let t = c.seal("{\"board\":[1]}", &SealWith::raw()).unwrap();
    assert_after_mac(&t, Reason::Purpose, |t| open_view(&c, t, None));
    assert_after_mac(&t, Reason::Purpose, |t| open_rs(&c, t, "move", None));
    assert_eq!(verify(&c, &t, None).unwrap(), "{\"board\":[1]}");
}

#[test]
fn row64_escaped_tool_name_is_the_same_tool() {
    // `o` is compared as JSON.parse reads it.
    let c = codec();
    let t = signed_env(envelope("{\"p\":\"r\",\"d\":1,\"o\":\"m\\u006fve\"}", FUTURE).as_bytes());
    assert_eq!(open_rs(&c, &t, "move", None).unwrap(), "1");
}

// ---- surrogates -----------------------------------------------------------

#[test]
fn row65_lone_surrogate_in_the_payload() {
    // JSON.stringify writes a lone surrogate as an escape; the payload travels
    // as that text and comes back byte for byte (JSON.parse restores it).
    let c = codec();
    for d in [
        "\"\\ud800\"",
        "{\"s\":\"a\\udc00b\",\"\\udbff\":[\"\\ud83d\"]}",
    ] {
        let t = c.seal(d, &SealWith::view()).unwrap();
        assert_eq!(open_view(&c, &t, None).unwrap(), d);
        assert_eq!(read(&t).payload_json(), d);
        let t = signed_env(view_env(d).as_bytes());
        assert_eq!(open_view(&c, &t, None).unwrap(), d);
    }
}

#[test]
fn row66_lone_surrogate_in_the_purpose_or_tool() {
    // A lone surrogate where a string is *compared* reads as U+FFFD (a Rust
    // string cannot hold it; wasm-bindgen maps a JS lone surrogate the same
    // way), so it never equals "v" or "r".
    let c = codec();
    let t = signed_env(envelope("{\"p\":\"\\ud800\",\"d\":1}", FUTURE).as_bytes());
    assert_after_mac(&t, Reason::Purpose, |t| open_view(&c, t, None));
    let t = signed_env(envelope("{\"p\":\"r\",\"d\":1,\"o\":\"\\ud800\"}", FUTURE).as_bytes());
    assert_after_mac(&t, Reason::Purpose, |t| open_rs(&c, t, "move", None));
    assert_eq!(open_rs(&c, &t, "\u{FFFD}", None).unwrap(), "1");
    assert_eq!(read(&t).purpose.tool(), Some("\u{FFFD}"));
}

#[test]
fn row67_lone_surrogate_escape_in_a_key_or_bind_tag() {
    let c = codec();
    let t = signed_env(format!("{{\"\\ud800\":1,\"p\":2,\"exp\":{FUTURE}}}").as_bytes());
    assert_eq!(verify(&c, &t, None).unwrap(), "2");
    let t = bound_env("\"\\ud800\"");
    assert_after_mac(&t, Reason::Bind, |t| open_view(&c, t, Some("alice")));
}

// ---- strings the JS glue would never pass, the core still survives -------

#[test]
fn row68_every_single_byte_token() {
    let c = codec();
    for b in 0u8..=127 {
        let t = (b as char).to_string();
        assert_eq!(reason(open_view(&c, &t, None)), Reason::Malformed);
        assert_eq!(read_token_unverified(&t), Err(MALFORMED));
    }
}

#[test]
fn row69_prefix_variants() {
    for t in ["v1", "v1.v1.", "v1.v1.v1", "v1.A.", ".v1.A.A", "v1.A.A"] {
        let c = codec();
        let r = reason(open_view(&c, t, None));
        // "v1.A.A" and "v1.v1.v1" have the shape; their MAC is too short.
        let want = if t == "v1.A.A" || t == "v1.v1.v1" {
            Reason::Mac
        } else {
            Reason::Malformed
        };
        assert_eq!(r, want, "{t}");
        assert_eq!(read_token_unverified(t), Err(MALFORMED));
    }
}

#[test]
fn row70_codec_errors_never_name_the_step() {
    // One sample of each reason: the message is the same constant, and the
    // Debug form (for server logs) carries the reason.
    let c = codec();
    let t = good_view();
    let errors = [
        c.open("", &OpenWith::view()).unwrap_err(),
        c.open(&mac_broken(&t), &OpenWith::view()).unwrap_err(),
        common::at(NOW_MS + 1e9, || c.open(&t, &OpenWith::view())).unwrap_err(),
        c.open(&t, &OpenWith::view().bind("x")).unwrap_err(),
        c.open(&t, &OpenWith::request_state("move")).unwrap_err(),
    ];
    let reasons: Vec<Reason> = errors.iter().map(|e| e.reason()).collect();
    assert_eq!(
        reasons,
        [
            Reason::Malformed,
            Reason::Mac,
            Reason::Expired,
            Reason::Bind,
            Reason::Purpose
        ]
    );
    for e in errors {
        assert_eq!(e.to_string(), SEALED_STATE_INVALID_MESSAGE);
        assert!(format!("{e:?}").contains(&format!("{:?}", e.reason())));
    }
}

// ---- regressions found by fuzzing (not rows of the table) -----------------

/// fuzz/artifacts/open_verify/crash-97a77f5f…: `seal_request_state` made a
/// token over `max_token_bytes` (here through a long tool name), which the same
/// codec then refused to open, where `seal` and `mint` already refused to
/// make one. Now all three refuse it when sealing.
#[test]
fn regression_seal_request_state_refuses_a_token_over_the_limit() {
    use mcp_sealed_state::SealError;
    let c = codec_with(&[KEY], 0, 3000);
    let tool = "\0".repeat(400); // each NUL is written as \u0000: 2,400 bytes of JSON
    let sealed = c.seal("1", &SealWith::request_state(&tool));
    match sealed {
        Err(SealError::TokenTooLarge { bytes, max_bytes }) => {
            assert!(bytes > 3000 && max_bytes == 3000)
        }
        other => panic!("expected TokenTooLarge, got {other:?}"),
    }
    // The same limit, the same answer, for every way of sealing.
    let big = format!("\"{}\"", "x".repeat(3000));
    assert!(matches!(
        c.seal(&big, &SealWith::view()),
        Err(SealError::TokenTooLarge { .. })
    ));
    assert!(matches!(
        c.seal(&big, &SealWith::raw()),
        Err(SealError::TokenTooLarge { .. })
    ));
    assert!(matches!(
        c.seal(&big, &SealWith::request_state("move")),
        Err(SealError::TokenTooLarge { .. })
    ));
    // Under the limit it seals and opens again.
    let t = c.seal("1", &SealWith::request_state("\0")).unwrap();
    assert_eq!(open_rs(&c, &t, "\0", None).unwrap(), "1");
}
