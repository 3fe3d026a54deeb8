//! The edge build's one wasm surface, run as wasm in headless Chromium
//! (`wasm-pack test --headless --chrome --features edge`): the `sealIo` /
//! `openIo` path the JS glue uses, driven the way the glue drives it (strings
//! written into the input buffer, the result read out of the output buffer).
//! Round trips, the SDK vectors, reasons, rotation, statuses, unknown
//! operation codes, allocation failure, and getrandom drawing a real key.
#![cfg(all(target_arch = "wasm32", feature = "edge"))]

mod common;

use mcp_sealed_state::bindings::edge::*;
use mcp_sealed_state::bindings::protocol::*;
use mcp_sealed_state::Reason;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const NOW: f64 = common::NOW_MS;

fn codec_with(keys: &[&[u8]], ttl: f64, max_token_bytes: f64) -> WasmCodec {
    let all: Vec<u8> = keys.concat();
    let lengths: Vec<u32> = keys.iter().map(|k| k.len() as u32).collect();
    let c = WasmCodec::new(&all, &lengths, ttl, 0.0, max_token_bytes, false);
    assert_eq!(c.config_error(), CONFIG_OK as u32, "codec");
    c
}

fn codec(keys: &[&[u8]]) -> WasmCodec {
    codec_with(keys, 600.0, 256.0 * 1024.0)
}

/// Write the strings back to back into the input buffer, as the glue does;
/// their lengths as `sealIo`/`openIo` take them.
fn write(a: &str, b: &str, bind: Option<&str>) -> (usize, usize, i32) {
    let total = a.len() + b.len() + bind.map_or(0, str::len);
    let ptr = input_buffer(total.max(1)) as *mut u8;
    assert!(!ptr.is_null());
    // The glue's view on wasm memory, from inside the same instance.
    #[allow(unsafe_code)]
    let buf = unsafe { core::slice::from_raw_parts_mut(ptr, total.max(1)) };
    let text = [a, b, bind.unwrap_or("")].concat();
    buf[..total].copy_from_slice(text.as_bytes());
    (a.len(), b.len(), bind.map_or(-1, |s| s.len() as i32))
}

