//! `mcp-sealed-state inspect` on other MCP SDKs' requestState tokens: it names
//! the SDK that most likely made each, says why it cannot check it, reads what
//! travels in the clear, and never calls one genuine (the format layouts and
//! their sources are in src/bin/mcp-sealed-state/formats.rs).
//!
//! tests/vectors/foreign-sdk-tokens.json holds tokens made by those SDKs' own
//! code, each entry naming the SDK, its version or commit and the call:
//! - Python: `mcp` from PyPI, `AESGCMRequestStateCodec([key]).seal(..)`
//!   (src/mcp/server/request_state.py of modelcontextprotocol/python-sdk);
//! - Ruby: `MCP::Server::RequestStateSecurity#seal` (lib/mcp/server/request_state_security.rb
//!   of modelcontextprotocol/ruby-sdk) on Debian's Ruby;
//! - PHP: `Mcp\Server\Stateless\RequestStateCodec::mint` (src/Server/Stateless/RequestStateCodec.php
//!   of modelcontextprotocol/php-sdk) on Debian's PHP;
//! - Rust: rmcp from crates.io, `RequestStateCodec::seal_json_with` (`try_new`: rs1;
//!   `new_with_keyring`: rs2) (crates/rmcp/src/model/request_state.rs of modelcontextprotocol/rust-sdk).
//!
//! mcp.d (no D compiler here) is made in this file from the layout its source
//! states, source/mcp/server/request_state.d of Poita/mcp.d: signed
//! `"v1." ~ b64url(payload) ~ "." ~ b64url(mac)`, encrypted
//! `"v1e." ~ b64url(nonce ~ ciphertext ~ tag)`, payload `{"s","exp","b"}`.
#![cfg(not(target_arch = "wasm32"))]

use std::process::{Command, Output};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sealed-state");

fn fixtures() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/vectors/foreign-sdk-tokens.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn token(name: &str) -> String {
    fixtures()[name]["token"].as_str().unwrap().to_string()
}

fn inspect(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("inspect")
        .args(args)
        .env_remove("STATE_KEY")
        .output()
        .unwrap()
}

/// `inspect --json`, which must succeed, and the plain text, which must say it checked nothing.
fn inspected(token: &str) -> (Value, String) {
    let json = inspect(&["--json", token]);
    assert!(
        json.status.success(),
        "{}",
        String::from_utf8_lossy(&json.stderr)
    );
    let text = inspect(&[token]);
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.starts_with("UNVERIFIED: not a token of this package"),
        "{text}"
    );
    assert!(!text.to_lowercase().contains("genuine token"), "{text}");
    (serde_json::from_slice(&json.stdout).unwrap(), text)
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[test]
fn python_and_ruby_tokens_are_encrypted_and_named() {
    let (python, text) = inspected(&token("python"));
    assert_eq!(python["verified"], false);
    assert_eq!(python["format"], "v1-aes-256-gcm");
    assert!(python["madeBy"]
        .as_str()
        .unwrap()
        .starts_with("most likely the Python SDK"));
    assert!(python["why"].as_str().unwrap().contains("AES-256-GCM"));
    // The key id the Python SDK put first, as its codec reports it.
    assert_eq!(python["keyId"], fixtures()["python"]["keyId"]);
    assert_eq!(python["expiry"], "encrypted");
    assert_eq!(python["payload"], Value::Null);
    assert!(text.contains("payload  unreadable (encrypted)"), "{text}");

    // The Ruby SDK's token has the same shape: the Ruby SDK is named too.
    let (ruby, _) = inspected(&token("ruby"));
    assert_eq!(ruby["format"], "v1-aes-256-gcm");
    assert!(ruby["madeBy"].as_str().unwrap().contains("the Ruby SDK"));
    assert_eq!(ruby["payload"], Value::Null);
}

