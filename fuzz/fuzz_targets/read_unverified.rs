//! `reader::read_token_unverified` on arbitrary text, checked against an
//! independent reference (`common::ref_read`).
//!
//! Flags (first byte): bit 0 field 0 is envelope JSON that the target wraps
//! into a token (base64url body, a 43-char MAC) so the envelope parser is
//! reached; bit 1 field 1 (`current`) is wrapped the same way; bit 2 also seal
//! field 0 as a payload with the codec and read it back; bit 3 a bind is given
//! (field 3). Field 2 is the tool, the last 8 bytes of field 3 a clock.
#![no_main]

mod common;

use common::*;
use libfuzzer_sys::fuzz_target;
use mcp_sealed_state::internals::clock::{seconds_left, unix_seconds};
use mcp_sealed_state::internals::json;
use mcp_sealed_state::{read_token_unverified, Purpose, SealWith};

const FAKE_MAC: &str = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

fn wrap(env_json: &str) -> String {
    format!("v1.{}.{FAKE_MAC}", b64(env_json.as_bytes()))
}

fn check_read(token: &str) {
    let got = read_token_unverified(token);
    match ref_read(token) {
        Ok(expected) => assert_eq!(
            got.as_ref().ok().map(view_of),
            expected,
            "differs from the reference: {token:?}"
        ),
        Err(Unjudgeable) => {}
    }
    if let Ok(view) = &got {
        // The view crosses to JS as one JSON text: it must be valid JSON.
        let j = view.to_json();
        assert!(json::is_valid(&j), "{j}");
        assert!(serde_grammar_ok(&j), "{j}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::parse(data) else {
        return;
    };
    let candidate = if input.flag(0) {
        wrap(input.field(0))
    } else {
        input.field(0).to_owned()
    };
    let current = if input.flag(1) {
        wrap(input.field(1))
    } else {
        input.field(1).to_owned()
    };
    check_read(&candidate);
    check_read(&current);

    // seconds_left: positive exactly while floor(now) <= exp.
    let f3 = input.field(3).as_bytes();
    if let Some(clock) = f3.len().checked_sub(8).and_then(|i| f3.get(i..)) {
        let now_ms = f64::from_le_bytes(clock.try_into().unwrap_or([0; 8]));
        if let Ok(exp) = read_token_unverified(&candidate).map(|v| v.exp) {
            // A clock that cannot be read gives no answer, never a guess.
            match (seconds_left(exp, now_ms), unix_seconds(now_ms)) {
                (Some(left), Some(now_s)) => {
                    if exp != i64::MAX {
                        assert_eq!(left > 0, now_s <= exp, "{exp} {now_ms}");
                    }
                }
                (None, None) => assert!(!now_ms.is_finite() || now_ms.abs() > 8.64e15),
                other => panic!("{other:?}"),
            }
        }
    }

    // read_token_unverified(seal(x)) gives x back.
    let text = input.field(0);
    if input.flag(2) && json::is_valid(text) {
        let payload = trim_json_ws(text);
        let bind = input.flag(3).then(|| input.field(3));
        let tool = input.field(2);
        let codec = codec(false);
        let exp = NOW_S + TTL;

        // (Sealing refuses a token over the codec's limit: nothing to read then.)
        let Ok(token) = codec.seal(text, &SealWith::view().bind(bind)) else {
            return;
        };
        let v = read_token_unverified(&token).expect("reads");
        assert_eq!(
            (v.payload_json(), v.purpose.as_deref(), v.exp, v.bound),
            (payload, Purpose::View, exp, bind.is_some())
        );

        let Ok(token) = codec.seal(text, &SealWith::request_state(tool).bind(bind)) else {
            return;
        };
        let v = read_token_unverified(&token).expect("reads");
        assert_eq!(
            (v.payload_json(), v.purpose.as_deref(), v.exp, v.bound),
            (payload, Purpose::RequestState(tool), exp, bind.is_some())
        );
    }
});
