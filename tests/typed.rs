//! The `serde` feature (src/typed.rs): derived types round trip, every reason
//! of the JSON-text codec comes back unchanged, a payload that is not a `T` is
//! its own error, and tokens cross between serde values and JSON text (the
//! SDK's vectors, and the number formats where serde_json and JSON.stringify
//! write different text).
#![cfg(all(feature = "serde", not(target_arch = "wasm32")))]

mod common;

use std::collections::BTreeMap;

use common::{codec_with, sdk_vectors, KEY, KEY2, NOW_MS};
use mcp_sealed_state::typed::{OpenError, SealValueError};
use mcp_sealed_state::{
    Codec, OpenWith, Reason, SealWith, TokenView, SEALED_STATE_INVALID_MESSAGE,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Game {
    board: String,
    turn: u8,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Step {
    Start,
    Move { cell: u8, by: Option<String> },
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(rename_all = "camelCase")]
struct Wizard {
    step_no: u32,
    history: Vec<Step>,
    answers: BTreeMap<String, f64>,
    note: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    tags: Vec<String>,
}

fn codec() -> Codec {
    codec_with(&[KEY], |_| {})
}

fn game() -> Game {
    Game {
        board: "X...O....".into(),
        turn: 2,
    }
}

fn wizard() -> Wizard {
    Wizard {
        step_no: 3,
        history: vec![
            Step::Start,
            Step::Move {
                cell: 4,
                by: Some("ünï \"q\" \n🎲".into()),
            },
            Step::Move { cell: 0, by: None },
        ],
        answers: [("a".to_string(), 0.5), ("b".to_string(), -273.15)].into(),
        note: None,
        tags: vec![],
    }
}

/// The reason of a token failure; its message is always the stable one.
fn token_reason<T: std::fmt::Debug>(r: Result<T, OpenError>) -> Reason {
    match r {
        Err(OpenError::Token(e)) => {
            assert_eq!(e.to_string(), SEALED_STATE_INVALID_MESSAGE);
            e.reason()
        }
        other => panic!("expected a token failure, got {other:?}"),
    }
}

#[test]
fn derived_types_round_trip_in_each_purpose() {
    let c = codec();
    let t = c.typed();
    let tok = t.seal(&game(), &SealWith::view()).unwrap();
    assert_eq!(t.open::<Game>(&tok, &OpenWith::view()).unwrap(), game());

    let tok = t
        .seal(&wizard(), &SealWith::request_state("wizard").bind("user-7"))
        .unwrap();
    assert_eq!(
        t.open::<Wizard>(&tok, &OpenWith::request_state("wizard").bind("user-7"))
            .unwrap(),
        wizard()
    );

    let steps = vec![Step::Start, Step::Move { cell: 8, by: None }];
    let tok = t.seal(&steps, &SealWith::raw().bind("")).unwrap();
    assert_eq!(
        t.open::<Vec<Step>>(&tok, &OpenWith::raw().bind(""))
            .unwrap(),
        steps
    );
    // The system-clock variants.
    let tok = t.seal(&game(), &SealWith::view().bind("u")).unwrap();
    assert_eq!(
        t.open::<Game>(&tok, &OpenWith::view().bind("u")).unwrap(),
        game()
    );
    let tok = t.seal(&game(), &SealWith::request_state("move")).unwrap();
    assert_eq!(
        t.open::<Game>(&tok, &OpenWith::request_state("move"))
            .unwrap(),
        game()
    );
    let tok = t.seal(&game(), &SealWith::raw()).unwrap();
    assert_eq!(t.open::<Game>(&tok, &OpenWith::raw()).unwrap(), game());
}

#[test]
fn typed_and_json_text_tokens_are_the_same_tokens() {
    let c = codec();
    let json = serde_json::to_string(&game()).unwrap();
    assert_eq!(json, r#"{"board":"X...O....","turn":2}"#);
    assert_eq!(
        c.typed()
            .seal(&game(), &SealWith::view().bind("b"))
            .unwrap(),
        c.seal(&json, &SealWith::view().bind("b")).unwrap()
    );
    assert_eq!(
        c.typed()
            .seal(&game(), &SealWith::request_state("move"))
            .unwrap(),
        c.seal(&json, &SealWith::request_state("move")).unwrap()
    );
    assert_eq!(
        c.typed().seal(&game(), &SealWith::raw()).unwrap(),
        c.seal(&json, &SealWith::raw()).unwrap()
    );
    // A token sealed as text opens typed, and the reverse.
    let tok = c.seal(&json, &SealWith::view()).unwrap();
    assert_eq!(
        c.typed().open::<Game>(&tok, &OpenWith::view()).unwrap(),
        game()
    );
    let tok = c.typed().seal(&wizard(), &SealWith::view()).unwrap();
    let text = c
        .open(&tok, &OpenWith::view())
        .unwrap()
        .payload
        .into_payload_json();
    assert_eq!(serde_json::from_str::<Wizard>(&text).unwrap(), wizard());
}

#[test]
fn every_reason_is_the_json_text_codecs_reason() {
    let c = codec_with(&[KEY], |o| o.ttl_seconds = 10);
    let t = c.typed();
    let view = t.seal(&game(), &SealWith::view().bind("alice")).unwrap();
    let rs = t.seal(&game(), &SealWith::request_state("move")).unwrap();

    assert_eq!(
        token_reason(t.open::<Game>("v1.x", &OpenWith::view())),
        Reason::Malformed
    );
    assert_eq!(
        token_reason(
            codec_with(&[KEY2], |_| {})
                .typed()
                .open::<Game>(&view, &OpenWith::view().bind("alice"))
        ),
        Reason::Mac
    );
    let later = NOW_MS + 11_000.0;
    assert_eq!(
        token_reason(common::at(later, || t
            .open::<Game>(&view, &OpenWith::view().bind("alice")))),
        Reason::Expired
    );
    assert_eq!(
        token_reason(t.open::<Game>(&view, &OpenWith::view().bind("bob"))),
        Reason::Bind
    );
    assert_eq!(
        token_reason(t.open::<Game>(&view, &OpenWith::view())),
        Reason::Bind
    );
    assert_eq!(
        token_reason(t.open::<Game>(&rs, &OpenWith::view())),
        Reason::Purpose
    );
    assert_eq!(
        token_reason(t.open::<Game>(&rs, &OpenWith::request_state("start"))),
        Reason::Purpose
    );
    // Same reasons as the text API, one for one.
    for (typed, text) in [
        (
            t.open::<Game>(&rs, &OpenWith::view()).unwrap_err(),
            c.open(&rs, &OpenWith::view()).unwrap_err(),
        ),
        (
            common::at(later, || {
                t.open::<Game>(&view, &OpenWith::view().bind("bob"))
            })
            .unwrap_err(),
            common::at(later, || c.open(&view, &OpenWith::view().bind("bob"))).unwrap_err(),
        ),
    ] {
        assert_eq!(typed.token_error(), Some(&text));
    }
}

#[test]
fn token_checks_come_before_the_payload_type() {
    // A token for another principal whose payload is also not a `Vec<u8>`:
    // the token failure wins, as no payload is looked at before every check passed.
    let c = codec();
    let tok = c
        .typed()
        .seal(&game(), &SealWith::view().bind("alice"))
        .unwrap();
    assert_eq!(
        token_reason(
            c.typed()
                .open::<Vec<u8>>(&tok, &OpenWith::view().bind("bob"))
        ),
        Reason::Bind
    );
    // Tampered: still a token failure, never a payload one.
    let mut chars: Vec<char> = tok.chars().collect();
    let i = chars.len() - 5;
    chars[i] = if chars[i] == 'A' { 'B' } else { 'A' };
    let tampered: String = chars.into_iter().collect();
    assert_eq!(
        token_reason(
            c.typed()
                .open::<Game>(&tampered, &OpenWith::view().bind("alice"))
        ),
        Reason::Mac
    );
}

#[test]
fn a_genuine_token_of_another_shape_is_a_payload_error() {
    let c = codec();
    let tok = c.typed().seal(&wizard(), &SealWith::view()).unwrap();
    let err = c.typed().open::<Game>(&tok, &OpenWith::view()).unwrap_err();
    assert!(matches!(err, OpenError::Payload(_)), "{err:?}");
    assert!(err.token_error().is_none());
    let msg = err.to_string();
    assert!(
        msg.starts_with("the sealed payload is not of the expected type: "),
        "{msg}"
    );
    assert!(!msg.contains(SEALED_STATE_INVALID_MESSAGE));
    // The source chain reaches serde_json's error.
    let source = std::error::Error::source(&err).unwrap();
    assert!(source.is::<serde_json::Error>());

    // Out of range for the field's type (turn: u8).
    let tok = c
        .seal(r#"{"board":".........","turn":300}"#, &SealWith::view())
        .unwrap();
    assert!(matches!(
        c.typed().open::<Game>(&tok, &OpenWith::view()),
        Err(OpenError::Payload(_))
    ));
    // JS strings may hold lone surrogates, Rust strings cannot: a genuine SDK
    // token with one is a payload error for any `T` holding a String.
    let tok = c
        .seal(r#"{"board":"\ud800","turn":1}"#, &SealWith::view())
        .unwrap();
    assert!(matches!(
        c.typed().open::<Game>(&tok, &OpenWith::view()),
        Err(OpenError::Payload(_))
    ));
}

#[test]
fn sealing_errors_are_values() {
    let c = codec_with(&[KEY], |o| o.max_token_bytes = 200);
    // serde_json refuses maps with non-string keys.
    let mut m = BTreeMap::new();
    m.insert(vec![1u8], 1);
    assert!(matches!(
        c.typed().seal(&m, &SealWith::view()),
        Err(SealValueError::Serialize(_))
    ));
    // Too big for this codec to open again.
    let big = "x".repeat(300);
    match c.typed().seal(&big, &SealWith::view()) {
        Err(SealValueError::Seal(mcp_sealed_state::SealError::TokenTooLarge {
            max_bytes: 200,
            ..
        })) => {}
        other => panic!("{other:?}"),
    }
    match c.typed().seal(&big, &SealWith::request_state("t")) {
        Err(SealValueError::Seal(mcp_sealed_state::SealError::TokenTooLarge { .. })) => {}
        other => panic!("{other:?}"),
    }
}

/// Every SDK vector opens into a serde_json::Value; where serde_json writes the
/// same text for that value, re-sealing it gives the SDK's token byte for byte.
#[test]
fn sdk_vectors_open_typed_and_reseal_byte_identical() {
    let (mut identical, mut differs, mut not_rust) = (0, 0, 0);
    for v in sdk_vectors() {
        let c = codec_with(&[&v.key], |o| o.ttl_seconds = v.ttl_seconds);
        let t = c.typed();
        let bind = v.bind.as_deref();
        let opened: Result<Value, _> = match (v.kind.as_str(), v.tool.as_deref()) {
            ("raw", _) => common::at(v.now_ms, || t.open(&v.token, &OpenWith::raw().bind(bind))),
            ("view", _) => common::at(v.now_ms, || t.open(&v.token, &OpenWith::view().bind(bind))),
            ("requestState", Some(tool)) => common::at(v.now_ms, || {
                t.open(&v.token, &OpenWith::request_state(tool).bind(bind))
            }),
            other => panic!("{}: {other:?}", v.name),
        };
        let value = match opened {
            Ok(value) => value,
            Err(OpenError::Payload(_)) => {
                // Lone surrogates: valid in JS strings, not in Rust's.
                assert!(
                    v.payload_json.contains("\\ud") || v.payload_json.contains("\\udc"),
                    "{}",
                    v.name
                );
                not_rust += 1;
                continue;
            }
            Err(e) => panic!("{}: {e:?}", v.name),
        };
        let resealed = match (v.kind.as_str(), v.tool.as_deref()) {
            ("raw", _) => common::at(v.now_ms, || t.seal(&value, &SealWith::raw().bind(bind))),
            ("view", _) => common::at(v.now_ms, || t.seal(&value, &SealWith::view().bind(bind))),
            (_, Some(tool)) => common::at(v.now_ms, || {
                t.seal(&value, &SealWith::request_state(tool).bind(bind))
            }),
            _ => unreachable!(),
        }
        .unwrap();
        if serde_json::to_string(&value).unwrap() == v.payload_json {
            assert_eq!(resealed, v.token, "{}", v.name);
            identical += 1;
        } else {
            assert_ne!(resealed, v.token, "{}", v.name);
            differs += 1;
        }
    }
    // The set has both kinds, and most vectors are byte-identical.
    assert!(identical >= 35, "identical {identical}");
    assert!(differs >= 2, "differs {differs}");
    assert!(not_rust >= 3, "lone surrogates {not_rust}");
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Numbers {
    big: f64,
    whole: f64,
    small: f64,
    one: f64,
    neg_zero: f64,
    exact: u64,
}

/// Where serde_json and JSON.stringify write the same value differently (the
/// JS text below is what `JSON.stringify` writes), the tokens differ and each
/// opens on the other side into the same value. js/test/rust-interop.test.mjs
/// proves the JS half against the SDK's codec.
#[test]
fn number_formats_differ_yet_both_tokens_open() {
    let c = codec();
    let value = Numbers {
        big: 1e21,
        whole: 1e20,
        small: 1e-6,
        one: 1.0,
        neg_zero: -0.0,
        exact: 9_007_199_254_740_993,
    };
    let serde_text = serde_json::to_string(&value).unwrap();
    assert_eq!(
        serde_text,
        r#"{"big":1e+21,"whole":1e+20,"small":1e-6,"one":1.0,"neg_zero":-0.0,"exact":9007199254740993}"#
    );
    // JSON.stringify({big:1e21, whole:1e20, small:1e-6, one:1, neg_zero:-0, exact:9007199254740993})
    let js_text = r#"{"big":1e+21,"whole":100000000000000000000,"small":0.000001,"one":1,"neg_zero":0,"exact":9007199254740992}"#;
    let from_serde = c.typed().seal(&value, &SealWith::view()).unwrap();
    let from_js = c.seal(js_text, &SealWith::view()).unwrap();
    assert_ne!(from_serde, from_js);

    let a: Numbers = c.typed().open(&from_serde, &OpenWith::view()).unwrap();
    let b: Numbers = c.typed().open(&from_js, &OpenWith::view()).unwrap();
    assert_eq!(a, value);
    assert!(a.neg_zero.is_sign_negative());
    assert_eq!((b.big, b.whole, b.small, b.one), (1e21, 1e20, 1e-6, 1.0));
    assert!(b.neg_zero == 0.0 && b.neg_zero.is_sign_positive()); // JS lost the sign of zero
    assert_eq!(b.exact, 9_007_199_254_740_992); // and the integer beyond 2^53
                                                // The JSON-text API keeps each text exactly as sealed.
    assert_eq!(
        c.open(&from_serde, &OpenWith::view())
            .unwrap()
            .payload_json(),
        serde_text
    );
    assert_eq!(
        c.open(&from_js, &OpenWith::view()).unwrap().payload_json(),
        js_text
    );
    // What an unverified reader (a widget) sees.
    let view: TokenView = mcp_sealed_state::read_token_unverified(&from_serde).unwrap();
    assert_eq!(view.payload_json(), serde_text);
}

#[test]
fn a_typed_secret_and_request_round_trip() {
    use mcp_sealed_state::typed::OpenedValue;
    use mcp_sealed_state::Request;
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Hidden {
        seed: u64,
        game: String,
    }
    let c = codec_with(&[KEY], |_| {});
    let hidden = Hidden {
        seed: 7,
        game: "g-1".into(),
    };
    let t = c
        .typed()
        .seal_with_secret(&[1, 2], &hidden, &SealWith::view().bind("u"))
        .unwrap();
    let opened: OpenedValue<Vec<u8>, Hidden> = c
        .typed()
        .open_with_secret(&t, &OpenWith::view().bind("u"))
        .unwrap();
    assert_eq!((opened.payload, opened.secret), (vec![1, 2], Some(hidden)));
    // The typed open reads the payload alone.
    assert_eq!(
        c.typed()
            .open::<Vec<u8>>(&t, &OpenWith::view().bind("u"))
            .unwrap(),
        [1, 2]
    );
    // One secret per token: not a value and a text both.
    assert!(matches!(
        c.typed()
            .seal_with_secret(&1, &2, &SealWith::view().secret("3")),
        Err(SealValueError::TwoSecrets)
    ));
    let args = serde_json::json!({"y": 2, "x": [1.5, "a"]});
    let with = SealWith::request_state("move").request(Request::Value(&args));
    let rs = c.typed().seal(&0, &with).unwrap();
    // The same arguments as JSON text, in another order, open it too.
    let text =
        OpenWith::request_state("move").request(Request::Json("{\"x\":[1.5,\"a\"],\"y\":2}"));
    assert!(c.open(&rs, &text).is_ok());
    let with = OpenWith::request_state("move").request(Request::Value(&args));
    let opened = c.typed().open_with_secret::<u8, ()>(&rs, &with).unwrap();
    assert_eq!((opened.payload, opened.secret), (0, None));
    let other = serde_json::json!({"y": 3, "x": [1.5, "a"]});
    let changed = OpenWith::request_state("move").request(Request::Value(&other));
    let e = c.typed().open::<u8>(&rs, &changed).unwrap_err();
    assert_eq!(e.token_error().unwrap().reason().as_str(), "request");
}

/// A genuine token whose secret is not an `S` (a client can send another
/// token of the same key on purpose): the error says so, and neither its
/// `Display` nor its `Debug` holds a byte of the decrypted secret.
#[test]
fn a_secret_of_another_type_is_its_own_error_and_never_quoted() {
    const SECRET: &str = "sk-live-4f9a0c2e7d1b";
    let c = codec();
    let secret_json = format!("{{\"apiKey\":\"{SECRET}\",\"n\":7}}");
    for (name, with) in [
        ("a string", serde_json::to_string(SECRET).unwrap()),
        ("an object", secret_json.clone()),
    ] {
        let token = c
            .seal(
                r#"{"board":".........","turn":1}"#,
                &SealWith::view().secret(with.as_str()),
            )
            .unwrap();
        // The payload is a Game; the secret is asked for as a number.
        let err = c
            .typed()
            .open_with_secret::<Game, u64>(&token, &OpenWith::view())
            .unwrap_err();
        let OpenError::Secret(mismatch) = &err else {
            panic!("{name}: {err:?}");
        };
        assert_eq!(mismatch.category(), serde_json::error::Category::Data);
        assert!(err.token_error().is_none());
        for text in [err.to_string(), format!("{err:?}"), format!("{err:#?}")] {
            assert!(!text.contains("sk-live"), "{name}: {text}");
            assert!(!text.contains("apiKey"), "{name}: {text}");
        }
        assert!(
            err.to_string()
                .starts_with("the sealed secret is not of the expected type: "),
            "{err}"
        );
        // Nor does the source chain.
        let source = std::error::Error::source(&err).unwrap();
        assert!(!source.to_string().contains("sk-live"));
    }
    // The payload failing comes first, and is a payload error.
    let token = c
        .seal("[1]", &SealWith::view().secret(secret_json.as_str()))
        .unwrap();
    let err = c
        .typed()
        .open_with_secret::<Game, u64>(&token, &OpenWith::view())
        .unwrap_err();
    assert!(matches!(err, OpenError::Payload(_)), "{err:?}");
    assert!(!format!("{err} {err:?}").contains("sk-live"));
}

/// `Debug` of everything that holds a key or a decrypted secret prints it
/// as `<redacted>`.
#[test]
fn debug_never_prints_a_key_or_a_secret() {
    const SECRET: &str = "sk-live-4f9a0c2e7d1b";
    let key: &[u8] = b"debug-redaction key: at least 32 bytes long";
    let options = mcp_sealed_state::CodecOptions::with_keys(vec![key, &KEY2[..]]);
    let text = format!("{options:?}");
    assert!(!text.contains("debug-redaction"), "{text}");
    assert!(
        text.contains("keys: Some([<redacted>, <redacted>])"),
        "{text}"
    );
    let byte_options = mcp_sealed_state::CodecOptions::with_keys(vec![[0x41u8; 32]]);
    assert!(
        !format!("{byte_options:?}").contains("65, 65"),
        "{byte_options:?}"
    );

    let c = codec();
    let secret = serde_json::to_string(SECRET).unwrap();
    let with = SealWith::view().secret(secret.as_str());
    assert!(!format!("{with:?}").contains("sk-live"), "{with:?}");
    assert!(format!("{with:?}").contains("secret: Some(<redacted>)"));

    let token = c.seal("1", &with).unwrap();
    let opened = c.open(&token, &OpenWith::view()).unwrap();
    assert_eq!(opened.secret.as_deref(), Some(secret.as_str()));
    let text = format!("{opened:?} {opened:#?}");
    assert!(!text.contains("sk-live"), "{text}");
    assert!(text.contains("secret: Some(<redacted>)"), "{text}");

    let value = c
        .typed()
        .open_with_secret::<u8, String>(&token, &OpenWith::view())
        .unwrap();
    assert_eq!(value.secret.as_deref(), Some(SECRET));
    let text = format!("{value:?}");
    assert!(!text.contains("sk-live"), "{text}");
    assert_eq!(text, "OpenedValue { payload: 1, secret: Some(<redacted>) }");
}
