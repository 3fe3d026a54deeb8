//! The edge exports, run as wasm in headless Chromium
//! (`wasm-pack test --headless --chrome --features edge`): seal/open round trips,
//! the SDK vectors, reasons, rotation, and getrandom drawing a real key there.
#![cfg(all(target_arch = "wasm32", feature = "edge"))]

mod common;

use mcp_sealed_state::bindings::edge::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn codec(keys: &[&[u8]], ttl: f64) -> WasmCodec {
    let all: Vec<u8> = keys.concat();
    let lengths: Vec<u32> = keys.iter().map(|k| k.len() as u32).collect();
    WasmCodec::new(&all, &lengths, ttl, 0.0, 0.0, false)
        .map_err(|_| "codec")
        .unwrap()
}

const NOW: f64 = common::NOW_MS;

#[wasm_bindgen_test]
fn seal_open_round_trips() {
    let c = codec(&[common::KEY], 600.0);
    for payload in [
        "{\"board\":[0,0,0,0,0,0,0,0,0],\"turn\":1}",
        "null",
        "\"é😀\\ud800\"",
        "[1,{\"a\":[]}]",
    ] {
        let t = c.seal(payload, None, NOW);
        assert_eq!(c.open(&t, None, NOW).as_deref(), Some(payload));
        let b = c.seal(payload, Some("user-1".into()), NOW);
        assert_eq!(
            c.open(&b, Some("user-1".into()), NOW).as_deref(),
            Some(payload)
        );
        let r = c.seal_request_state(payload, "move", None, NOW);
        assert_eq!(
            c.open_request_state(&r, "move", None, NOW).as_deref(),
            Some(payload)
        );
        let m = c.mint(payload, None, NOW);
        assert_eq!(c.verify(&m, None, NOW).as_deref(), Some(payload));
    }
}

#[wasm_bindgen_test]
fn opens_every_sdk_vector_and_mints_the_same_bytes() {
    for v in common::sdk_vectors() {
        let c = WasmCodec::new(
            &v.key,
            &[v.key.len() as u32],
            v.ttl_seconds as f64,
            0.0,
            (1u32 << 20) as f64,
            false,
        )
        .map_err(|_| "codec")
        .unwrap();
        let bind = v.bind.clone();
        let (opened, minted) = match v.kind.as_str() {
            "raw" => (
                c.verify(&v.token, bind.clone(), v.now_ms),
                c.mint(&v.payload_json, bind, v.now_ms),
            ),
            "view" => (
                c.open(&v.token, bind.clone(), v.now_ms),
                c.seal(&v.payload_json, bind, v.now_ms),
            ),
            _ => {
                let tool = v.tool.as_deref().unwrap();
                (
                    c.open_request_state(&v.token, tool, bind.clone(), v.now_ms),
                    c.seal_request_state(&v.payload_json, tool, bind, v.now_ms),
                )
            }
        };
        assert_eq!(
            opened.as_deref(),
            Some(v.payload_json.as_str()),
            "{}",
            v.name
        );
        assert_eq!(minted, v.token, "{}", v.name);
    }
}

#[wasm_bindgen_test]
fn each_failure_has_its_reason() {
    let c = codec(&[common::KEY], 600.0);
    let t = c.seal("1", Some("alice".into()), NOW);
    let cases: [(Option<String>, f64, &str, u8); 5] = [
        (None, NOW, "v1.%%%", 1),
        (Some("alice".into()), NOW, "tamper", 2),
        (Some("alice".into()), NOW + 601_000.0, "", 3),
        (Some("bob".into()), NOW, "", 4),
        (None, NOW, "", 4),
    ];
    for (bind, now, how, reason) in cases {
        let token = match how {
            "" => t.clone(),
            "tamper" => t.replacen("v1.e", "v1.f", 1),
            other => other.to_string(),
        };
        assert_eq!(c.open(&token, bind, now), None);
        assert_eq!(c.last_reason(), reason, "{how} -> {}", reason_name(reason));
    }
    assert_eq!(
        c.open_request_state(&t, "move", Some("alice".into()), NOW),
        None
    );
    assert_eq!(reason_name(c.last_reason()), "purpose");
}

#[wasm_bindgen_test]
fn rotation_first_key_seals_every_key_opens() {
    let old = codec(&[common::KEY2], 600.0);
    let rotated = codec(&[common::KEY, common::KEY2], 600.0);
    let new_only = codec(&[common::KEY], 600.0);
    let from_old = old.seal("{\"v\":1}", Some("u".into()), NOW);
    assert_eq!(
        rotated.open(&from_old, Some("u".into()), NOW).as_deref(),
        Some("{\"v\":1}")
    );
    assert_eq!(new_only.open(&from_old, Some("u".into()), NOW), None);
    assert_eq!(reason_name(new_only.last_reason()), "mac");
    let from_rotated = rotated.seal("2", None, NOW);
    assert_eq!(
        new_only.open(&from_rotated, None, NOW).as_deref(),
        Some("2")
    );
}

#[wasm_bindgen_test]
fn short_keys_and_missing_production_keys_are_refused() {
    assert!(WasmCodec::new(&[7; 31], &[31], 600.0, 0.0, 0.0, false).is_err());
    assert!(WasmCodec::new(&[], &[], 600.0, 0.0, 0.0, true).is_err());
}

#[wasm_bindgen_test]
fn getrandom_draws_a_real_ephemeral_key_in_the_browser() {
    let mut a = [0u8; 32];
    let mut b = [0u8; 32];
    getrandom::fill(&mut a).unwrap();
    getrandom::fill(&mut b).unwrap();
    assert_ne!(a, b);
    assert_ne!(a, [0u8; 32]);

    let one = WasmCodec::new(&[], &[], 600.0, 0.0, 0.0, false)
        .map_err(|_| "codec")
        .unwrap();
    let two = WasmCodec::new(&[], &[], 600.0, 0.0, 0.0, false)
        .map_err(|_| "codec")
        .unwrap();
    assert!(one.is_ephemeral());
    let t = one.seal("{\"dev\":true}", None, NOW);
    assert_eq!(one.open(&t, None, NOW).as_deref(), Some("{\"dev\":true}"));
    assert_eq!(two.open(&t, None, NOW), None, "two ephemeral keys differ");
    assert_eq!(reason_name(two.last_reason()), "mac");
}
