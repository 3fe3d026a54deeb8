//! docs/format.md's test vectors, kept from drifting: the `s` and `q`
//! vectors are written by an independent implementation of the format here
//! (the `hmac`, `hkdf` and `chacha20poly1305` crates, a fixed nonce), the
//! codec must open them (and seal the `q` ones byte for byte), and the
//! page's vector section is rendered from `tests/vectors/`.
//! `UPDATE_FORMAT=1 cargo test --test format` rewrites
//! `tests/vectors/format-v1.json` and the section of docs/format.md.
#![cfg(all(feature = "edge", feature = "jcs", not(target_arch = "wasm32")))]

mod common;

use std::fmt::Write as _;
use std::path::Path;

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use mcp_sealed_state::{OpenWith, Reason, Request, SealWith};
use serde_json::{json, Value};
use sha2::Sha256;

const KEY: &str = "mcp-sealed-state format vector key (32+ bytes)";
const NOW_MS: f64 = 1_764_500_000_123.0;
const TTL: i64 = 600;

/// What a format vector is made of.
struct Inputs {
    name: &'static str,
    tool: Option<&'static str>,
    bind: Option<&'static str>,
    payload: &'static str,
    secret: Option<(&'static str, [u8; 24])>,
    /// The request as a client might spell it, and its RFC 8785 form, by hand.
    request: Option<(&'static str, &'static str)>,
}

fn inputs() -> Vec<Inputs> {
    let nonce = |first: u8| core::array::from_fn(|i| first.wrapping_add(i as u8));
    vec![
        Inputs {
            name: "view-secret",
            tool: None,
            bind: None,
            payload: r#"{"board":"X...O....","turn":2}"#,
            secret: Some((r#"{"seed":42,"cursor":"c-17"}"#, nonce(0))),
            request: None,
        },
        Inputs {
            name: "rs-request",
            tool: Some("move"),
            bind: None,
            payload: r#"{"step":2}"#,
            secret: None,
            request: Some((
                r#"{ "cell": 4, "b": [1.0, "\u00e9", 2E-7], "a": 1e2 }"#,
                r#"{"a":100,"b":[1,"é",2e-7],"cell":4}"#,
            )),
        },
        Inputs {
            name: "rs-bound-secret-request",
            tool: Some("checkout"),
            bind: Some("user-42"),
            payload: r#"{"cart":["sku-1"]}"#,
            secret: Some((r#"{"price_cents":1299}"#, nonce(0x80))),
            request: Some((r#"{"€":1,"z":[],"a":{}}"#, r#"{"a":{},"z":[],"€":1}"#)),
        },
    ]
}

fn hmac(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).unwrap();
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().to_vec()
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The vector, by this file's own reading of docs/format.md.
fn reference(v: &Inputs) -> Value {
    let key = KEY.as_bytes();
    let exp = (NOW_MS / 1000.0).floor() as i64 + TTL;
    let mut inner = match v.tool {
        Some(tool) => format!(r#"{{"p":"r","d":{},"o":{}"#, v.payload, json_string(tool)),
        None => format!(r#"{{"p":"v","d":{}"#, v.payload),
    };
    let mut out =
        json!({ "name": v.name, "kind": if v.tool.is_some() { "requestState" } else { "view" } });
    out["key"] = json!({ "utf8": KEY });
    out["nowMs"] = json!(NOW_MS as i64);
    out["ttlSeconds"] = json!(TTL);
    out["exp"] = json!(exp);
    out["bind"] = json!(v.bind);
    out["tool"] = json!(v.tool);
    out["payloadJson"] = json!(v.payload);
    if let Some((secret, nonce)) = v.secret {
        let mut enc_key = [0u8; 32];
        Hkdf::<Sha256>::new(None, key)
            .expand(b"mcp-sealed-state/v1/secret", &mut enc_key)
            .unwrap();
        let aad = format!(
            "mcp-sealed-state/v1/secret:{}:{}",
            if v.tool.is_some() { "r" } else { "v" },
            v.tool.unwrap_or("")
        );
        let mut sealed = secret.as_bytes().to_vec();
        let tag = XChaCha20Poly1305::new(&enc_key.into())
            .encrypt_in_place_detached(XNonce::from_slice(&nonce), aad.as_bytes(), &mut sealed)
            .unwrap();
        sealed.extend_from_slice(&tag);
        let s = B64.encode([nonce.as_slice(), &sealed].concat());
        write!(inner, r#","s":"{s}""#).unwrap();
        out["secretJson"] = json!(secret);
        out["nonceHex"] = json!(hex(&nonce));
        out["encKeyHex"] = json!(hex(&enc_key));
        out["aad"] = json!(aad);
        out["s"] = json!(s);
    }
    if let Some((request, canonical)) = v.request {
        let q = B64.encode(
            &hmac(
                key,
                &[b"mcp-sealed-state/v1/request:", canonical.as_bytes()],
            )[..16],
        );
        write!(inner, r#","q":"{q}""#).unwrap();
        out["requestJson"] = json!(request);
        out["canonicalRequest"] = json!(canonical);
        out["q"] = json!(q);
    }
    inner.push('}');
    let mut envelope = format!(r#"{{"p":{inner},"exp":{exp}"#);
    if let Some(bind) = v.bind {
        let tag = B64.encode(&hmac(key, &[b"mcp.requestState.bind:", bind.as_bytes()])[..16]);
        write!(envelope, r#","b":"{tag}""#).unwrap();
    }
    envelope.push('}');
    let signed = format!("v1.{}", B64.encode(&envelope));
    let mac = B64.encode(hmac(key, &[signed.as_bytes()]));
    out["token"] = json!(format!("{signed}.{mac}"));
    out
}

fn format_file() -> String {
    let vectors: Vec<Value> = inputs().iter().map(reference).collect();
    let file = json!({
        "generator": "tests/format.rs (an independent implementation of docs/format.md: hmac, hkdf, chacha20poly1305; fixed nonces)",
        "vectors": vectors,
    });
    serde_json::to_string_pretty(&file).unwrap() + "\n"
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn update() -> bool {
    std::env::var_os("UPDATE_FORMAT").is_some()
}

/// The committed file, after writing `want` to it under `UPDATE_FORMAT`.
fn committed(path: &Path, want: &str) -> String {
    if update() {
        std::fs::write(path, want).unwrap();
    }
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The committed format vectors (under `UPDATE_FORMAT`, the ones being
/// written, which another test may be writing right now).
fn committed_vectors() -> Vec<Value> {
    let path = root().join("tests/vectors/format-v1.json");
    let text = match update() {
        true => format_file(),
        false => std::fs::read_to_string(path).unwrap(),
    };
    let file: Value = serde_json::from_str(&text).unwrap();
    file["vectors"].as_array().unwrap().clone()
}

#[test]
fn the_format_vectors_are_the_reference_implementations() {
    let path = root().join("tests/vectors/format-v1.json");
    let want = format_file();
    assert!(
        committed(&path, &want) == want,
        "tests/vectors/format-v1.json is stale: UPDATE_FORMAT=1 cargo test --test format\n{want}"
    );
}

/// Open a vector's token with the codec: the payload and the secret.
fn open(
    c: &mcp_sealed_state::Codec,
    v: &Value,
    request: Option<Request<'_>>,
) -> Result<(String, Option<String>), Reason> {
    let token = v["token"].as_str().unwrap();
    let with = match v["tool"].as_str() {
        Some(tool) => OpenWith::request_state(tool),
        None => OpenWith::view(),
    };
    let with = with.bind(v["bind"].as_str()).request(request);
    common::at(NOW_MS, || c.open(token, &with))
        .map(|o| (o.payload_json().to_owned(), o.secret))
        .map_err(|e| e.reason())
}

/// Seal a vector's payload (and request) with the codec.
fn seal(c: &mcp_sealed_state::Codec, v: &Value) -> String {
    let with = match v["tool"].as_str() {
        Some(tool) => SealWith::request_state(tool),
        None => SealWith::view(),
    };
    let with = with
        .bind(v["bind"].as_str())
        .request(v["requestJson"].as_str().map(Request::Json));
    common::at(NOW_MS, || c.seal(v["payloadJson"].as_str().unwrap(), &with)).unwrap()
}

#[test]
fn the_codec_opens_every_format_vector_and_seals_the_q_ones_byte_for_byte() {
    for v in committed_vectors() {
        let name = v["name"].as_str().unwrap();
        let c = common::codec_with(&[KEY.as_bytes()], |_| {});
        let want = (
            v["payloadJson"].as_str().unwrap().to_owned(),
            v["secretJson"].as_str().map(str::to_owned),
        );
        let request = v["requestJson"].as_str().map(Request::Json);
        assert_eq!(open(&c, &v, request), Ok(want.clone()), "{name}");
        if let Some(canonical) = v["canonicalRequest"].as_str() {
            // The canonical text, as the wasm glue hands it in, opens it too;
            // another request or none does not.
            let canonical = Some(Request::Canonical(canonical));
            assert_eq!(open(&c, &v, canonical), Ok(want), "{name}");
            let other = Some(Request::Json("{}"));
            assert_eq!(open(&c, &v, other), Err(Reason::Request), "{name}");
            assert_eq!(open(&c, &v, None), Err(Reason::Request), "{name}");
        }
        if v["secretJson"].is_null() {
            assert_eq!(seal(&c, &v), v["token"].as_str().unwrap(), "{name}");
        }
    }
}

/// The SDK vectors shown on the page: one of each kind, bound and not.
const SDK_SHOWN: [&str; 4] = [
    "raw-tictactoe",
    "raw-bound-tictactoe",
    "view-bound-tictactoe",
    "rs-bound-move",
];

fn body_of(token: &str) -> String {
    let body = token.split('.').nth(1).unwrap();
    String::from_utf8(B64.decode(body).unwrap()).unwrap()
}

fn render_vector(out: &mut String, v: &Value) {
    let line = |out: &mut String, label: &str, value: &str| {
        writeln!(out, "{label:<17}{value}").unwrap();
    };
    writeln!(out, "\n### {}\n\n```text", v["name"].as_str().unwrap()).unwrap();
    match (&v["key"]["utf8"], &v["key"]["hex"]) {
        (Value::String(k), _) => line(out, "key (UTF-8)", k),
        (_, Value::String(k)) => line(out, "key (hex)", k),
        _ => panic!("vector key"),
    }
    line(out, "nowMs", &v["nowMs"].to_string());
    line(out, "ttlSeconds", &v["ttlSeconds"].to_string());
    for (label, field) in [
        ("bind", "bind"),
        ("tool", "tool"),
        ("payload JSON", "payloadJson"),
        ("secret JSON", "secretJson"),
        ("nonce (hex)", "nonceHex"),
        ("encKey (hex)", "encKeyHex"),
        ("aad", "aad"),
        ("s", "s"),
        ("request JSON", "requestJson"),
        ("JCS(request)", "canonicalRequest"),
        ("q", "q"),
    ] {
        if let Some(value) = v[field].as_str() {
            line(out, label, value);
        }
    }
    let token = v["token"].as_str().unwrap();
    line(out, "envelope", &body_of(token));
    line(out, "token", token);
    out.push_str("```\n");
}

fn render_section() -> String {
    let sdk: Value = serde_json::from_str(include_str!("vectors/sdk-v1.json")).unwrap();
    let mut out = String::from(
        "<!-- vectors:begin (rendered by tests/format.rs: UPDATE_FORMAT=1 cargo test --test format) -->\n",
    );
    for name in SDK_SHOWN {
        let v = sdk["vectors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap_or_else(|| panic!("no SDK vector {name}"));
        render_vector(&mut out, v);
    }
    for v in committed_vectors() {
        render_vector(&mut out, &v);
    }
    out.push_str("\n<!-- vectors:end -->");
    out
}

#[test]
fn docs_format_md_shows_the_vectors_of_tests_vectors() {
    let path = root().join("docs/format.md");
    let page = std::fs::read_to_string(&path).unwrap();
    let start = page.find("<!-- vectors:begin").expect("the begin marker");
    let end =
        page.find("<!-- vectors:end -->").expect("the end marker") + "<!-- vectors:end -->".len();
    let want = format!("{}{}{}", &page[..start], render_section(), &page[end..]);
    assert!(
        committed(&path, &want) == want,
        "docs/format.md's vectors are stale: UPDATE_FORMAT=1 cargo test --test format"
    );
}
