//! The codec's contract, one failure reason per test (SPEC "Opening: order and
//! failure"), plus expiry, leeway, rotation, size limit and keys.
#![cfg(all(feature = "edge", not(target_arch = "wasm32")))]

mod common;

use common::{codec_with, KEY, KEY2, NOW_MS};
use mcp_sealed_state::{
    Codec, CodecOptions, Reason, SealedStateError, SEALED_STATE_INVALID_MESSAGE,
};

fn codec() -> Codec {
    codec_with(&[KEY], |_| {})
}

fn reason(r: Result<mcp_sealed_state::Payload, SealedStateError>) -> Reason {
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
    let t = c.seal(GAME, None).unwrap();
    assert_eq!(c.open(&t, None).unwrap().payload_json(), GAME);
    assert_eq!(c.open(&t, None).unwrap().into_payload_json(), GAME);
}

#[test]
fn reason_malformed() {
    let c = codec();
    for t in [
        "",
        "v1.",
        "v1.abc",
        "garbage",
        "v1.e30.AAAA.AAAA",
        "v1.e3=.AAAA",
    ] {
        assert_eq!(reason(c.open(t, None)), Reason::Malformed, "{t}");
    }
}

#[test]
fn reason_mac() {
    let c = codec();
    let t = c.seal(GAME, None).unwrap();
    let other = codec_with(&[KEY2], |_| {});
    assert_eq!(reason(other.open(&t, None)), Reason::Mac);
    let (head, mac) = t.rsplit_once('.').unwrap();
    let flipped = if mac.starts_with('A') { "B" } else { "A" };
    assert_eq!(
        reason(c.open(&format!("{head}.{flipped}{}", &mac[1..]), None)),
        Reason::Mac
    );
}

#[test]
fn reason_expired_with_exp_floor_now_plus_ttl_and_leeway() {
    let c = codec_with(&[KEY], |o| o.ttl_seconds = 10);
    let t = common::at(1_000_999.0, || c.seal(GAME, None)).unwrap(); // floor(1000.999) + 10 = 1010
    assert!(
        common::at(1_010_999.0, || c.open(&t, None)).is_ok(),
        "exp itself is still valid"
    );
    assert_eq!(
        reason(common::at(1_011_000.0, || c.open(&t, None))),
        Reason::Expired
    );
    let lenient = codec_with(&[KEY], |o| o.leeway_seconds = 5);
    assert!(common::at(1_015_999.0, || lenient.open(&t, None)).is_ok());
    assert_eq!(
        reason(common::at(1_016_000.0, || lenient.open(&t, None))),
        Reason::Expired
    );
}

#[test]
fn reason_bind_in_both_directions_of_drift() {
    let c = codec();
    let bound = c.seal(GAME, Some("alice")).unwrap();
    let unbound = c.seal(GAME, None).unwrap();
    assert!(c.open(&bound, Some("alice")).is_ok());
    assert_eq!(reason(c.open(&bound, Some("bob"))), Reason::Bind);
    assert_eq!(reason(c.open(&bound, None)), Reason::Bind);
    assert_eq!(reason(c.open(&unbound, Some("alice"))), Reason::Bind);
}

