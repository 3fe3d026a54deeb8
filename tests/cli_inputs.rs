//! The command's inputs: the secret part from a file or
//! standard input, never only from argv; one rule per input, the library's
//! (a token with whitespace around it is `malformed`, `--ttl` a positive
//! integer); and values that start with a minus.
#![cfg(all(feature = "cli", not(target_arch = "wasm32")))]

mod common;

use common::{run_cli, stderr, stdout};
use std::path::PathBuf;
use std::process::Output;

use mcp_sealed_state::{Codec, CodecOptions};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sealed-state");
const KEY: &str = "cli-inputs-key: at least thirty-two bytes long";
const SECRET: &str = r#"{"seed":"c0ffee","gameId":17}"#;

fn run_with(key: Option<&str>, args: &[&str], stdin: &[u8]) -> Output {
    run_cli(BIN, key, args, stdin)
}

fn run(key: Option<&str>, args: &[&str]) -> Output {
    run_with(key, args, b"")
}

fn codec() -> Codec {
    Codec::new(CodecOptions::with_keys(vec![KEY.as_bytes().to_vec()])).unwrap()
}

fn temp_file(name: &str, contents: &[u8], mode: u32) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "mcp-sealed-state-cli-inputs-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    #[cfg(not(unix))]
    let _ = mode;
    path
}

/// The secret `verify` prints for `token` (the library agrees).
fn secret_of(token: &str) -> String {
    let lib = codec()
        .open(token, &mcp_sealed_state::OpenWith::view())
        .unwrap();
    let shown = stdout(&run(Some(KEY), &["verify", token]));
    let printed = shown.split_once("\nsecret: ").unwrap().1.to_string();
    assert_eq!(lib.secret.as_deref(), Some(printed.as_str()));
    printed
}

// ---- the secret part off the command line ----

