//! The `mcp-sealed-state` command, run as built: every verb, keys from the
//! environment and from files, refused keys, and refused tokens with their
//! reasons. Tokens cross between the command and the library.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{stderr, stdout};
use std::path::PathBuf;
use std::process::{Command, Output};

use base64::Engine;
use mcp_sealed_state::{Codec, CodecOptions, OpenWith, SealWith, SEALED_STATE_INVALID_MESSAGE};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sealed-state");
const KEY: &str = "cli-test-key: at least thirty-two bytes long";
const GAME: &str = r#"{"board":"X...O....","turn":2}"#;

/// Run the command with `STATE_KEY` set to `key` (or unset) and nothing else
/// of the caller's key environment.
fn run(key: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("STATE_KEY")
        .env_remove("OTHER_KEY");
    if let Some(key) = key {
        cmd.env("STATE_KEY", key);
    }
    let out = cmd.output().unwrap();
    // Whatever happens, no key is ever printed.
    for stream in [&out.stdout, &out.stderr] {
        let text = String::from_utf8_lossy(stream);
        assert!(!text.contains(KEY), "the key was printed: {text}");
    }
    out
}

fn codec(key: &str) -> Codec {
    Codec::new(CodecOptions::with_keys(vec![key.as_bytes().to_vec()])).unwrap()
}

fn temp_file(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-sealed-state-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn keygen_prints_a_fresh_32_byte_base64url_key() {
    let a = stdout(&run(None, &["keygen"]));
    let b = stdout(&run(None, &["keygen"]));
    assert_eq!(a.len(), 43);
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(&a)
        .unwrap();
    assert_eq!(bytes.len(), 32);
    assert_ne!(a, b);
    // It is usable as a key as it is.
    let token = stdout(&run(Some(&a), &["seal", "1"]));
    assert_eq!(stdout(&run(Some(&a), &["verify", &token])), "1");
}

#[test]
fn seal_then_verify_each_kind() {
    let view = stdout(&run(Some(KEY), &["seal", "--bind", "user-1", GAME]));
    assert_eq!(
        stdout(&run(Some(KEY), &["verify", "--bind", "user-1", &view])),
        GAME
    );
    let rs = stdout(&run(Some(KEY), &["seal", "--tool", "move", GAME]));
    assert_eq!(
        stdout(&run(Some(KEY), &["verify", "--tool", "move", &rs])),
        GAME
    );
    let raw = stdout(&run(Some(KEY), &["seal", "--raw", "--ttl", "60", GAME]));
    assert_eq!(stdout(&run(Some(KEY), &["verify", "--raw", &raw])), GAME);

    // The library opens what the command sealed, and the reverse.
    let c = codec(KEY);
    assert_eq!(
        c.open(&view, &OpenWith::view().bind("user-1"))
            .unwrap()
            .payload_json(),
        GAME
    );
    assert_eq!(
        c.open(&rs, &OpenWith::request_state("move"))
            .unwrap()
            .payload_json(),
        GAME
    );
    assert_eq!(c.open(&raw, &OpenWith::raw()).unwrap().payload_json(), GAME);
    let lib = c
        .seal(GAME, &SealWith::request_state("start").bind("u"))
        .unwrap();
    assert_eq!(
        stdout(&run(
            Some(KEY),
            &["verify", "--tool", "start", "--bind", "u", &lib]
        )),
        GAME
    );
}

#[test]
fn verify_json_is_one_object() {
    let rs = stdout(&run(Some(KEY), &["seal", "--tool", "move", GAME]));
    let out = stdout(&run(
        Some(KEY),
        &["verify", "--json", "--tool", "move", &rs],
    ));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"ok": true, "payload": {"board": "X...O....", "turn": 2}, "purpose": "requestState", "tool": "move"})
    );
}