/// The result the last call left in the output buffer.
fn output(n: f64) -> String {
    let ptr = output_buffer();
    assert!(n as usize <= output_capacity());
    #[allow(unsafe_code)]
    let bytes = unsafe { core::slice::from_raw_parts(ptr, n as usize) };
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// `sealIo`: the token, or the status.
fn seal(
    c: &WasmCodec,
    op: u8,
    payload: &str,
    tool: &str,
    bind: Option<&str>,
    now: f64,
) -> Result<String, f64> {
    let (a, b, l) = write(payload, tool, bind);
    let n = c.seal_io(op, a, b, l, -1, -1, now);
    if n < 0.0 {
        Err(n)
    } else {
        Ok(output(n))
    }
}

/// `openIo`: the payload JSON, or the (negative) reason or status.
fn open(
    c: &WasmCodec,
    op: u8,
    token: &str,
    tool: &str,
    bind: Option<&str>,
    now: f64,
) -> Result<String, f64> {
    let (a, b, l) = write(token, tool, bind);
    let n = c.open_io(op, a, b, l, -1, now);
    if n < 0.0 {
        Err(n)
    } else {
        Ok(output(n))
    }
}

fn reason(r: Reason) -> f64 {
    -f64::from(r.code())
}

#[wasm_bindgen_test]
fn seal_open_round_trips_through_the_io_buffers() {
    let c = codec(&[common::KEY]);
    let long = format!("\"{}\"", "é".repeat(3000)); // grows both buffers
    for payload in [
        "{\"board\":[0,0,0,0,0,0,0,0,0],\"turn\":1}",
        "null",
        "\"é😀\\ud800\"",
        "[1,{\"a\":[]}]",
        long.as_str(),
    ] {
        for bind in [None, Some("user-1")] {
            for (op, tool) in [
                (OP_VIEW, ""),
                (OP_REQUEST_STATE, "move"),
                (OP_RAW, ""),
                (OP_SDK, ""),
            ] {
                let t = seal(&c, op, payload, tool, bind, NOW).unwrap();
                assert_eq!(open(&c, op, &t, tool, bind, NOW).as_deref(), Ok(payload));
            }
        }
        // The drop-in's undefined: 0 bytes in, `{"exp":N}` sealed, 0 bytes out.
        let t = seal(&c, OP_SDK, "", "", None, NOW).unwrap();
        assert_eq!(open(&c, OP_SDK, &t, "", None, NOW).as_deref(), Ok(""));
        assert_eq!(
            open(&c, OP_RAW, &t, "", None, NOW),
            Err(-f64::from(Reason::Malformed.code()))
        );
    }
}

#[wasm_bindgen_test]
fn opens_every_sdk_vector_and_mints_the_same_bytes() {
    for v in common::sdk_vectors() {
        let c = codec_with(&[&v.key], v.ttl_seconds as f64, f64::from(1u32 << 20));
        let ops = match v.kind.as_str() {
            "raw" => vec![(OP_RAW, ""), (OP_SDK, "")],
            "view" => vec![(OP_VIEW, "")],
            _ => vec![(OP_REQUEST_STATE, v.tool.as_deref().unwrap())],
        };
        let bind = v.bind.as_deref();
        for (op, tool) in ops {
            assert_eq!(
                open(&c, op, &v.token, tool, bind, v.now_ms).as_deref(),
                Ok(v.payload_json.as_str()),
                "{} {op}",
                v.name
            );
            assert_eq!(
                seal(&c, op, &v.payload_json, tool, bind, v.now_ms),
                Ok(v.token.clone()),
                "{} {op}",
                v.name
            );
        }
    }
}

#[wasm_bindgen_test]
fn each_failure_has_its_reason() {
    let c = codec(&[common::KEY]);
    let t = seal(&c, OP_VIEW, "1", "", Some("alice"), NOW).unwrap();
    let tampered = t.replacen("v1.e", "v1.f", 1);
    let cases: [(&str, Option<&str>, f64, Reason); 5] = [
        ("v1.%%%", None, NOW, Reason::Malformed),
        (&tampered, Some("alice"), NOW, Reason::Mac),
        (&t, Some("alice"), NOW + 601_000.0, Reason::Expired),
        (&t, Some("bob"), NOW, Reason::Bind),
        (&t, None, NOW, Reason::Bind),
    ];
    for (token, bind, now, why) in cases {
        assert_eq!(
            open(&c, OP_VIEW, token, "", bind, now),
            Err(reason(why)),
            "{why:?}"
        );
    }
    assert_eq!(
        open(&c, OP_REQUEST_STATE, &t, "move", Some("alice"), NOW),
        Err(reason(Reason::Purpose))
    );
    assert_eq!(
        open(&c, OP_RAW, &t, "", Some("alice"), NOW).map(|_| ()),
        Ok(()),
        "raw sees the envelope"
    );
}

#[wasm_bindgen_test]
fn unknown_operation_codes_are_refused_never_read_as_raw() {
    let c = codec(&[common::KEY]);
    let view = seal(&c, OP_VIEW, "{\"a\":1}", "", None, NOW).unwrap();
    for op in [4u8, 7, 255] {
        assert_eq!(
            seal(&c, op, "1", "", None, NOW),
            Err(f64::from(STATUS_UNKNOWN_OP)),
            "{op}"
        );
        assert_eq!(
            open(&c, op, &view, "", None, NOW),
            Err(f64::from(STATUS_UNKNOWN_OP)),
            "{op}"
        );
    }
    assert_eq!(
        open(&c, OP_VIEW, &view, "", None, NOW).as_deref(),
        Ok("{\"a\":1}")
    );
}

#[wasm_bindgen_test]
fn statuses_for_what_the_glue_must_never_send() {
    let c = codec_with(&[common::KEY], 600.0, 200.0);
    let token = seal(&c, OP_VIEW, "1", "", None, NOW).unwrap();
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300, -1e300] {
        assert_eq!(
            seal(&c, OP_VIEW, "1", "", None, bad),
            Err(f64::from(STATUS_INVALID_CLOCK))
        );
        assert_eq!(
            open(&c, OP_VIEW, &token, "", None, bad),
            Err(f64::from(STATUS_INVALID_CLOCK))
        );
    }
    assert_eq!(
        seal(&c, OP_VIEW, "{", "", None, NOW),
        Err(f64::from(STATUS_PAYLOAD_NOT_JSON))
    );
    let big = format!("\"{}\"", "x".repeat(200));
    assert_eq!(
        seal(&c, OP_VIEW, &big, "", None, NOW),
        Err(f64::from(STATUS_TOKEN_TOO_LARGE))
    );
    // Lengths that overrun what was written, and bytes that are not UTF-8.
    let (a, _, _) = write("1", "", None);
    let cap = input_buffer(1) as usize; // the same buffer: it is already big enough
    assert_ne!(cap, 0);
    assert_eq!(
        c.seal_io(OP_VIEW, a + 1_000_000, 0, -1, -1, -1, NOW),
        f64::from(STATUS_BAD_INPUT)
    );
    assert_eq!(
        c.open_io(OP_VIEW, a, 0, 1_000_000, -1, NOW),
        f64::from(STATUS_BAD_INPUT)
    );
    let ptr = input_buffer(1) as *mut u8;
    #[allow(unsafe_code)]
    unsafe {
        *ptr = 0xff;
    }
    assert_eq!(
        c.seal_io(OP_VIEW, 1, 0, -1, -1, -1, NOW),
        f64::from(STATUS_BAD_INPUT)
    );
    // A token is read as bytes: one that is not UTF-8 is malformed, at any
    // place (prefix, body, MAC), as a token with a non-ASCII char is.
    for at in [0, 3, 10, token.len() - 1] {
        let (a, _, _) = write(&token, "", None);
        let ptr = input_buffer(a) as *mut u8;
        #[allow(unsafe_code)]
        unsafe {
            *ptr.add(at) = 0xff;
        }
        assert_eq!(
            c.open_io(OP_VIEW, a, 0, -1, -1, NOW),
            reason(Reason::Malformed),
            "{at}"
        );
        let mut wide = token.clone();
        wide.replace_range(at..=at, "é");
        assert_eq!(
            open(&c, OP_VIEW, &wide, "", None, NOW),
            Err(reason(Reason::Malformed)),
            "{at}"
        );
    }
    // None of it left the codec unusable.
    assert_eq!(open(&c, OP_VIEW, &token, "", None, NOW).as_deref(), Ok("1"));
}

