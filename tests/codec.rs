//! The codec's contract: the reasons table (docs/format.md, "Opening: order and reasons"),
//! plus expiry, leeway, rotation, size limit and keys.
#![cfg(all(feature = "edge", not(target_arch = "wasm32")))]

mod common;
#[path = "common/table.rs"]
mod table;

use common::{codec_with, KEY, KEY2};
use mcp_sealed_state::{
    Codec, CodecOptions, OpenWith, Reason, SealWith, SealedStateError, SEALED_STATE_INVALID_MESSAGE,
};

fn codec() -> Codec {
    codec_with(&[KEY], |_| {})
}

fn reason<T: std::fmt::Debug>(r: Result<T, SealedStateError>) -> Reason {
    let e = r.unwrap_err();
    assert_eq!(
        e.to_string(),
        SEALED_STATE_INVALID_MESSAGE,
        "the message never says which step failed"
    );
    e.reason()
}

const GAME: &str = r#"{"board":[0,0,0,0,0,0,0,0,0],"turn":1}"#;

#[test]
fn round_trip_returns_the_exact_payload_json() {
    let c = codec();
    let t = c.seal(GAME, &SealWith::view()).unwrap();
    assert_eq!(c.open(&t, &OpenWith::view()).unwrap().payload_json(), GAME);
    assert_eq!(
        c.open(&t, &OpenWith::view())
            .unwrap()
            .payload
            .into_payload_json(),
        GAME
    );
}

/// Which input gives which reason: tests/vectors/reasons.json, which js/suite runs too.
#[test]
fn every_case_of_the_reasons_table() {
    let (cases, tokens, _) = table::run(include_str!("vectors/reasons.json"));
    assert!(
        cases >= 14 && tokens >= 35,
        "the table is complete: {cases} cases, {tokens} tokens"
    );
}

#[test]
fn rotation_first_key_seals_every_key_opens_bind_uses_the_matching_key() {
    let old = codec_with(&[KEY2], |_| {});
    let rotated = codec_with(&[KEY, KEY2], |_| {});
    let t_old = old.seal(GAME, &SealWith::view().bind("alice")).unwrap();
    assert!(rotated
        .open(&t_old, &OpenWith::view().bind("alice"))
        .is_ok());
    assert_eq!(
        reason(rotated.open(&t_old, &OpenWith::view().bind("bob"))),
        Reason::Bind
    );
    let t_new = rotated.seal(GAME, &SealWith::view()).unwrap();
    assert!(
        codec().open(&t_new, &OpenWith::view()).is_ok(),
        "the first key sealed it"
    );
    assert_eq!(reason(old.open(&t_new, &OpenWith::view())), Reason::Mac);
}

#[test]
fn oversize_tokens_are_refused_as_malformed_even_when_genuine() {
    let c = codec();
    let t = c.seal(GAME, &SealWith::view()).unwrap();
    let strict = codec_with(&[KEY], |o| o.max_token_bytes = t.len() - 1);
    // A genuine token one byte over the limit is refused at the shape step,
    // which runs before any hashing: the reason is `malformed`, not `mac`.
    assert_eq!(
        reason(strict.open(&t, &OpenWith::view())),
        Reason::Malformed
    );
    assert!(codec_with(&[KEY], |o| o.max_token_bytes = t.len())
        .open(&t, &OpenWith::view())
        .is_ok());
}

#[test]
fn sealing_refuses_a_token_the_codec_could_not_open() {
    let c = codec_with(&[KEY], |o| o.max_token_bytes = 200);
    let big = format!("\"{}\"", "x".repeat(200));
    assert!(matches!(
        c.seal(&big, &SealWith::view()),
        Err(mcp_sealed_state::SealError::TokenTooLarge { max_bytes: 200, .. })
    ));
    assert!(c.seal("1", &SealWith::view()).is_ok());
}

#[test]
fn keys_are_checked_at_construction() {
    let short = Codec::new(CodecOptions::with_keys(vec![vec![1u8; 31]])).unwrap_err();
    assert!(short.to_string().contains("at least 32 bytes"), "{short}");
    let mut prod = CodecOptions::<Vec<u8>>::default();
    prod.production = true;
    assert!(Codec::new(prod)
        .unwrap_err()
        .to_string()
        .contains("production"));
    let dev = Codec::new(CodecOptions::<Vec<u8>>::default()).unwrap();
    assert!(dev.is_ephemeral());
    let t = dev.seal(GAME, &SealWith::view()).unwrap();
    assert_eq!(
        dev.open(&t, &OpenWith::view()).unwrap().payload_json(),
        GAME
    );
    // One development key per process: another keyless codec opens it, a keyed one does not.
    let other = Codec::new(CodecOptions::<Vec<u8>>::default()).unwrap();
    assert_eq!(
        other.open(&t, &OpenWith::view()).unwrap().payload_json(),
        GAME
    );
    assert_eq!(reason(codec().open(&t, &OpenWith::view())), Reason::Mac);
}