#[test]
fn rmcp_tokens_show_their_expiry_key_id_and_payload() {
    let made = fixtures();
    let (rs1, text) = inspected(&token("rmcp-rs1"));
    assert_eq!(rs1["format"], "rs1");
    assert!(rs1["madeBy"].as_str().unwrap().contains("rmcp"));
    assert!(rs1["why"].as_str().unwrap().contains("another MAC layout"));
    assert_eq!(rs1["expiry"], "at");
    let exp = rs1["exp"].as_i64().unwrap();
    let [from, to] = [0, 1].map(|i| made["rmcp-rs1"]["expBetween"][i].as_i64().unwrap());
    assert!((from..=to).contains(&exp), "{exp} not in {from}..={to}");
    assert_eq!(rs1["payload"], json!({"cell": 4, "tool": "move"}));
    assert!(text.contains("key id   -"), "{text}");

    let (never, text) = inspected(&token("rmcp-rs1-no-expiry"));
    assert_eq!(never["expiry"], "never");
    assert!(
        text.contains("exp      none (the token never expires)"),
        "{text}"
    );

    let (rs2, text) = inspected(&token("rmcp-rs2"));
    assert_eq!(rs2["format"], "rs2");
    assert_eq!(rs2["keyId"], "key-2026");
    assert!(text.contains("key id   \"key-2026\""), "{text}");
    assert_eq!(rs2["payload"], json!({"cell": 4, "tool": "move"}));
}

#[test]
fn php_tokens_show_their_body() {
    let (php, text) = inspected(&token("php"));
    assert_eq!(php["format"], "php");
    assert!(php["madeBy"].as_str().unwrap().contains("PHP SDK"));
    assert_eq!(php["expiry"], "at");
    assert_eq!(php["exp"], 1_796_000_600);
    assert_eq!(php["payload"], json!({"cell": 4, "tool": "move"}));
    assert!(
        text.contains("exp      1796000600 (2026-11-30T01:03:20Z, expired"),
        "{text}"
    );
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

#[test]
fn mcp_d_tokens_from_its_stated_layout() {
    // Signed: the MAC key is an HKDF sub-key in mcp.d; any 32-byte MAC has the shape.
    let exp = now() + 300;
    let payload = json!({"s": "{\"step\":2}", "exp": exp, "b": "ab".repeat(32)}).to_string();
    let mut mac = Hmac::<Sha256>::new_from_slice(b"stand-in for mcp.d's HKDF sub-key").unwrap();
    mac.update(payload.as_bytes());
    let signed = format!(
        "v1.{}.{}",
        b64(payload.as_bytes()),
        b64(&mac.finalize().into_bytes())
    );
    let (d, text) = inspected(&signed);
    assert_eq!(d["format"], "mcp.d-v1");
    assert!(d["why"].as_str().unwrap().contains("HKDF"));
    assert_eq!(d["exp"], exp);
    assert_eq!(d["payload"], json!({"step": 2}));
    assert!(text.contains("valid for"), "{text}");

    // Encrypted: nonce 12, then ciphertext and tag 16; nothing readable.
    let sealed: Vec<u8> = (0u8..60).collect();
    let (e, _) = inspected(&format!("v1e.{}", b64(&sealed)));
    assert_eq!(e["format"], "mcp.d-v1e");
    assert_eq!(e["expiry"], "encrypted");
    assert_eq!(e["payload"], Value::Null);
}

#[test]
fn what_is_no_known_format_stays_an_error() {
    for token in [
        "not-a-token",
        "v1.e30",
        "rs1.AAAA.AAAA",
        "e30.e30",
        "v1e.AAAA",
    ] {
        let out = inspect(&[token]);
        assert_eq!(out.status.code(), Some(2), "{token}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("not a v1 sealed-state token"));
    }
}

#[test]
fn another_sdks_token_cannot_drive_the_terminal() {
    // A PHP-shaped token whose body carries a CSI, a bidi override and an ESC.
    let body = json!({"exp": 1_796_000_600, "data": {"note": "a\u{9b}2Jb\u{202e}c\u{1b}[31m"}})
        .to_string();
    let token = format!("{}.{}", b64(body.as_bytes()), b64(&[0u8; 32]));
    let (php, text) = inspected(&token);
    assert_eq!(php["payload"]["note"], "a\u{9b}2Jb\u{202e}c\u{1b}[31m");
    let json = String::from_utf8(inspect(&["--json", &token]).stdout).unwrap();
    for raw in [&text, &json] {
        assert!(
            !raw.contains(['\u{9b}', '\u{202e}', '\u{1b}']),
            "a raw control character reached the terminal: {raw:?}"
        );
    }
    assert!(
        text.contains("\\u009b") && text.contains("\\u202e"),
        "{text}"
    );
}
