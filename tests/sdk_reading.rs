//! The drop-in's operation (`OP_SDK`) through the shipped I/O path: a raw
//! token written and read as @modelcontextprotocol/server's codec does.
//! Tokens under test carry genuine MACs made with the `hmac` crate, since
//! only a key holder can make the bodies where the two readings differ; each
//! row also checks what docs/format.md's reading (`OP_RAW`) makes of the same token.
#![cfg(all(feature = "edge", not(target_arch = "wasm32")))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use common::{KEY, NOW_MS};
use hmac::{Hmac, Mac};
use mcp_sealed_state::bindings::{io, protocol};
use mcp_sealed_state::{Codec, CodecOptions, Reason};
use sha2::Sha256;

const NOW_S: i64 = 1_764_500_000;

fn codec() -> Codec {
    Codec::new(CodecOptions::with_keys(vec![KEY])).unwrap()
}

fn hmac(parts: &[&[u8]]) -> [u8; 32] {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(KEY).unwrap();
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

/// A v1 token around any envelope text, with a genuine MAC.
fn signed(envelope: &str) -> String {
    let signed = format!("v1.{}", URL_SAFE_NO_PAD.encode(envelope));
    let mac = URL_SAFE_NO_PAD.encode(hmac(&[signed.as_bytes()]));
    format!("{signed}.{mac}")
}

fn tag(value: &str) -> String {
    URL_SAFE_NO_PAD.encode(&hmac(&[b"mcp.requestState.bind:", value.as_bytes()])[..16])
}

/// `sealIo` as the glue calls it: the token, or the status.
fn seal(what: u8, payload: &str, bind: Option<&str>) -> Result<String, f64> {
    let input = format!("{payload}{}", bind.unwrap_or(""));
    let mut out = Vec::new();
    let bind_len = bind.map_or(-1, |b| b.len() as i32);
    let n = io::seal(
        &codec(),
        input.as_bytes(),
        &mut out,
        what,
        payload.len(),
        0,
        bind_len,
        -1,
        -1,
        NOW_MS,
    );
    if n < 0.0 {
        return Err(n);
    }
    assert_eq!(n as usize, out.len());
    Ok(String::from_utf8(out).unwrap())
}

/// `openIo` as the glue calls it: the payload JSON ("" for JS `undefined`), or the reason.
fn open(what: u8, token: &str, bind: Option<&str>, now_ms: f64) -> Result<String, Reason> {
    let input = format!("{token}{}", bind.unwrap_or(""));
    let mut out = vec![b'x'; 3]; // a previous result: it must not show through
    let bind_len = bind.map_or(-1, |b| b.len() as i32);
    let n = io::open(
        &codec(),
        input.as_bytes(),
        &mut out,
        what,
        token.len(),
        0,
        bind_len,
        -1,
        now_ms,
    );
    if n < 0.0 {
        let code = u8::try_from(-n as i64).unwrap();
        return Err(Reason::ALL
            .into_iter()
            .find(|r| r.code() == code)
            .expect("a reason code"));
    }
    assert_eq!(n as usize, out.len());
    Ok(String::from_utf8(out).unwrap())
}

fn envelope_of(token: &str) -> String {
    let body = token.split('.').nth(1).unwrap();
    String::from_utf8(URL_SAFE_NO_PAD.decode(body).unwrap()).unwrap()
}

#[test]
fn mints_undefined_as_the_sdk_does() {
    let exp = NOW_S + 600;
    let token = seal(protocol::OP_SDK, "", None).unwrap();
    assert_eq!(envelope_of(&token), format!("{{\"exp\":{exp}}}"));
    assert_eq!(token, signed(&format!("{{\"exp\":{exp}}}")));
    let bound = seal(protocol::OP_SDK, "", Some("alice")).unwrap();
    assert_eq!(
        bound,
        signed(&format!("{{\"exp\":{exp},\"b\":\"{}\"}}", tag("alice")))
    );

    assert_eq!(
        open(protocol::OP_SDK, &token, None, NOW_MS),
        Ok(String::new())
    );
    assert_eq!(
        open(protocol::OP_SDK, &bound, Some("alice"), NOW_MS),
        Ok(String::new())
    );
    assert_eq!(
        open(protocol::OP_SDK, &bound, Some("bob"), NOW_MS),
        Err(Reason::Bind)
    );
    assert_eq!(
        open(protocol::OP_SDK, &bound, None, NOW_MS),
        Err(Reason::Bind)
    );
    let later = ((exp + 1) * 1000) as f64;
    assert_eq!(
        open(protocol::OP_SDK, &token, None, later),
        Err(Reason::Expired)
    );
    // docs/format.md's reading: an envelope without "p" is malformed.
    assert_eq!(
        open(protocol::OP_RAW, &token, None, NOW_MS),
        Err(Reason::Malformed)
    );
}

#[test]
fn a_payload_is_the_same_token_either_way() {
    for payload in ["{\"a\":[1,2]}", "null", "\"s\"", "0"] {
        for bind in [None, Some("u")] {
            let sdk = seal(protocol::OP_SDK, payload, bind).unwrap();
            assert_eq!(sdk, seal(protocol::OP_RAW, payload, bind).unwrap());
            assert_eq!(open(protocol::OP_SDK, &sdk, bind, NOW_MS).unwrap(), payload);
            assert_eq!(open(protocol::OP_RAW, &sdk, bind, NOW_MS).unwrap(), payload);
        }
    }
}

#[test]
fn only_the_sdk_operation_takes_no_payload() {
    for what in [
        protocol::OP_RAW,
        protocol::OP_VIEW,
        protocol::OP_REQUEST_STATE,
    ] {
        assert_eq!(
            seal(what, "", None),
            Err(f64::from(protocol::STATUS_PAYLOAD_NOT_JSON)),
            "{what}"
        );
    }
    assert_eq!(
        seal(protocol::OP_SDK, "{", None),
        Err(f64::from(protocol::STATUS_PAYLOAD_NOT_JSON))
    );
    assert_eq!(
        seal(protocol::OP_SDK, " ", None),
        Err(f64::from(protocol::STATUS_PAYLOAD_NOT_JSON))
    );
}

/// An envelope, the bind value, what the SDK reading gives, what docs/format.md's gives.
type Row<'a> = (
    String,
    Option<&'a str>,
    Result<&'a str, Reason>,
    Result<&'a str, Reason>,
);