#[wasm_bindgen_test]
fn an_input_buffer_that_cannot_be_had_is_a_null_pointer_not_a_trap() {
    let c = codec(&[common::KEY]);
    let t = seal(&c, OP_VIEW, "[1]", "", None, NOW).unwrap();
    // More than wasm32 can address: the allocator refuses, the codec says so.
    assert!(input_buffer(usize::MAX).is_null());
    assert!(input_buffer(3_000_000_000).is_null());
    // The next call gets a fresh buffer and works.
    assert_eq!(open(&c, OP_VIEW, &t, "", None, NOW).as_deref(), Ok("[1]"));
}

#[wasm_bindgen_test]
fn rotation_first_key_seals_every_key_opens() {
    let old = codec(&[common::KEY2]);
    let rotated = codec(&[common::KEY, common::KEY2]);
    let new_only = codec(&[common::KEY]);
    let from_old = seal(&old, OP_VIEW, "{\"v\":1}", "", Some("u"), NOW).unwrap();
    assert_eq!(
        open(&rotated, OP_VIEW, &from_old, "", Some("u"), NOW).as_deref(),
        Ok("{\"v\":1}")
    );
    assert_eq!(
        open(&new_only, OP_VIEW, &from_old, "", Some("u"), NOW),
        Err(reason(Reason::Mac))
    );
    let from_rotated = seal(&rotated, OP_VIEW, "2", "", None, NOW).unwrap();
    assert_eq!(
        open(&new_only, OP_VIEW, &from_rotated, "", None, NOW).as_deref(),
        Ok("2")
    );
}