#[test]
fn a_secret_is_sealed_verified_and_never_shown_by_inspect() {
    let secret = r#"{"seed":"4f2a","gameId":17}"#;
    let t = stdout(&run(Some(KEY), &["seal", "--secret", secret, GAME]));
    assert_eq!(
        stdout(&run(Some(KEY), &["verify", &t])),
        format!("{GAME}\nsecret: {secret}")
    );
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&run(Some(KEY), &["verify", "--json", &t]))).unwrap();
    assert_eq!(
        v["secret"],
        serde_json::json!({"seed": "4f2a", "gameId": 17})
    );
    assert_eq!(v["payload"]["turn"], 2);
    // The library opens the command's secret, and the command the library's.
    let lib = codec(KEY).open(&t, &OpenWith::view()).unwrap();
    assert_eq!(lib.secret.as_deref(), Some(secret));
    let from_lib = codec(KEY)
        .seal("1", &SealWith::view().secret("[2]"))
        .unwrap();
    assert_eq!(
        stdout(&run(Some(KEY), &["verify", &from_lib])),
        "1\nsecret: [2]"
    );
    // inspect: the size only, never the text.
    let shown = stdout(&run(None, &["inspect", &t]));
    let n = 24 + secret.len() + 16;
    assert!(
        shown.contains(&format!("secret: encrypted ({n} bytes)")),
        "{shown}"
    );
    assert!(!shown.contains("4f2a"));
    let j: serde_json::Value =
        serde_json::from_str(&stdout(&run(None, &["inspect", "--json", &t]))).unwrap();
    assert_eq!(
        j["secret"],
        serde_json::json!({"encrypted": true, "bytes": n})
    );
    // Another key: refused as mac, nothing of the secret on either stream.
    let other = run(
        Some("another key of at least thirty-two bytes"),
        &["verify", &t],
    );
    assert_eq!(other.status.code(), Some(1));
    assert!(stderr(&other).contains("refused: mac"));
    for stream in [&other.stdout, &other.stderr] {
        assert!(!String::from_utf8_lossy(stream).contains("4f2a"));
    }
    // A secret that is not JSON is a usage error, and not echoed.
    let bad = run(Some(KEY), &["seal", "--secret", "{hidden", "1"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(!stderr(&bad).contains("hidden"));
}

#[test]
fn a_request_bound_token_verifies_only_with_its_request() {
    let t = stdout(&run(
        Some(KEY),
        &[
            "seal",
            "--tool",
            "move",
            "--request",
            r#"{"b":2,"a":1}"#,
            GAME,
        ],
    ));
    let verify = |request: Option<&str>| {
        let mut args = vec!["verify", "--tool", "move"];
        if let Some(r) = request {
            args.extend(["--request", r]);
        }
        args.push(&t);
        run(Some(KEY), &args)
    };
    assert_eq!(stdout(&verify(Some(r#"{"a":1,"b":2}"#))), GAME);
    for refused in [verify(Some(r#"{"a":1,"b":3}"#)), verify(None)] {
        assert_eq!(refused.status.code(), Some(1));
        assert!(stderr(&refused).contains("refused: request"));
    }
}

#[test]
fn a_tampered_token_exits_1_with_reason_mac() {
    let token = stdout(&run(Some(KEY), &["seal", GAME]));
    let mut bytes = token.into_bytes();
    let last = bytes.len() - 1;
    bytes[last] = if bytes[last] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(bytes).unwrap();

    let out = run(Some(KEY), &["verify", &tampered]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(err.contains("refused: mac"), "{err}");
    assert!(err.contains(SEALED_STATE_INVALID_MESSAGE));

    let out = run(Some(KEY), &["verify", "--json", &tampered]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["reason"], "mac");
    assert_eq!(v["message"], SEALED_STATE_INVALID_MESSAGE);
}

#[test]
fn every_refusal_reason_reaches_stderr() {
    let reason = |args: &[&str]| {
        let out = run(Some(KEY), args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(
            &run(Some(KEY), &[&["verify", "--json"][..], &args[1..]].concat()).stdout,
        )
        .unwrap();
        v["reason"].as_str().unwrap().to_string()
    };
    let view = stdout(&run(Some(KEY), &["seal", "--bind", "alice", GAME]));
    // Sealed by the library an hour before the tests' clock, with the
    // default 10-minute lifetime.
    let old = common::at(common::NOW_MS - 3_600_000.0, || {
        common::codec_with(&[KEY.as_bytes()], |_| {}).seal(GAME, &SealWith::view())
    })
    .unwrap();
    assert_eq!(reason(&["verify", "v1.abc"]), "malformed");
    assert_eq!(reason(&["verify", &old]), "expired");
    assert_eq!(reason(&["verify", "--bind", "bob", &view]), "bind");
    assert_eq!(reason(&["verify", &view]), "bind");
    assert_eq!(
        reason(&["verify", "--bind", "alice", "--tool", "move", &view]),
        "purpose"
    );
    let other = Codec::new(CodecOptions::with_keys(vec![[7u8; 32].to_vec()])).unwrap();
    let foreign = other.seal(GAME, &SealWith::view()).unwrap();
    assert_eq!(reason(&["verify", &foreign]), "mac");
}

#[test]
fn inspect_shows_what_the_token_claims_unverified() {
    let token = stdout(&run(
        Some(KEY),
        &["seal", "--tool", "move", "--bind", "u", GAME],
    ));
    // No key needed (none is set here).
    let text = stdout(&run(None, &["inspect", &token]));
    assert!(text.starts_with("UNVERIFIED"), "{text}");
    assert!(text.contains("purpose  requestState"), "{text}");
    assert!(text.contains("tool     \"move\""), "{text}");
    assert!(text.contains("bound    yes"), "{text}");
    assert!(text.contains(&format!("payload  {GAME}")), "{text}");
    assert!(text.contains("valid for"), "{text}");

    let json = stdout(&run(None, &["inspect", "--json", &token]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["verified"], false);
    assert_eq!(v["purpose"], "requestState");
    assert_eq!(v["tool"], "move");
    assert_eq!(v["bound"], true);
    assert_eq!(
        v["payload"],
        serde_json::json!({"board": "X...O....", "turn": 2})
    );
    let exp = v["exp"].as_i64().unwrap();
    let now = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()) as i64;
    assert!((now + 590..=now + 600).contains(&exp), "{exp} vs {now}");

    // An old raw token reads as expired; a forged one reads just the same.
    let old = common::at(1_000_000.0, || {
        common::codec_with(&[KEY.as_bytes()], |_| {}).seal("null", &SealWith::raw())
    })
    .unwrap();
    let text = stdout(&run(None, &["inspect", &old]));
    assert!(text.contains("purpose  none (raw v1 token)"), "{text}");
    assert!(text.contains("expired"), "{text}");
    assert!(text.contains("1970-01-01T00:26:40Z"), "{text}");

    let out = run(None, &["inspect", "not-a-token"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not a v1 sealed-state token"));
}

#[test]
fn keys_come_from_another_variable_or_a_file() {
    let token = stdout(&run(Some(KEY), &["seal", GAME]));
    // --key-env
    let out = Command::new(BIN)
        .args(["verify", "--key-env", "OTHER_KEY", &token])
        .env_remove("STATE_KEY")
        .env("OTHER_KEY", KEY)
        .output()
        .unwrap();
    assert_eq!(stdout(&out), GAME);
    // --key-file, with the newline `keygen > file` leaves, and without.
    for contents in [format!("{KEY}\n"), KEY.to_string(), format!("{KEY}\r\n")] {
        let path = temp_file("key", contents.as_bytes());
        let out = run(
            None,
            &["verify", "--key-file", path.to_str().unwrap(), &token],
        );
        assert_eq!(stdout(&out), GAME);
    }
    // A binary key file.
    let bin_key: Vec<u8> = (0u8..48).map(|i| i.wrapping_mul(37) ^ 0xa5).collect();
    let path = temp_file("binary-key", &bin_key);
    let t = stdout(&run(
        None,
        &["seal", "--key-file", path.to_str().unwrap(), "[]"],
    ));
    let c = Codec::new(CodecOptions::with_keys(vec![bin_key])).unwrap();
    assert_eq!(c.open(&t, &OpenWith::view()).unwrap().payload_json(), "[]");
}

#[test]
fn bad_keys_are_refused_with_a_clear_message() {
    // Shorter than 32 bytes.
    let short = "only-31-bytes-long-key-12345678";
    assert_eq!(short.len(), 31);
    let out = run(Some(short), &["seal", GAME]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("31 bytes") && err.contains("at least 32 bytes"),
        "{err}"
    );
    assert!(!err.contains(short));
    // The right length but the wrong key: a refusal, exit 1.
    let token = stdout(&run(Some(KEY), &["seal", GAME]));
    let out = run(
        Some("another key, also at least 32 bytes long"),
        &["verify", &token],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("refused: mac"));
    // No key at all: never the dev ephemeral key.
    let out = run(None, &["seal", GAME]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("$STATE_KEY is not set"),
        "{}",
        stderr(&out)
    );
    let out = run(Some(""), &["verify", &token]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_unreadable_key_file_is_an_error() {
    let missing = std::env::temp_dir().join("mcp-sealed-state-cli-no-such-key");
    let out = run(
        Some(KEY),
        &["seal", "--key-file", missing.to_str().unwrap(), GAME],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("cannot read the key file"), "{err}");
    // A directory is not a key file either; and a file key never falls back to $STATE_KEY.
    let dir = std::env::temp_dir();
    let out = run(
        Some(KEY),
        &["verify", "--key-file", dir.to_str().unwrap(), "v1.a.b"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read the key file"));
    // Both sources at once is a usage error.
    let out = run(
        Some(KEY),
        &["seal", "--key-env", "A", "--key-file", "b", GAME],
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_key_on_the_command_line_is_refused_and_never_echoed() {
    for args in [
        &["seal", "--key", KEY, GAME][..],
        &["seal", &format!("--key={KEY}"), GAME][..],
        &["verify", "--key", KEY, "v1.a.b"][..],
    ] {
        let out = run(None, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains("refusing --key"), "{}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn seal_reads_stdin_and_seals_the_json_without_surrounding_whitespace() {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(["seal", "--raw", "-"])
        .env("STATE_KEY", KEY)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("  {GAME}\n").as_bytes())
        .unwrap();
    let token = stdout(&child.wait_with_output().unwrap());
    let c = codec(KEY);
    assert_eq!(
        c.open(&token, &OpenWith::raw()).unwrap().payload_json(),
        GAME
    );
    let inner = stdout(&run(Some(KEY), &["seal", "--raw", "[1, 2]"]));
    assert_eq!(
        c.open(&inner, &OpenWith::raw()).unwrap().payload_json(),
        "[1, 2]"
    );
}

#[test]
fn seal_refuses_a_payload_that_is_not_json() {
    let out = run(Some(KEY), &["seal", "{not json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("payload is not valid JSON text"));
}