#[test]
fn bodies_only_a_key_holder_can_make() {
    let exp = NOW_S + 600;
    let t = tag("alice");
    let rows: Vec<Row> = vec![
        (
            format!("{{\"p\":1,\"exp\":{exp}.5}}"),
            None,
            Ok("1"),
            Err(Reason::Malformed),
        ),
        (
            format!("{{\"p\":1,\"exp\":{NOW_S}.5}}"),
            None,
            Ok("1"),
            Err(Reason::Malformed),
        ),
        (
            format!("{{\"p\":1,\"exp\":{}.5}}", NOW_S - 1),
            None,
            Err(Reason::Expired),
            Err(Reason::Malformed),
        ),
        (
            "{\"p\":1,\"exp\":1e20}".into(),
            None,
            Ok("1"),
            Err(Reason::Malformed),
        ),
        (
            "{\"p\":1,\"exp\":1e400}".into(),
            None,
            Ok("1"),
            Err(Reason::Malformed),
        ),
        (
            "{\"p\":1,\"exp\":-1e400}".into(),
            None,
            Err(Reason::Expired),
            Err(Reason::Malformed),
        ),
        (
            "{\"p\":1,\"exp\":1e3}".into(),
            None,
            Err(Reason::Expired),
            Err(Reason::Malformed),
        ),
        (
            format!("{{\"p\":1,\"p\":2,\"exp\":{exp}}}"),
            None,
            Ok("2"),
            Err(Reason::Malformed),
        ),
        (
            format!("{{\"p\":1,\"exp\":1,\"exp\":{exp}}}"),
            None,
            Ok("1"),
            Err(Reason::Malformed),
        ),
        (
            format!("{{\"p\":1,\"exp\":{exp},\"exp\":1}}"),
            None,
            Err(Reason::Expired),
            Err(Reason::Malformed),
        ),
        (
            format!("\u{feff}{{\"p\":[true],\"exp\":{exp}}}"),
            None,
            Ok("[true]"),
            Err(Reason::Malformed),
        ),
        (
            format!("{{\"\\u0070\":7,\"\\u0065xp\":{exp}}}"),
            None,
            Ok("7"),
            Ok("7"),
        ),
        (
            format!("{{\"p\":1,\"exp\":\"{exp}\"}}"),
            None,
            Err(Reason::Expired),
            Err(Reason::Malformed),
        ),
        (
            "{\"p\":1}".into(),
            None,
            Err(Reason::Expired),
            Err(Reason::Malformed),
        ),
        (
            "[1]".into(),
            None,
            Err(Reason::Expired),
            Err(Reason::Malformed),
        ),
        (
            "\"text\"".into(),
            None,
            Err(Reason::Expired),
            Err(Reason::Malformed),
        ),
        (
            "null".into(),
            None,
            Err(Reason::Malformed),
            Err(Reason::Malformed),
        ),
        (
            "{not json".into(),
            None,
            Err(Reason::Malformed),
            Err(Reason::Malformed),
        ),
        // Binding: `b` of any type is judged as the SDK judges it.
        (
            format!("{{\"p\":1,\"exp\":{exp},\"b\":null}}"),
            None,
            Err(Reason::Bind),
            Err(Reason::Bind),
        ),
        (
            format!("{{\"p\":1,\"exp\":{exp},\"b\":5}}"),
            Some("alice"),
            Err(Reason::Bind),
            Err(Reason::Bind),
        ),
        (
            format!("{{\"p\":1,\"exp\":{exp},\"b\":\"x\",\"b\":\"{t}\"}}"),
            Some("alice"),
            Ok("1"),
            Err(Reason::Malformed),
        ),
        (
            format!("{{\"exp\":{exp}.5,\"b\":\"{t}\"}}"),
            Some("alice"),
            Ok(""),
            Err(Reason::Malformed),
        ),
        (
            format!("{{\"exp\":{exp}.5,\"b\":\"{t}\"}}"),
            Some("bob"),
            Err(Reason::Bind),
            Err(Reason::Malformed),
        ),
        // The expiry step comes before the binding step in both readings.
        (
            format!("{{\"p\":1,\"exp\":{}.5,\"b\":\"{t}\"}}", NOW_S - 1),
            Some("bob"),
            Err(Reason::Expired),
            Err(Reason::Malformed),
        ),
    ];
    for (envelope, bind, sdk, spec) in rows {
        let token = signed(&envelope);
        let want = |r: Result<&str, Reason>| r.map(str::to_owned);
        assert_eq!(
            open(protocol::OP_SDK, &token, bind, NOW_MS),
            want(sdk),
            "SDK reading of {envelope}"
        );
        assert_eq!(
            open(protocol::OP_RAW, &token, bind, NOW_MS),
            want(spec),
            "docs/format.md's reading of {envelope}"
        );
        // Whatever the body, a broken MAC is "mac" first.
        let broken = format!("{}A", &token[..token.len() - 1]);
        let broken = if broken == token {
            format!("{}B", &token[..token.len() - 1])
        } else {
            broken
        };
        assert_eq!(
            open(protocol::OP_SDK, &broken, bind, NOW_MS),
            Err(Reason::Mac),
            "{envelope}"
        );
    }
}

