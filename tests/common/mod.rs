//! Shared by the native integration tests: the SDK vectors and small helpers.
#![allow(dead_code)]

use serde_json::Value;

#[derive(Clone)]
pub struct Vector {
    pub name: String,
    pub kind: String,
    pub key: Vec<u8>,
    pub now_ms: f64,
    pub ttl_seconds: i64,
    pub exp: i64,
    pub bind: Option<String>,
    pub tool: Option<String>,
    pub payload_json: String,
    pub token: String,
}

pub fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Every vector written by js/gen-vectors.mjs from @modelcontextprotocol/server@2.4.0.
pub fn sdk_vectors() -> Vec<Vector> {
    let text = include_str!("../vectors/sdk-v1.json");
    let file: Value = serde_json::from_str(text).unwrap();
    let vectors = file["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 40, "expected the full vector set");
    vectors
        .iter()
        .map(|v| Vector {
            name: v["name"].as_str().unwrap().into(),
            kind: v["kind"].as_str().unwrap().into(),
            key: match (&v["key"]["utf8"], &v["key"]["hex"]) {
                (Value::String(s), _) => s.as_bytes().to_vec(),
                (_, Value::String(h)) => hex(h),
                _ => panic!("vector key"),
            },
            now_ms: v["nowMs"].as_f64().unwrap(),
            ttl_seconds: v["ttlSeconds"].as_i64().unwrap(),
            exp: v["exp"].as_i64().unwrap(),
            bind: v["bind"].as_str().map(Into::into),
            tool: v["tool"].as_str().map(Into::into),
            payload_json: v["payloadJson"].as_str().unwrap().into(),
            token: v["token"].as_str().unwrap().into(),
        })
        .collect()
}

pub const KEY: &[u8; 32] = b"0123456789abcdef0123456789abcdef";
pub const KEY2: &[u8; 32] = b"fedcba9876543210fedcba9876543210";
pub const NOW_MS: f64 = 1_764_500_000_123.0;

/// Every kind of byte that ends a string's plain run (or must not be in
/// it), at every position in and across 16-byte blocks and at several
/// offsets of the string in the text, judged by `is_valid` as the JSON
/// grammar says; returns how many texts it judged. The edge wasm scans
/// strings with SIMD128, native and widget builds a byte at a time.
pub fn string_scan_cases(is_valid: fn(&str) -> bool) -> usize {
    // (what is inserted, whether the string stays valid JSON)
    let cases: [(&str, bool); 9] = [
        ("\\n", true),
        ("\\\"", true),
        ("\\u00e9", true),
        ("é", true),
        ("\u{7f}", true),
        ("\\x", false),
        ("\\u12", false),
        ("\u{1f}", false),
        ("\t", false),
    ];
    let mut checked = 0;
    for len in 0..40 {
        for at in 0..=len {
            for (insert, valid) in cases {
                let plain = "q".repeat(len); // not a hex digit: "\\u12" stays short
                let s = format!("\"{}{insert}{}\"", &plain[..at], &plain[at..]);
                for pad in [0, 1, 7, 15] {
                    let text = format!("{}[{s},{}]", " ".repeat(pad), "1".repeat(pad + 1));
                    assert_eq!(is_valid(&text), valid, "{text:?}");
                    checked += 1;
                }
            }
            // A quote inside ends the string early: what follows is not JSON.
            let s = format!("\"{}\"{}\"", "a".repeat(at), "a".repeat(len - at));
            assert!(!is_valid(&s), "{s:?}");
            // Unterminated, at every length.
            assert!(!is_valid(&format!("[\"{}", "a".repeat(len))));
            checked += 2;
        }
    }
    checked
}

/// Texts near JSON for a scanner and its reference to disagree on, if they
/// can: pseudo-random runs of JSON tokens, broken ones and whitespace
/// (mostly invalid, at every depth), and compact, spaced and one-byte-
/// mutated forms of valid documents of app-like state. `judge` is called on
/// each; returns how many it was called on.
pub fn json_like_texts(mut judge: impl FnMut(&str)) -> usize {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let tokens = [
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"k\"",
        "\"\"",
        "\"a\\n\\u00e9\"",
        "\"é\"",
        "0",
        "-0",
        "7",
        "12",
        "-3.25",
        "1e9",
        "2E-7",
        "0.5e+3",
        "01",
        "1.",
        "-",
        ".5",
        "1e",
        "+1",
        "true",
        "false",
        "null",
        "tru",
        "nul",
        " ",
        "\n",
        "\t",
        "\r",
        "\"",
        "\\",
        "\"\\x\"",
        "x",
    ];
    let mut count = 0;
    for _ in 0..40_000 {
        let text: String = (0..1 + next(12))
            .map(|_| tokens[next(tokens.len())])
            .collect();
        judge(&text);
        count += 1;
    }
    let docs = [
        "{\"n\":12,\"cell\":3,\"at\":1764490084,\"ok\":true,\"score\":55.12,\"note\":\"charlie hotel move 12\"}",
        "{\"board\":[0,0,0,0,0,0,0,0,0],\"turn\":1,\"deep\":[[[{}]],[[]],{\"a\":[null,false]}]}",
        "[{\"a\":-0.5e-3,\"b\":\"\\\"q\\\\\",\"c\":[1,2,{\"d\":{}}]},[],\"\\ud83d\\ude00\",0]",
        "{\"\":{\"\":[\"\",{\"\":0}]},\"x\":1E+2}",
    ];
    let spaces = [" ", "\n", "\t", "\r", "  "];
    for doc in docs {
        let bytes = doc.as_bytes();
        for at in 0..=bytes.len() {
            // Whitespace put in at each byte (valid between tokens only).
            for space in spaces {
                let mut spaced = bytes[..at].to_vec();
                spaced.extend_from_slice(space.as_bytes());
                spaced.extend_from_slice(&bytes[at..]);
                if let Ok(text) = std::str::from_utf8(&spaced) {
                    judge(text);
                    count += 1;
                }
            }
            if at == bytes.len() {
                break;
            }
            // Each byte deleted, and replaced by a structural or a digit.
            let mut cut = bytes.to_vec();
            cut.remove(at);
            if let Ok(text) = std::str::from_utf8(&cut) {
                judge(text);
                count += 1;
            }
            for c in *b"{}[],:\"\\0-1.eE tfn" {
                let mut edit = bytes.to_vec();
                edit[at] = c;
                if let Ok(text) = std::str::from_utf8(&edit) {
                    judge(text);
                    count += 1;
                }
            }
        }
    }
    count
}

// The one clock of the native tests: every codec of `codec_with` reads the
// test thread's clock, which is `NOW_MS` unless a call runs inside `at`.
#[cfg(feature = "edge")]
thread_local! {
    static TEST_NOW_MS: std::cell::Cell<f64> = const { std::cell::Cell::new(NOW_MS) };
}

/// `f()` with the test clock at `now_ms`, then the clock back at `NOW_MS`.
#[cfg(feature = "edge")]
pub fn at<R>(now_ms: f64, f: impl FnOnce() -> R) -> R {
    TEST_NOW_MS.with(|now| now.set(now_ms));
    let result = f();
    TEST_NOW_MS.with(|now| now.set(NOW_MS));
    result
}

/// A codec on `keys` with the options `f` sets, reading the test clock.
#[cfg(feature = "edge")]
pub fn codec_with(
    keys: &[&[u8]],
    f: impl FnOnce(&mut mcp_sealed_state::CodecOptions<Vec<u8>>),
) -> mcp_sealed_state::Codec {
    let mut o =
        mcp_sealed_state::CodecOptions::with_keys(keys.iter().map(|k| k.to_vec()).collect());
    o.now = mcp_sealed_state::Clock::from_fn(|| TEST_NOW_MS.with(std::cell::Cell::get));
    f(&mut o);
    mcp_sealed_state::Codec::new(o).unwrap()
}

/// The standard output of a command that must have succeeded, without its final line ending.
pub fn stdout(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "status {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .trim_end()
        .to_string()
}

/// The standard error of a command.
pub fn stderr(out: &std::process::Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// Run the command `bin` with `STATE_KEY` set to `key` (or unset, and
/// `OTHER_KEY` unset), `stdin` piped in. Fails the test on a panic, or when
/// the key shows in what it printed.
pub fn run_cli(bin: &str, key: Option<&str>, args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .env_remove("STATE_KEY")
        .env_remove("OTHER_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(key) = key {
        cmd.env("STATE_KEY", key);
    }
    let mut child = cmd.spawn().unwrap();
    // The command may stop reading early (some tests check that it does): a
    // broken pipe here is expected then.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "a panic: {err}");
    assert_ne!(out.status.code(), Some(101), "a panic: {err}");
    if let Some(key) = key {
        assert_not_printed(&out, key);
    }
    out
}

/// Fails the test when `secret` shows in the command's standard output or error.
pub fn assert_not_printed(out: &std::process::Output, secret: &str) {
    for stream in [&out.stdout, &out.stderr] {
        assert!(
            !String::from_utf8_lossy(stream).contains(secret),
            "a secret was printed"
        );
    }
}
