//! The edge build's shipped I/O path (`bindings::io::open` / `seal`, what the
//! wasm exports `openIo` / `sealIo` run) with fixed keys and a fixed clock, on
//! arbitrary token text, tool and bind, checked against an independent
//! reference (`common::ref_open`: hmac + base64 + serde_json).
//!
//! Flags (first byte): bits 0-1 what to open (0 view, 1 requestState, 2 raw
//! verify, 3 all three); bit 2 a bind is given (field 1); bit 3 field 0 is a
//! base64url body that the target signs with a genuine MAC; bit 4 field 0 is
//! envelope JSON that the target encodes and signs (so the body, expiry,
//! binding and purpose steps are reached); bit 5 sign with the second
//! (rotation) key; bit 6 the codec has a leeway; bit 7 also seal field 0 as a
//! payload and open it again. Field 2 is the tool.
#![no_main]

mod common;

use common::*;
use libfuzzer_sys::fuzz_target;
use mcp_sealed_state::bindings::protocol::STATUS_TOKEN_TOO_LARGE;
use mcp_sealed_state::{read_token_unverified, OpenWith, Reason, SealWith};

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::parse(data) else {
        return;
    };
    let text = input.field(0);
    let bind = input.flag(2).then(|| input.field(1));
    let tool = input.field(2);
    let key = KEYS[usize::from(input.flag(5))];
    let leeway = input.flag(6);
    let codec = codec(leeway);
    let leeway_s = if leeway { LEEWAY } else { 0 };

    let signed_by_us = input.flag(3) || input.flag(4);
    let token = if input.flag(4) {
        signed_token(&b64(text.as_bytes()), key)
    } else if input.flag(3) {
        signed_token(text, key)
    } else {
        text.to_owned()
    };

    let wants: &[Want<'_>] = match input.flags & 3 {
        0 => &[Want::View],
        1 => &[Want::Rs(tool)],
        2 => &[Want::Raw],
        _ => &[Want::View, Want::Rs(tool), Want::Raw],
    };
    for &want in wants {
        let got = io_open(codec, want, &token, bind);
        // The Rust API gives the same as the I/O path.
        let api = match want {
            Want::View => codec.open(&token, &OpenWith::view().bind(bind)),
            Want::Rs(t) => codec.open(&token, &OpenWith::request_state(t).bind(bind)),
            Want::Raw => codec.open(&token, &OpenWith::raw().bind(bind)),
        };
        assert_eq!(
            api.map(|o| o.payload.into_payload_json())
                .map_err(|e| e.reason()),
            got
        );

        // The stable error never names its step.
        if let Err(r) = got {
            assert_eq!(
                mcp_sealed_state::SealedStateError::new(r).to_string(),
                mcp_sealed_state::SEALED_STATE_INVALID_MESSAGE
            );
        }

        // Never Ok for a token that no configured key made.
        let genuine = mac_is_genuine(&token);
        if got.is_ok() {
            assert!(genuine, "opened a token no key made: {token:?}");
        }
        // The MAC step comes before every step that reads the body: a token
        // with a bad MAC can only fail as malformed (shape) or mac.
        if !genuine {
            assert!(
                matches!(got, Err(Reason::Malformed | Reason::Mac)),
                "{got:?} before the MAC was checked: {token:?}"
            );
        }
        // A token we signed never fails the MAC step.
        if signed_by_us {
            assert_ne!(got, Err(Reason::Mac), "{token:?}");
        }

        match ref_open(&token, want, bind, leeway_s) {
            Ok(expected) => assert_eq!(
                got, expected,
                "differs from the reference: {want:?} {token:?} bind {bind:?}"
            ),
            Err(Unjudgeable) => {}
        }

        // What opens reads the same without a key.
        if let Ok(payload) = &got {
            let view = read_token_unverified(&token).expect("an opened token reads");
            assert!(view.exp.saturating_add(leeway_s) >= NOW_S);
            assert_eq!(view.bound, bind.is_some());
            if !matches!(want, Want::Raw) {
                assert_eq!(view.payload_json(), payload);
            }
            if let Want::Rs(t) = want {
                assert_eq!(view.purpose.tool(), Some(t));
            }
        }
    }

    // Round trip: field 0 as a payload.
    if input.flag(7) {
        let valid = mcp_sealed_state::internals::json::is_valid(text);
        let payload = trim_json_ws(text);
        for want in [Want::View, Want::Rs(tool), Want::Raw] {
            let sealed = io_seal(codec, want, text, bind);
            let api = match want {
                Want::View => codec.seal(text, &SealWith::view().bind(bind)),
                Want::Rs(t) => codec.seal(text, &SealWith::request_state(t).bind(bind)),
                Want::Raw => codec.seal(text, &SealWith::raw().bind(bind)),
            };
            assert_eq!(sealed.as_ref().ok(), api.as_ref().ok());
            // Text that is not JSON is never signed.
            if !valid {
                assert!(sealed.is_err(), "sealed invalid JSON {text:?}");
                continue;
            }
            // Sealing refuses a token the codec could not open again.
            let token = match sealed {
                Ok(token) => token,
                Err(STATUS_TOKEN_TOO_LARGE) => continue,
                Err(status) => panic!("valid JSON must seal: status {status}"),
            };
            assert!(token.len() <= MAX_TOKEN_BYTES);
            assert_eq!(
                io_open(codec, want, &token, bind),
                Ok(payload.to_owned()),
                "{want:?} round trip"
            );
            // Bind drift, both directions, and another tool.
            let drift = match bind {
                Some(_) => codec.open(&token, &OpenWith::view()),
                None => codec.open(&token, &OpenWith::view().bind("x")),
            };
            assert_eq!(drift.map_err(|e| e.reason()).err(), Some(Reason::Bind));
            if let Want::Rs(t) = want {
                let other = format!("{t}-other");
                assert_eq!(
                    codec
                        .open(&token, &OpenWith::request_state(&other).bind(bind))
                        .map_err(|e| e.reason())
                        .err(),
                    Some(Reason::Purpose)
                );
            }
        }
    }
});