#[test]
fn the_secret_comes_from_a_file_read_as_a_key_file_is() {
    for contents in [
        format!("{SECRET}\n"),
        SECRET.to_string(),
        format!("{SECRET}\r\n"),
    ] {
        let path = temp_file("secret.json", contents.as_bytes(), 0o600);
        let out = run(
            Some(KEY),
            &["seal", "--secret-file", path.to_str().unwrap(), "[1]"],
        );
        assert_eq!(stderr(&out), "", "no warning for a private file");
        assert_eq!(secret_of(&stdout(&out)), SECRET);
    }
    // A file others can read: used, with a warning naming it (as for keys).
    #[cfg(unix)]
    {
        let path = temp_file("shared-secret.json", SECRET.as_bytes(), 0o644);
        let out = run(
            Some(KEY),
            &["seal", "--secret-file", path.to_str().unwrap(), "[1]"],
        );
        assert_eq!(secret_of(&stdout(&out)), SECRET);
        let err = stderr(&out);
        assert!(
            err.contains("the secret file") && err.contains("readable by others"),
            "{err}"
        );
        assert!(!err.contains("c0ffee"));
    }
    // Missing, or not JSON: an input error that does not echo the file.
    let out = run(
        Some(KEY),
        &["seal", "--secret-file", "/nonexistent/secret.json", "1"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read the secret file"));
    let path = temp_file("not-json", b"{hidden-c0ffee", 0o600);
    let out = run(
        Some(KEY),
        &["seal", "--secret-file", path.to_str().unwrap(), "1"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr(&out).contains("c0ffee"), "{}", stderr(&out));
}

#[test]
fn the_secret_comes_from_standard_input() {
    for input in [format!("{SECRET}\n"), SECRET.to_string()] {
        let out = run_with(
            Some(KEY),
            &["seal", "--secret", "-", "[1]"],
            input.as_bytes(),
        );
        assert_eq!(secret_of(&stdout(&out)), SECRET);
    }
    // With a requestState token and its request too.
    let out = run_with(
        Some(KEY),
        &[
            "seal",
            "--tool",
            "t",
            "--request",
            "{}",
            "--secret",
            "-",
            "2",
        ],
        SECRET.as_bytes(),
    );
    let token = stdout(&out);
    let shown = stdout(&run(
        Some(KEY),
        &["verify", "--tool", "t", "--request", "{}", &token],
    ));
    assert_eq!(shown, format!("2\nsecret: {SECRET}"));
    // Only one input can be stdin; one source of the secret; none with --raw.
    let both = run_with(Some(KEY), &["seal", "--secret", "-", "-"], b"1");
    assert_eq!(both.status.code(), Some(2));
    assert!(stderr(&both).contains("only one of the payload and --secret"));
    let path = temp_file("one-source.json", SECRET.as_bytes(), 0o600);
    for args in [
        &[
            "seal",
            "--secret",
            "1",
            "--secret-file",
            path.to_str().unwrap(),
            "1",
        ][..],
        &[
            "seal",
            "--raw",
            "--secret-file",
            path.to_str().unwrap(),
            "1",
        ][..],
    ] {
        let out = run(Some(KEY), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("cannot be used with"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn help_says_where_a_secret_on_the_command_line_shows() {
    let help = stdout(&run(None, &["seal", "--help"]));
    assert!(help.contains("--secret-file <PATH>"), "{help}");
    assert!(help.contains("process list"), "{help}");
}

// ---- one rule per input ----

#[test]
fn a_token_with_whitespace_around_it_is_malformed_as_in_the_library() {
    let token = codec()
        .seal("[1]", &mcp_sealed_state::SealWith::view())
        .unwrap();
    for spaced in [
        format!(" {token}"),
        format!("{token} "),
        format!("{token}\n"),
        format!("\t{token}\r\n"),
    ] {
        // The library's verdict, and the command's.
        assert_eq!(
            codec()
                .open(&spaced, &mcp_sealed_state::OpenWith::view())
                .unwrap_err()
                .reason(),
            mcp_sealed_state::Reason::Malformed
        );
        let out = run(Some(KEY), &["verify", &spaced]);
        assert_eq!(out.status.code(), Some(1), "{spaced:?}");
        let err = stderr(&out);
        assert!(err.contains("refused: malformed"), "{err}");
        assert!(err.contains("whitespace around it"), "{err}");
        let out = run(None, &["inspect", &spaced]);
        assert_eq!(out.status.code(), Some(2), "{spaced:?}");
        assert!(stderr(&out).contains("whitespace around it"));
        // On stdin, one line ending is the line's, not the token's.
        let out = run_with(
            Some(KEY),
            &["verify", "-"],
            format!("{spaced}\n").as_bytes(),
        );
        assert_eq!(out.status.code(), Some(1), "stdin {spaced:?}");
    }
    for line in [format!("{token}\n"), format!("{token}\r\n"), token.clone()] {
        let out = run_with(Some(KEY), &["verify", "-"], line.as_bytes());
        assert_eq!(stdout(&out), "[1]");
        let out = run_with(None, &["inspect", "-"], line.as_bytes());
        assert!(stdout(&out).contains("payload  [1]"));
    }
    assert_eq!(stdout(&run(Some(KEY), &["verify", &token])), "[1]");
}

#[test]
fn ttl_is_a_positive_integer() {
    for bad in ["0", "-1", "-5", "1.5", "1e3", "ten", "", "9007199254740992"] {
        let out = run(Some(KEY), &["seal", "--ttl", bad, "[1]"]);
        assert_eq!(out.status.code(), Some(2), "--ttl {bad:?}");
        let err = stderr(&out);
        assert!(err.contains("--ttl"), "--ttl {bad:?}: {err}");
        assert!(out.stdout.is_empty(), "--ttl {bad:?} sealed a token");
    }
    for good in [1, 600, 9_007_199_254_740_991i64] {
        let token = stdout(&run(
            Some(KEY),
            &["seal", "--ttl", &good.to_string(), "[1]"],
        ));
        let view = mcp_sealed_state::read_token_unverified(&token).unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        assert!(
            (view.exp - now - good).abs() <= 5,
            "--ttl {good}: exp {}",
            view.exp
        );
    }
}

#[test]
fn values_that_start_with_a_minus_are_taken_as_given() {
    // A negative number is JSON: `--request -1` is the request -1.
    let token = stdout(&run(
        Some(KEY),
        &[
            "seal",
            "--tool",
            "t",
            "--request",
            "-1",
            "--bind",
            "-alice",
            "[1]",
        ],
    ));
    let ok = run(
        Some(KEY),
        &[
            "verify",
            "--tool",
            "t",
            "--request",
            "-1.0",
            "--bind",
            "-alice",
            &token,
        ],
    );
    assert_eq!(stdout(&ok), "[1]");
    let other = run(
        Some(KEY),
        &[
            "verify",
            "--tool",
            "t",
            "--request",
            "-2",
            "--bind",
            "-alice",
            &token,
        ],
    );
    assert_eq!(other.status.code(), Some(1));
    assert!(stderr(&other).contains("refused: request"));
    // The library agrees on the request -1.
    let with = mcp_sealed_state::OpenWith::request_state("t")
        .bind("-alice")
        .request(mcp_sealed_state::Request::Json("-1"));
    assert!(codec().open(&token, &with).is_ok());
    // A secret that is a negative number.
    let token = stdout(&run(Some(KEY), &["seal", "--secret", "-3", "1"]));
    assert_eq!(secret_of(&token), "-3");
}