#[wasm_bindgen_test]
fn bad_options_are_refused() {
    let error = |keys: &[u8], lengths: &[u32], ttl, leeway, max, production| {
        WasmCodec::new(keys, lengths, ttl, leeway, max, production).config_error()
    };
    let short = u32::from(CONFIG_KEY_TOO_SHORT);
    assert_eq!(error(&[7; 31], &[31], 600.0, 0.0, 1024.0, false), short);
    assert_eq!(
        error(&[7; 37], &[32, 5], 600.0, 0.0, 1024.0, false),
        1 << 8 | short
    );
    assert_eq!(
        error(&[], &[], 600.0, 0.0, 1024.0, true),
        u32::from(CONFIG_KEY_MISSING)
    );
    let key = [7u8; 32];
    assert_eq!(
        error(&key, &[32], 600.0, -1.0, 1024.0, false),
        u32::from(CONFIG_NEGATIVE_LEEWAY)
    );
    for (ttl, leeway, max) in [
        (f64::NAN, 0.0, 1024.0),
        (1.5, 0.0, 1024.0),
        (600.0, 0.0, 0.0),
        (600.0, 0.0, f64::INFINITY),
    ] {
        assert_eq!(
            error(&key, &[32], ttl, leeway, max, false),
            u32::from(CONFIG_BAD_OPTIONS),
            "{ttl} {leeway} {max}"
        );
    }
    assert_eq!(
        error(&key, &[33], 600.0, 0.0, 1024.0, false),
        u32::from(CONFIG_BAD_OPTIONS),
        "lengths overrun"
    );
    // A codec that was not built seals and opens nothing, and does not trap.
    let none = WasmCodec::new(&[7; 31], &[31], 600.0, 0.0, 1024.0, false);
    assert!(!none.is_ephemeral());
    assert_eq!(
        none.seal_io(OP_VIEW, 0, 0, -1, -1, -1, NOW),
        f64::from(STATUS_NO_CODEC)
    );
    assert_eq!(
        none.open_io(OP_VIEW, 0, 0, -1, -1, NOW),
        f64::from(STATUS_NO_CODEC)
    );
}

#[wasm_bindgen_test]
fn getrandom_draws_a_real_ephemeral_key_in_the_browser() {
    let mut a = [0u8; 32];
    let mut b = [0u8; 32];
    getrandom::fill(&mut a).unwrap();
    getrandom::fill(&mut b).unwrap();
    assert_ne!(a, b);
    assert_ne!(a, [0u8; 32]);

    let one = codec(&[]);
    let two = codec(&[]);
    assert!(one.is_ephemeral());
    let t = seal(&one, OP_VIEW, "{\"dev\":true}", "", None, NOW).unwrap();
    assert_eq!(
        open(&one, OP_VIEW, &t, "", None, NOW).as_deref(),
        Ok("{\"dev\":true}")
    );
    // One development key per wasm instance (an isolate): every keyless codec shares it, so tokens of one open in another.
    assert_eq!(
        open(&two, OP_VIEW, &t, "", None, NOW).as_deref(),
        Ok("{\"dev\":true}"),
        "the keyless codecs of one instance share its key"
    );
    let keyed = codec(&[&[7u8; 32]]);
    assert_eq!(
        open(&keyed, OP_VIEW, &t, "", None, NOW),
        Err(reason(Reason::Mac)),
        "a keyed codec refuses the development key's tokens"
    );
}