#[test]
fn the_shape_and_size_steps_are_spec_s() {
    let token = signed(&format!("{{\"p\":1,\"exp\":{}}}", NOW_S + 600));
    for bad in [
        format!("{token}="),
        format!(" {token}"),
        format!("v2{}", &token[2..]),
        "garbage".into(),
    ] {
        assert_eq!(
            open(protocol::OP_SDK, &bad, None, NOW_MS),
            open(protocol::OP_RAW, &bad, None, NOW_MS),
            "{bad}"
        );
    }
}

// ---- property: the SDK reading against an independent one ----------------

use proptest::prelude::*;
use serde_json::Value;

/// What the SDK's codec makes of a body whose MAC verified, read with
/// serde_json (its `Map` keeps the last of a repeated key, as `JSON.parse`
/// does): the payload as a value (`Null` standing in for `undefined` is told
/// apart by the `Option`), or the reason. `None`: too close to call (an exp
/// within a millisecond of the current second, where rounding decides).
fn sdk_reading(text: &str, bind: Option<&str>, tag: &str) -> Option<Result<Option<Value>, Reason>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Ok(envelope) = serde_json::from_str::<Value>(text) else {
        return Some(Err(Reason::Malformed));
    };
    let object = match envelope {
        Value::Null => return Some(Err(Reason::Malformed)), // the SDK throws a TypeError
        Value::Object(m) => m,
        _ => return Some(Err(Reason::Expired)),
    };
    match object.get("exp").and_then(Value::as_f64) {
        Some(exp) if (exp - NOW_S as f64).abs() < 1e-3 => return None,
        Some(exp) if exp >= NOW_S as f64 => {}
        _ => return Some(Err(Reason::Expired)),
    }
    match (bind, object.get("b")) {
        (None, None) => {}
        (Some(_), Some(Value::String(b))) if b == tag => {}
        _ => return Some(Err(Reason::Bind)),
    }
    Some(Ok(object.get("p").cloned()))
}

