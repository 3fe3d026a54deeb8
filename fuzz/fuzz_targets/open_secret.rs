//! The secret part and request binding: seal with a secret and a request,
//! then open it; open tokens whose `s` and `q` are arbitrary text under a
//! genuine MAC (what only a key holder could make), and tokens whose sealed
//! secret has one byte changed and is re-MACed.
//!
//! Flags (first byte): bit 0 requestState (field 2 the tool) instead of view;
//! bit 1 seal with field 3 as the request; bit 2 sign with the rotation key.
//! Field 0 the payload, field 1 the secret, field 4 an arbitrary `s`, field 5
//! an arbitrary `q`; the last two bytes of field 4 pick the byte to change.
#![no_main]

mod common;

use common::*;
use libfuzzer_sys::fuzz_target;
use mcp_sealed_state::internals::jcs;
use mcp_sealed_state::{OpenWith, Reason, Request, SealWith};

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::parse(data) else {
        return;
    };
    let codec = codec(false);
    let rs = input.flag(0);
    let (payload, secret, tool) = (input.field(0), input.field(1), input.field(2));
    let request = input.flag(1).then(|| input.field(3));
    let open = |token: &str, request: Option<&str>| {
        if rs {
            let with = OpenWith::request_state(tool).request(request.map(Request::Json));
            codec.open(token, &with)
        } else {
            codec.open(token, &OpenWith::view())
        }
    };

    // The canonical form is a fixed point, and valid JSON.
    if let Ok(c) = jcs::canonicalize(input.field(3)) {
        assert_eq!(jcs::canonicalize(&c).as_deref(), Ok(c.as_str()));
        assert!(serde_json::from_str::<serde_json::Value>(&c).is_ok());
    }

    // 1. Seal and open again: the same payload and secret.
    let sealed = if rs {
        let with = SealWith::request_state(tool)
            .secret(secret)
            .request(request.map(Request::Json));
        codec.seal(payload, &with)
    } else {
        codec.seal(payload, &SealWith::view().secret(secret))
    };
    if let Ok(token) = &sealed {
        let request = if rs { request } else { None };
        let opened = open(token, request).expect("a sealed token opens");
        assert_eq!(opened.payload.payload_json(), trim_json_ws(payload));
        assert_eq!(opened.secret.as_deref(), Some(secret));
        if request.is_some() {
            assert_eq!(open(token, None).unwrap_err().reason(), Reason::Request);
        }
        // One byte of the sealed secret changed, re-MACed by a key holder.
        let body = String::from_utf8(
            base64::Engine::decode(
                &base64::engine::general_purpose::URL_SAFE_NO_PAD,
                token.split('.').nth(1).unwrap(),
            )
            .unwrap(),
        )
        .unwrap();
        let s = body
            .split("\"s\":\"")
            .last()
            .and_then(|rest| rest.split('"').next())
            .unwrap()
            .to_owned();
        let mut raw =
            base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, &s).unwrap();
        let pick = input
            .field(4)
            .bytes()
            .rev()
            .take(2)
            .fold(0usize, |a, b| a * 256 + b as usize);
        let i = pick % raw.len();
        raw[i] ^= 1 | (pick >> 8) as u8;
        let forged_body = body.replace(&s, &b64(&raw));
        let forged = signed_token(&b64(forged_body.as_bytes()), KEYS[0]);
        assert_eq!(open(&forged, request).unwrap_err().reason(), Reason::Mac);
    }

    // 2. Arbitrary `s` and `q` under a genuine MAC: refused without a panic,
    //    and never opened with a secret nobody sealed.
    let inner = if rs {
        format!(
            "{{\"p\":\"r\",\"d\":0,\"o\":{},\"s\":{},\"q\":{}}}",
            serde_json::Value::from(tool),
            serde_json::Value::from(input.field(4)),
            serde_json::Value::from(input.field(5)),
        )
    } else {
        format!(
            "{{\"p\":\"v\",\"d\":0,\"s\":{}}}",
            serde_json::Value::from(input.field(4))
        )
    };
    let body = format!("{{\"p\":{inner},\"exp\":{}}}", NOW_S + 60);
    let key = KEYS[usize::from(input.flag(2))];
    let token = signed_token(&b64(body.as_bytes()), key);
    match open(&token, request) {
        Ok(o) => panic!("an unsealed secret opened: {:?}", o.secret),
        Err(e) => assert!(
            matches!(
                e.reason(),
                Reason::Malformed | Reason::Mac | Reason::Request
            ),
            "{:?}",
            e.reason()
        ),
    }
});
