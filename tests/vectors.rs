//! Interop with the reference codec: every token that
//! @modelcontextprotocol/server@2.4.0 minted opens here, and with the same
//! clock, key, payload and binding this crate mints the same bytes.

#![cfg(all(feature = "edge", not(target_arch = "wasm32")))]

mod common;

use common::{sdk_vectors, Vector};
use mcp_sealed_state::{Codec, OpenWith, Reason, SealWith};

fn codec_for(v: &Vector) -> Codec {
    common::codec_with(&[&v.key], |o| {
        o.ttl_seconds = v.ttl_seconds;
        o.max_token_bytes = 1 << 20; // the 64 KiB vector makes an ~88 KB token
    })
}

fn open(c: &Codec, v: &Vector, now_ms: f64) -> Result<String, Reason> {
    let bind = v.bind.as_deref();
    let opened = match v.kind.as_str() {
        "raw" => common::at(now_ms, || c.open(&v.token, &OpenWith::raw().bind(bind))),
        "view" => common::at(now_ms, || c.open(&v.token, &OpenWith::view().bind(bind))),
        "requestState" => common::at(now_ms, || {
            c.open(
                &v.token,
                &OpenWith::request_state(v.tool.as_deref().unwrap()).bind(bind),
            )
        }),
        other => panic!("kind {other}"),
    };
    opened
        .map(|o| o.payload_json().to_owned())
        .map_err(|e| e.reason())
}

#[test]
fn every_sdk_vector_opens_to_its_exact_payload_json() {
    for v in sdk_vectors() {
        let c = codec_for(&v);
        assert_eq!(
            open(&c, &v, v.now_ms),
            Ok(v.payload_json.clone()),
            "{}",
            v.name
        );
        // still open in the last millisecond of `exp`, expired one second on
        let last_ms = (v.exp as f64) * 1000.0 + 999.0;
        assert_eq!(
            open(&c, &v, last_ms),
            Ok(v.payload_json.clone()),
            "{} at exp",
            v.name
        );
        assert_eq!(
            open(&c, &v, last_ms + 1.0),
            Err(Reason::Expired),
            "{} after exp",
            v.name
        );
    }
}

#[test]
fn minting_with_the_same_inputs_is_byte_identical() {
    for v in sdk_vectors() {
        let c = codec_for(&v);
        let bind = v.bind.as_deref();
        let minted = match v.kind.as_str() {
            "raw" => common::at(v.now_ms, || {
                c.seal(&v.payload_json, &SealWith::raw().bind(bind))
            }),
            "view" => common::at(v.now_ms, || {
                c.seal(&v.payload_json, &SealWith::view().bind(bind))
            }),
            _ => common::at(v.now_ms, || {
                c.seal(
                    &v.payload_json,
                    &SealWith::request_state(v.tool.as_deref().unwrap()).bind(bind),
                )
            }),
        };
        assert_eq!(minted.unwrap(), v.token, "{}", v.name);
    }
}

#[test]
fn vectors_fail_under_another_key_binding_or_purpose() {
    for v in sdk_vectors() {
        let mut other = v.key.clone();
        other[0] ^= 1;
        let wrong_key = codec_for(&Vector {
            key: other,
            ..v.clone()
        });
        assert_eq!(
            open(&wrong_key, &v, v.now_ms),
            Err(Reason::Mac),
            "{}",
            v.name
        );

        let c = codec_for(&v);
        let drifted = Vector {
            bind: match &v.bind {
                Some(_) => None,
                None => Some("someone".into()),
            },
            ..v.clone()
        };
        assert_eq!(
            open(&c, &drifted, v.now_ms),
            Err(Reason::Bind),
            "{}",
            v.name
        );
        if let Some(b) = &v.bind {
            let other_principal = Vector {
                bind: Some(format!("{b}x")),
                ..v.clone()
            };
            assert_eq!(
                open(&c, &other_principal, v.now_ms),
                Err(Reason::Bind),
                "{}",
                v.name
            );
        }
        let bind = v.bind.as_deref();
        match v.kind.as_str() {
            "view" => assert_eq!(
                common::at(v.now_ms, || c
                    .open(&v.token, &OpenWith::request_state("move").bind(bind)))
                .unwrap_err()
                .reason(),
                Reason::Purpose
            ),
            "requestState" => {
                assert_eq!(
                    common::at(v.now_ms, || c.open(&v.token, &OpenWith::view().bind(bind)))
                        .unwrap_err()
                        .reason(),
                    Reason::Purpose
                );
                let tool = format!("{}-other", v.tool.as_deref().unwrap());
                assert_eq!(
                    common::at(v.now_ms, || c
                        .open(&v.token, &OpenWith::request_state(&tool).bind(bind)))
                    .unwrap_err()
                    .reason(),
                    Reason::Purpose
                );
            }
            _ => {}
        }
    }
}