fn json_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        any::<i32>().prop_map(|n| n.to_string()),
        "[a-z\"\\\\é😀 ]{0,6}".prop_map(|s| serde_json::to_string(&s).unwrap()),
    ];
    leaf.prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4)
                .prop_map(|v| format!("[{}]", v.join(","))),
            proptest::collection::vec(("[a-z]{1,2}", inner), 0..4).prop_map(|m| {
                let members: Vec<String> = m.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

fn exp_text() -> impl Strategy<Value = String> {
    let near = NOW_S - 5..NOW_S + 5;
    prop_oneof![
        near.clone().prop_map(|n| n.to_string()),
        (near.clone(), 1..999u32).prop_map(|(n, f)| format!("{n}.{f}")),
        (near, 0..3u32).prop_map(|(n, z)| format!("{}e{z}", n as f64 / 10f64.powi(z as i32))),
        (-300..300i32).prop_map(|e| format!("1e{e}")),
        Just("\"1\"".to_string()),
        Just("null".to_string()),
        Just("[]".to_string()),
    ]
}

/// Envelope members, in any order, repeated or missing, under any spelling
/// of the key that JSON.parse reads the same.
fn envelope_text(tag: &'static str) -> impl Strategy<Value = String> {
    let key = |k: &'static str| {
        prop_oneof![
            Just(format!("\"{k}\"")),
            Just(format!("\"\\u{:04x}{}\"", k.as_bytes()[0], &k[1..]))
        ]
    };
    let member = prop_oneof![
        (key("p"), json_value()).prop_map(|(k, v)| format!("{k}:{v}")),
        (key("exp"), exp_text()).prop_map(|(k, v)| format!("{k}:{v}")),
        (
            key("b"),
            prop_oneof![
                Just(format!("\"{tag}\"")),
                Just("\"x\"".to_string()),
                Just("null".to_string()),
                Just("5".to_string())
            ]
        )
            .prop_map(|(k, v)| format!("{k}:{v}")),
        (key("o"), json_value()).prop_map(|(k, v)| format!("{k}:{v}")),
    ];
    let object =
        proptest::collection::vec(member, 0..6).prop_map(|m| format!("{{{}}}", m.join(",")));
    (
        object,
        prop_oneof![Just(""), Just("\u{feff}"), Just(" ")],
        prop_oneof![8 => Just(None), 1 => json_value().prop_map(Some)],
    )
        .prop_map(|(o, lead, other)| {
            other.map_or_else(|| format!("{lead}{o}"), |v| format!("{lead}{v}"))
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn the_sdk_reading_is_the_sdk_s(text in envelope_text("TAG"), bound in any::<bool>()) {
        let tag = tag("alice");
        let text = text.replace("TAG", &tag);
        let bind = bound.then_some("alice");
        let Some(want) = sdk_reading(&text, bind, &tag) else {
            return Ok(());
        };
        let got = open(protocol::OP_SDK, &signed(&text), bind, NOW_MS).map(|json| {
            (!json.is_empty()).then(|| serde_json::from_str::<Value>(&json).unwrap())
        });
        prop_assert_eq!(got, want, "{}", text);
    }
}