#[test]
fn seal_refuses_payloads_that_are_not_json() {
    let c = codec();
    for bad in ["", "{", "undefined", "{'a':1}", "[1,]"] {
        assert!(c.seal(bad, &SealWith::view()).is_err(), "{bad}");
        assert!(c.seal(bad, &SealWith::raw()).is_err(), "{bad}");
        assert!(
            c.seal(bad, &SealWith::request_state("move")).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn reason_codes_are_spelled_as_spec_says() {
    let names: Vec<_> = [
        Reason::Malformed,
        Reason::Mac,
        Reason::Expired,
        Reason::Bind,
        Reason::Purpose,
    ]
    .iter()
    .map(|r| r.as_str())
    .collect();
    assert_eq!(names, ["malformed", "mac", "expired", "bind", "purpose"]);
}

#[test]
fn a_clock_that_cannot_be_read_is_refused_never_read_as_the_epoch() {
    let c = codec();
    let expired = codec_with(&[KEY], |o| o.ttl_seconds = -10)
        .seal("1", &SealWith::view())
        .unwrap();
    let fresh = c.seal("1", &SealWith::view()).unwrap();
    for bad in [f64::NAN, f64::NEG_INFINITY, f64::INFINITY, -1e300, 1e300] {
        // NaN cast to an integer is the epoch, -inf is i64::MIN: both made
        // this expired token open.
        assert_eq!(
            reason(common::at(bad, || c.open(&expired, &OpenWith::view()))),
            Reason::Expired,
            "{bad}"
        );
        assert_eq!(
            reason(common::at(bad, || c.open(&fresh, &OpenWith::view()))),
            Reason::Expired,
            "{bad}"
        );
        assert_eq!(
            reason(common::at(bad, || c.open(&fresh, &OpenWith::raw()))),
            Reason::Expired,
            "{bad}"
        );
        assert_eq!(
            common::at(bad, || c.seal("1", &SealWith::view())),
            Err(mcp_sealed_state::SealError::InvalidClock),
            "{bad}"
        );
        assert_eq!(
            common::at(bad, || c.seal("1", &SealWith::request_state("t"))),
            Err(mcp_sealed_state::SealError::InvalidClock)
        );
        assert_eq!(
            common::at(bad, || c.seal("1", &SealWith::raw())),
            Err(mcp_sealed_state::SealError::InvalidClock)
        );
    }
    assert_eq!(
        mcp_sealed_state::internals::clock::seconds_left(0, f64::NAN),
        None
    );
}

#[test]
fn every_sealer_checks_its_payload() {
    let c = codec();
    for bad in ["", "{", "{\"a\":1}x", "undefined"] {
        for sealed in [
            c.seal(bad, &SealWith::view()),
            c.seal(bad, &SealWith::request_state("t")),
            c.seal(bad, &SealWith::raw().bind("u")),
        ] {
            assert_eq!(
                sealed,
                Err(mcp_sealed_state::SealError::PayloadNotJson),
                "{bad}"
            );
        }
    }
}

#[test]
fn an_empty_key_list_is_refused_never_the_ephemeral_key() {
    use mcp_sealed_state::KeyError;
    for production in [false, true] {
        let mut o = CodecOptions::<Vec<u8>>::with_keys(vec![]);
        o.production = production;
        assert_eq!(
            Codec::new(o).unwrap_err(),
            mcp_sealed_state::ConfigError::Key(KeyError::Empty)
        );
    }
    // No key option at all is still the development key.
    assert!(Codec::new(CodecOptions::<Vec<u8>>::default())
        .unwrap()
        .is_ephemeral());
}

/// The key length rule as HMAC uses the key (tests/vectors/key-length.json):
/// trailing zero bytes of a key of up to 64 bytes do not count, and an
/// all-zero key is refused, so no codec runs on a key HMAC shortens.
#[test]
fn keys_are_measured_as_hmac_uses_them() {
    use mcp_sealed_state::{ConfigError, KeyError};
    let cases = common::key_length_cases();
    assert!(cases.len() >= 10);
    for case in cases {
        let got = Codec::new(CodecOptions::with_keys(case.keys.clone())).map(|_| ());
        let want = case.error.as_ref().map(|(kind, index)| {
            let len = case.keys[*index].len();
            match kind.as_str() {
                "too-short" => KeyError::TooShort { index: *index, len },
                "zero-padded" => KeyError::ZeroPadded { index: *index, len },
                "all-zero" => KeyError::AllZero { index: *index },
                other => panic!("{other}"),
            }
        });
        assert_eq!(
            got,
            want.map_or(Ok(()), |e| Err(ConfigError::Key(e))),
            "{}",
            case.name
        );
    }
    // Why: HMAC keyed with "k" and 31 zero bytes is HMAC keyed with "k".
    let mut padded = b"k".to_vec();
    padded.resize(32, 0);
    let err = Codec::new(CodecOptions::with_keys(vec![padded])).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("ends in zero bytes, which HMAC ignores"),
        "{text}"
    );
    let err = Codec::new(CodecOptions::with_keys(vec![[0u8; 32]])).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("all zero bytes"), "{text}");
}

/// The request's canonical text is bounded by
/// `max_request_bytes` before it is hashed: a seal error naming the limit,
/// and `request` on open.
#[cfg(feature = "jcs")]
#[test]
fn requests_over_max_request_bytes_are_refused_both_ways() {
    use mcp_sealed_state::{Request, SealError};
    let c = codec_with(&[KEY], |o| o.max_request_bytes = 16);
    let with = |r| SealWith::request_state("move").request(r);
    // 16 bytes canonical, whitespace aside: within the limit; 17 are not.
    let fits = Request::Json(r#"{ "a" : [1, 2, 3, 45] }"#);
    assert_eq!(r#"{"a":[1,2,3,45]}"#.len(), 16);
    let over = Request::Json(r#"{ "a" : [1, 2, 3, 456] }"#);
    let t = c.seal("1", &with(fits)).unwrap();
    assert!(c
        .open(&t, &OpenWith::request_state("move").request(fits))
        .is_ok());
    // Over it, as JSON and as canonical text.
    match c.seal("1", &with(over)) {
        Err(
            e @ SealError::RequestTooLarge {
                bytes: 17,
                max_bytes: 16,
            },
        ) => {
            assert!(e.to_string().contains("max_request_bytes"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let canonical = Request::Canonical(r#"{"a":[1,2,3,456]}"#);
    assert!(matches!(
        c.seal("1", &with(canonical)),
        Err(SealError::RequestTooLarge { .. })
    ));
    // A token sealed by a codec with a larger limit: `request` here.
    let roomy = codec();
    let big = roomy.seal("1", &with(over)).unwrap();
    let open_big = c.open(&big, &OpenWith::request_state("move").request(over));
    assert_eq!(reason(open_big), Reason::Request);
}

/// A request where the token cannot carry one is refused,
/// never dropped: sealing a view or raw token with one, a secret on a raw
/// token, and opening a raw token with one.
#[cfg(feature = "jcs")]
#[test]
fn a_request_or_secret_a_token_cannot_carry_is_refused() {
    use mcp_sealed_state::{Request, SealError};
    let c = codec();
    let args = Request::Json("{}");
    for with in [
        SealWith::view().request(args),
        SealWith::raw().request(args),
        SealWith::raw().secret("1"),
    ] {
        assert_eq!(c.seal("1", &with), Err(SealError::NotCarried), "{with:?}");
    }
    let raw = c.seal("1", &SealWith::raw()).unwrap();
    let view = c.seal("1", &SealWith::view()).unwrap();
    assert_eq!(
        reason(c.open(&raw, &OpenWith::raw().request(args))),
        Reason::Request
    );
    assert_eq!(
        reason(c.open(&view, &OpenWith::view().request(args))),
        Reason::Request
    );
    assert!(c.open(&raw, &OpenWith::raw()).is_ok());
}

/// An opened payload prints as its JSON, and the errors
/// speak Rust's option names.
#[test]
fn payloads_print_as_json_and_errors_use_rusts_names() {
    let c = codec();
    let t = c.seal(GAME, &SealWith::view()).unwrap();
    let opened = c.open(&t, &OpenWith::view()).unwrap();
    assert_eq!(opened.payload.to_string(), GAME);
    assert_eq!(format!("{}", opened.payload), opened.payload_json());
    let mut o = CodecOptions::with_keys(vec![KEY.to_vec()]);
    o.leeway_seconds = -1;
    let e = Codec::new(o).unwrap_err().to_string();
    assert!(e.contains("leeway_seconds"), "{e}");
    let e = Codec::new(CodecOptions::<Vec<u8>>::with_keys(vec![]))
        .unwrap_err()
        .to_string();
    assert!(!e.contains("option"), "{e}");
    assert!(e.contains("keys: None"), "{e}");
}

/// The wasm edge build's way to bind a request (no `jcs`: its glue
/// canonicalizes): canonical text by name, digested as given; text that is
/// not canonical only fails to match, and text that is not JSON is refused.
#[test]
fn a_canonical_request_binds_in_every_feature_set() {
    use mcp_sealed_state::{Request, SealError};
    let c = codec();
    let canonical = Request::Canonical(r#"{"a":1,"b":[2]}"#);
    let with = SealWith::request_state("move").request(canonical);
    let t = c.seal("1", &with).unwrap();
    let open = |r| c.open(&t, &OpenWith::request_state("move").request(r));
    assert!(open(canonical).is_ok());
    let spaced = Request::Canonical(r#"{ "a":1, "b":[2] }"#);
    assert_eq!(reason(open(spaced)), Reason::Request);
    assert_eq!(reason(open(Request::Canonical("{"))), Reason::Request);
    assert!(matches!(
        c.seal(
            "1",
            &SealWith::request_state("move").request(Request::Canonical("{"))
        ),
        Err(SealError::Request(_))
    ));
    // With `jcs`, the same arguments spelled otherwise open it too.
    #[cfg(feature = "jcs")]
    assert!(open(Request::Json(r#"{ "b" : [2.0], "a" : 1 }"#)).is_ok());
}