#[test]
fn reason_purpose_and_tool() {
    let c = codec();
    let view = c.seal(GAME, None).unwrap();
    let rs = c.seal_request_state(GAME, "move", None).unwrap();
    let raw = c.mint(GAME, None).unwrap();
    assert_eq!(
        c.open_request_state(&rs, "move", None)
            .unwrap()
            .payload_json(),
        GAME
    );
    assert_eq!(
        reason(c.open_request_state(&rs, "start", None)),
        Reason::Purpose
    );
    assert_eq!(reason(c.open(&rs, None)), Reason::Purpose);
    assert_eq!(
        reason(c.open_request_state(&view, "move", None)),
        Reason::Purpose
    );
    assert_eq!(reason(c.open(&raw, None)), Reason::Purpose);
    // verify (raw) sees the purpose envelope as the payload
    assert_eq!(
        c.verify(&view, None).unwrap().payload_json(),
        format!(r#"{{"p":"v","d":{GAME}}}"#)
    );
}

#[test]
fn steps_run_in_spec_order() {
    // An expired token under the wrong key is reported as `mac`, an expired and
    // wrongly bound one as `expired`, a wrongly bound view token opened as
    // requestState as `bind`: the earlier step wins.
    let c = codec();
    let t = c.seal(GAME, Some("alice")).unwrap();
    let later = NOW_MS + 3_600_000.0;
    assert_eq!(
        reason(common::at(later, || codec_with(&[KEY2], |_| {}).open(&t, Some("bob")))),
        Reason::Mac
    );
    assert_eq!(
        reason(common::at(later, || c.open(&t, Some("bob")))),
        Reason::Expired
    );
    assert_eq!(
        reason(c.open_request_state(&t, "move", Some("bob"))),
        Reason::Bind
    );
}

#[test]
fn rotation_first_key_seals_every_key_opens_bind_uses_the_matching_key() {
    let old = codec_with(&[KEY2], |_| {});
    let rotated = codec_with(&[KEY, KEY2], |_| {});
    let t_old = old.seal(GAME, Some("alice")).unwrap();
    assert!(rotated.open(&t_old, Some("alice")).is_ok());
    assert_eq!(reason(rotated.open(&t_old, Some("bob"))), Reason::Bind);
    let t_new = rotated.seal(GAME, None).unwrap();
    assert!(
        codec().open(&t_new, None).is_ok(),
        "the first key sealed it"
    );
    assert_eq!(reason(old.open(&t_new, None)), Reason::Mac);
}

#[test]
fn oversize_tokens_are_refused_as_malformed_even_when_genuine() {
    let c = codec();
    let t = c.seal(GAME, None).unwrap();
    let strict = codec_with(&[KEY], |o| o.max_token_bytes = t.len() - 1);
    // A genuine token one byte over the limit is refused at the shape step,
    // which runs before any hashing: the reason is `malformed`, not `mac`.
    assert_eq!(reason(strict.open(&t, None)), Reason::Malformed);
    assert!(codec_with(&[KEY], |o| o.max_token_bytes = t.len())
        .open(&t, None)
        .is_ok());
}

#[test]
fn sealing_refuses_a_token_the_codec_could_not_open() {
    let c = codec_with(&[KEY], |o| o.max_token_bytes = 200);
    let big = format!("\"{}\"", "x".repeat(200));
    assert!(matches!(
        c.seal(&big, None),
        Err(mcp_sealed_state::SealError::TokenTooLarge { max_bytes: 200, .. })
    ));
    assert!(c.seal("1", None).is_ok());
}

#[test]
fn keys_are_checked_at_construction() {
    let short = Codec::new(CodecOptions::with_keys(vec![vec![1u8; 31]])).unwrap_err();
    assert!(short.to_string().contains("at least 32 bytes"), "{short}");
    let prod = CodecOptions::<Vec<u8>> {
        production: true,
        ..Default::default()
    };
    assert!(Codec::new(prod)
        .unwrap_err()
        .to_string()
        .contains("production"));
    let dev = Codec::new(CodecOptions::<Vec<u8>>::default()).unwrap();
    assert!(dev.is_ephemeral());
    let t = dev.seal(GAME, None).unwrap();
    assert_eq!(dev.open(&t, None).unwrap().payload_json(), GAME);
    // One development key per process: another keyless codec opens it (issue 36), a keyed one does not.
    let other = Codec::new(CodecOptions::<Vec<u8>>::default()).unwrap();
    assert_eq!(other.open(&t, None).unwrap().payload_json(), GAME);
    assert_eq!(reason(codec().open(&t, None)), Reason::Mac);
}

#[test]
fn seal_refuses_payloads_that_are_not_json() {
    let c = codec();
    for bad in ["", "{", "undefined", "{'a':1}", "[1,]"] {
        assert!(c.seal(bad, None).is_err(), "{bad}");
        assert!(c.mint(bad, None).is_err(), "{bad}");
        assert!(c.seal_request_state(bad, "move", None).is_err(), "{bad}");
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
        .seal("1", None)
        .unwrap();
    let fresh = c.seal("1", None).unwrap();
    for bad in [f64::NAN, f64::NEG_INFINITY, f64::INFINITY, -1e300, 1e300] {
        // NaN cast to an integer is the epoch, -inf is i64::MIN: both made
        // this expired token open.
        assert_eq!(
            reason(common::at(bad, || c.open(&expired, None))),
            Reason::Expired,
            "{bad}"
        );
        assert_eq!(
            reason(common::at(bad, || c.open(&fresh, None))),
            Reason::Expired,
            "{bad}"
        );
        assert_eq!(
            reason(common::at(bad, || c.verify(&fresh, None))),
            Reason::Expired,
            "{bad}"
        );
        assert_eq!(
            common::at(bad, || c.seal("1", None)),
            Err(mcp_sealed_state::SealError::InvalidClock),
            "{bad}"
        );
        assert_eq!(
            common::at(bad, || c.seal_request_state("1", "t", None)),
            Err(mcp_sealed_state::SealError::InvalidClock)
        );
        assert_eq!(
            common::at(bad, || c.mint("1", None)),
            Err(mcp_sealed_state::SealError::InvalidClock)
        );
    }
    assert_eq!(mcp_sealed_state::clock::seconds_left(0, f64::NAN), None);
}

#[test]
fn every_sealer_checks_its_payload() {
    let c = codec();
    for bad in ["", "{", "{\"a\":1}x", "undefined"] {
        for sealed in [
            c.seal(bad, None),
            c.seal_request_state(bad, "t", None),
            c.mint(bad, Some("u")),
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
    use mcp_sealed_state::keys::KeyError;
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