/// The edge build decodes base64url 16 characters at a time with SIMD128
/// (`js/build.mjs` builds it so, and `scripts/test` runs this file so): it
/// must decode and refuse exactly as the scalar loop, which the native tests
/// hold to the `base64` crate. Pseudo-random inputs, valid and corrupted at
/// every block position, at every length around the 16-character blocks.
#[wasm_bindgen_test]
fn simd_base64url_decode_agrees_with_the_scalar_loop() {
    use mcp_sealed_state::internals::wire::{decode, decode_scalar, encode};
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    // Bytes that break a block: outside the alphabet, next to its ranges, non-ASCII.
    let strays = [
        b'=', b'+', b'/', b' ', b'.', b'@', b'[', b'`', b'{', b'/', b':', b',', 0, 0x7f,
    ];
    let mut checked = 0;
    for len in (0..200).chain([767, 768, 3000, 65_536]) {
        let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let text = encode(&bytes);
        assert_eq!(decode(&text).as_deref(), Some(&bytes[..]), "{len}");
        assert_eq!(decode_scalar(&text).as_deref(), Some(&bytes[..]), "{len}");
        for _ in 0..8 {
            if text.is_empty() {
                break;
            }
            let mut bad = text.clone().into_bytes();
            let at = next() as usize % bad.len();
            bad[at] = strays[next() as usize % strays.len()];
            let bad = String::from_utf8(bad).unwrap();
            assert_eq!(decode(&bad), None, "{len} {at}");
            assert_eq!(decode_scalar(&bad), None, "{len} {at}");
            // Non-ASCII, a shortened text, non-canonical trailing bits.
            let mut wide = text.clone();
            wide.replace_range(at..=at, "é");
            let short = &text[..text.len() - 1 - at % text.len().min(5)];
            let mut flipped = text.clone().into_bytes();
            let last = flipped.len() - 1;
            flipped[last] = b"BCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                [next() as usize % 63];
            let flipped = String::from_utf8(flipped).unwrap();
            for s in [wide.as_str(), short, flipped.as_str()] {
                assert_eq!(decode(s), decode_scalar(s), "{len} {s:?}");
                checked += 1;
            }
        }
    }
    assert!(checked > 4000, "{checked}");
}

/// The SIMD128 decode classifies characters by nibble lookups: every ASCII
/// byte, at every lane of a block, is judged as the scalar loop's table
/// judges it (valid ones decoded the same, the rest refused).
#[wasm_bindgen_test]
fn simd_base64url_decode_judges_every_ascii_byte_in_every_lane() {
    use mcp_sealed_state::internals::wire::{decode, decode_scalar};
    let mut valid = 0;
    for c in 0u8..0x80 {
        for at in 0..32 {
            let mut text = vec![b'Q'; 32];
            text[at] = c;
            let text = String::from_utf8(text).unwrap();
            let simd = decode(&text);
            assert_eq!(simd, decode_scalar(&text), "{c:#x} at {at}");
            valid += usize::from(simd.is_some());
        }
    }
    assert_eq!(valid, 64 * 32);
}

/// The edge build finds the end of a string's plain run 16 bytes at a time
/// with SIMD128 (`tests/common` has the cases; natively they run the scalar
/// loop, in `tests/properties.rs`).
#[wasm_bindgen_test]
fn simd_string_scan_judges_every_position() {
    let checked = common::string_scan_cases(mcp_sealed_state::internals::json::is_valid);
    assert!(checked > 25_000, "{checked}");
}

/// The SIMD128 kernel of the string scan finds the end of a plain run
/// exactly where the scalar kernel does, from every byte of texts near JSON.
#[wasm_bindgen_test]
fn simd_plain_run_agrees_with_the_scalar_kernel() {
    use mcp_sealed_state::internals::json::{plain_run, plain_run_scalar};
    let mut runs = 0;
    let checked = common::json_like_texts(|text| {
        let b = text.as_bytes();
        for at in 0..=b.len() {
            assert_eq!(
                plain_run(&b[at..]),
                plain_run_scalar(&b[at..]),
                "{text:?} {at}"
            );
            runs += 1;
        }
    });
    assert!(checked > 40_000 && runs > 400_000, "{checked} {runs}");
}
