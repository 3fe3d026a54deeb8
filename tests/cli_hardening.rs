//! The `mcp-sealed-state` command against hostile tokens and careless input:
//! no panic on any `exp`, no terminal control character from a
//! token reaches the terminal, `--key-env` never echoes a value, standard
//! input is bounded, and a key file others can read is named in a warning.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{assert_not_printed, run_cli, stderr, stdout};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use base64::Engine;
use mcp_sealed_state::{Codec, CodecOptions, SealWith};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sealed-state");
const KEY: &str = "cli-hardening-key: at least thirty-two bytes long";
/// The last second of the year 9999 (9999-12-31T23:59:59Z).
const LAST_SECOND_OF_9999: i64 = 253_402_300_799;

/// The command run as `run_cli` runs it; this file's key never shows, whichever way it came.
fn run_with(key: Option<&str>, args: &[&str], stdin: &[u8]) -> Output {
    let out = run_cli(BIN, key, args, stdin);
    assert_not_printed(&out, KEY);
    out
}

fn run(key: Option<&str>, args: &[&str]) -> Output {
    run_with(key, args, b"")
}

/// A token with this body and a MAC no key made: `inspect` reads it all the same.
fn forged(body: &str) -> String {
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    format!("v1.{}.{}", b64.encode(body), "A".repeat(43))
}

fn temp_file(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "mcp-sealed-state-cli-hardening-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

// ---- an exp at or past the year 10000 ----

#[test]
fn inspect_prints_any_exp_without_panicking() {
    let cases = [
        (LAST_SECOND_OF_9999, "9999-12-31T23:59:59Z"),
        (LAST_SECOND_OF_9999 + 1, "beyond the year 9999"),
        (300_000_000_000, "beyond the year 9999"),
        (i64::MAX, "beyond the year 9999"),
        (-1, "before 1970"),
        (i64::MIN, "before 1970"),
    ];
    for (exp, shown) in cases {
        let token = forged(&format!("{{\"p\":{{\"p\":\"v\",\"d\":1}},\"exp\":{exp}}}"));
        let text = stdout(&run(None, &["inspect", &token]));
        assert!(
            text.contains(&format!("exp      {exp} ({shown}, ")),
            "{text}"
        );
        let json = stdout(&run(None, &["inspect", "--json", &token]));
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["exp"].as_i64(), Some(exp), "{json}");
    }
}

#[test]
fn a_huge_ttl_seals_a_token_that_inspect_and_verify_handle() {
    // The longest --ttl is 2^53 - 1; longer ones, and any not positive, are
    // refused (tests/cli_inputs.rs). An exp before 1970 is a forged token's
    // (inspect_prints_any_exp_without_panicking).
    for ttl in ["300000000000", "9007199254740991"] {
        let token = stdout(&run(Some(KEY), &["seal", "--ttl", ttl, "[1]"]));
        let text = stdout(&run(None, &["inspect", &token]));
        assert!(text.contains("payload  [1]"), "{text}");
        assert!(text.contains("beyond the year 9999"), "{text}");
        assert_eq!(stdout(&run(Some(KEY), &["verify", &token])), "[1]");
    }
}

// ---- control characters from a token ----

/// What a terminal acts on: C0, DEL, C1 and the bidi controls.
fn is_terminal_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{61c}' | '\u{200e}' | '\u{200f}')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` (the command's output, lines) holds none of them.
fn assert_no_controls(text: &str) {
    for line in text.split('\n') {
        let found: Vec<String> = line
            .chars()
            .filter(|&c| is_terminal_control(c))
            .map(|c| format!("U+{:04X}", c as u32))
            .collect();
        assert!(found.is_empty(), "{found:?} printed in {line:?}");
    }
}

/// Every control the command must escape, raw, as JSON allows it in a string
/// (C0 only escaped: JSON has no raw C0 in a string).
const HOSTILE: &str =
    "\u{9b}31m\u{202e}evil\u{61c}\u{200e}\u{200f}\u{202a}\u{2066}\u{2069}\u{7f}\u{85}";

#[test]
fn inspect_escapes_control_characters_from_the_token() {
    let payload =
        format!("{{\"a\":\"{HOSTILE}\",\"esc\":\"\\u001b[2J\",\"{HOSTILE}\":[\"\\u009b\"]}}");
    // A tool name holds whatever its JSON escapes spell, C0 included; the
    // JSON whitespace around the payload's values is the attacker's too.
    let body = format!(
        "{{\"p\":{{\"p\":\"r\",\"d\":\r\n\t{payload}\r,\"o\":\"t\\u001b]0;x\\u0007{HOSTILE}\"}},\"exp\":5}}"
    );
    let token = forged(&body);

    let text = stdout(&run(None, &["inspect", &token]));
    assert_no_controls(&text);
    assert_eq!(text.lines().count(), 6, "{text}");
    let shown = |label: &str| {
        let line = text.lines().find(|l| l.starts_with(label)).unwrap();
        serde_json::from_str::<serde_json::Value>(line.get(9..).unwrap()).unwrap()
    };
    // The text shows the same values as JSON with \u escapes.
    let expected: serde_json::Value = serde_json::from_str(&payload).unwrap();
    assert_eq!(shown("payload"), expected);
    assert_eq!(shown("tool"), format!("t\u{1b}]0;x\u{7}{HOSTILE}"));

    let json = stdout(&run(None, &["inspect", "--json", &token]));
    assert_no_controls(&json);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["payload"], expected);
    assert_eq!(v["tool"], format!("t\u{1b}]0;x\u{7}{HOSTILE}"));
    assert_eq!(v["verified"], false);
}

#[test]
fn verify_escapes_control_characters_from_the_payload() {
    let payload = format!("{{\"{HOSTILE}\":\"{HOSTILE}\",\"n\":[1,\r\n2]}}");
    let codec = Codec::new(CodecOptions::with_keys(vec![KEY.as_bytes().to_vec()])).unwrap();
    let tool = format!("move{HOSTILE}");
    let view = codec.seal(&payload, &SealWith::view()).unwrap();
    let request = codec
        .seal(&payload, &SealWith::request_state(&tool))
        .unwrap();
    let expected: serde_json::Value = serde_json::from_str(&payload).unwrap();

    let text = stdout(&run(Some(KEY), &["verify", &view]));
    assert_no_controls(&text);
    let shown: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(shown, expected);

    let json = stdout(&run(
        Some(KEY),
        &["verify", "--json", "--tool", &tool, &request],
    ));
    assert_no_controls(&json);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["payload"], expected);
    assert_eq!(v["tool"], tool.as_str());
}

// ---- --key-env takes a name ----

#[test]
fn key_env_takes_a_variable_name_and_never_echoes_a_value() {
    // A key passed to --key-env by mistake, and other values that name no variable.
    // A base64url key may start with "-" or "--".
    for value in [
        KEY,
        "s3cr3t+/=",
        "1ABC",
        "A-B",
        "",
        "A B",
        "é",
        "--s3cr3t",
        "-Xs3cr3t",
    ] {
        for arg in [
            vec!["seal".to_string(), format!("--key-env={value}"), "1".into()],
            vec![
                "verify".to_string(),
                "--key-env".into(),
                value.into(),
                "v1.a.b".into(),
            ],
        ] {
            let args: Vec<&str> = arg.iter().map(String::as_str).collect();
            let out = run(Some(KEY), &args);
            assert_eq!(out.status.code(), Some(2), "{value:?}");
            let err = stderr(&out);
            assert!(
                err.contains("--key-env takes the name of an environment variable"),
                "{err}"
            );
            if !value.is_empty() {
                assert!(!err.contains(value), "{value:?} echoed: {err}");
            }
            assert!(out.stdout.is_empty());
        }
    }
    // A name is fine, and the value of the variable it names is never printed.
    let out = Command::new(BIN)
        .args(["seal", "--key-env", "OTHER_KEY", "1"])
        .env("OTHER_KEY", "short-secret-value")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("$OTHER_KEY"), "{err}");
    assert!(!err.contains("short-secret-value"), "{err}");
    let out = run(Some(KEY), &["seal", "--key-env", "_Unset_Var_9", "1"]);
    assert!(
        stderr(&out).contains("$_Unset_Var_9 is not set"),
        "{}",
        stderr(&out)
    );
}

// ---- bounded standard input ----

const PAYLOAD_STDIN_LIMIT: usize = 1 << 20;

#[test]
fn stdin_is_read_up_to_its_limit_and_no_further() {
    let codec = Codec::new(CodecOptions::with_keys(vec![KEY.as_bytes().to_vec()])).unwrap();
    // 16 MiB more than any limit: far more than a pipe holds, so a command
    // that stops at its limit leaves the writer with a broken pipe.
    let flood = |limit: usize| vec![b' '; limit + (16 << 20)];
    let writes_all = |args: &[&str], input: &[u8]| {
        let mut child = Command::new(BIN)
            .args(args)
            .env("STATE_KEY", KEY)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let wrote = child.stdin.take().unwrap().write_all(input).is_ok();
        (wrote, child.wait_with_output().unwrap())
    };

    let (wrote, out) = writes_all(&["seal", "-"], &flood(PAYLOAD_STDIN_LIMIT));
    assert!(!wrote, "seal read all of standard input");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("standard input holds more than 1048576 bytes"),
        "{}",
        stderr(&out)
    );

    let token_limit = codec.max_token_bytes();
    let (wrote, out) = writes_all(&["verify", "-"], &flood(token_limit));
    assert!(!wrote, "verify read all of standard input");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!(
            "standard input holds more than {}",
            token_limit + 2
        )),
        "{}",
        stderr(&out)
    );

    let (wrote, out) = writes_all(&["inspect", "-"], &flood(mcp_sealed_state::MAX_READ_BYTES));
    assert!(!wrote, "inspect read all of standard input");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("standard input holds more than"),
        "{}",
        stderr(&out)
    );

    // Up to the limit, it is read: a payload of exactly 1 MiB reaches the
    // codec (which finds it too long to seal), a token with its line ending verifies.
    let mut exact = vec![b' '; PAYLOAD_STDIN_LIMIT - 3];
    exact.splice(0..0, *b"\"\"");
    exact.push(b'\n');
    let out = run_with(Some(KEY), &["seal", "-"], &exact);
    assert_eq!(
        stdout(&out).len(),
        codec.seal("\"\"", &SealWith::view()).unwrap().len()
    );
    let token = codec.seal("[1]", &SealWith::view()).unwrap();
    let out = run_with(
        Some(KEY),
        &["verify", "-"],
        format!("{token}\r\n").as_bytes(),
    );
    assert_eq!(stdout(&out), "[1]");
    let out = run_with(None, &["inspect", "-"], format!("{token}\n").as_bytes());
    assert!(stdout(&out).contains("payload  [1]"));
}

#[test]
fn help_documents_the_stdin_limits() {
    let help = stdout(&run(None, &["--help"]));
    assert!(help.contains("standard input"), "{help}");
    // The figures it gives are the limits the command applies.
    assert_eq!(PAYLOAD_STDIN_LIMIT, 1 << 20);
    assert!(
        help.contains("a payload or secret of at most 1 MiB"),
        "{help}"
    );
    let token_kib = mcp_sealed_state::DEFAULT_MAX_TOKEN_BYTES / 1024;
    assert!(
        help.contains(&format!("{token_kib} KiB for verify")),
        "{help}"
    );
    assert_eq!(mcp_sealed_state::MAX_READ_BYTES, 1 << 20);
    assert!(help.contains("1 MiB for inspect"), "{help}");
}

// ---- a key file others can read ----

#[cfg(unix)]
#[test]
fn a_key_file_others_can_read_is_used_with_a_warning() {
    use std::os::unix::fs::PermissionsExt;
    let token = Codec::new(CodecOptions::with_keys(vec![KEY.as_bytes().to_vec()]))
        .unwrap()
        .seal("1", &SealWith::view())
        .unwrap();
    for (mode, warned) in [
        (0o600, false),
        (0o400, false),
        (0o640, true),
        (0o604, true),
        (0o644, true),
    ] {
        let path = temp_file(&format!("key-{mode:o}"), KEY.as_bytes());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        let out = run(
            None,
            &["verify", "--key-file", path.to_str().unwrap(), &token],
        );
        assert_eq!(stdout(&out), "1", "mode {mode:o}");
        let err = stderr(&out);
        if warned {
            assert!(err.contains("warning"), "mode {mode:o}: {err}");
            assert!(err.contains("the key file (--key-file)"), "{err}");
            assert!(!err.contains(path.to_str().unwrap()), "{err}");
            assert!(err.contains(&format!("mode {mode:04o}")), "{err}");
        } else {
            assert_eq!(err, "", "mode {mode:o}");
        }
    }
}

// ---- what is given to --key-file and --secret-file is never echoed ----

/// A key pasted where a path belongs: no message shows it, whether the file
/// is missing, unreadable, too large or not UTF-8.
#[test]
fn key_and_secret_file_paths_are_never_printed() {
    let pasted = "s3cr3t-pasted-as-a-path-0123456789abcdef";
    let token = Codec::new(CodecOptions::with_keys(vec![KEY.as_bytes().to_vec()]))
        .unwrap()
        .seal("1", &SealWith::view())
        .unwrap();
    for args in [
        vec!["verify", "--key-file", pasted, &token],
        vec!["seal", "--key-file", pasted, "1"],
        vec!["seal", "--secret-file", pasted, "1"],
    ] {
        let out = run(Some(KEY), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains("cannot read the "), "{err}");
        assert_not_printed(&out, pasted);
    }
    // A directory by that name: opened, then unreadable.
    let dir = std::env::temp_dir().join(format!("{pasted}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dir_arg = dir.to_str().unwrap();
    let out = run(Some(KEY), &["seal", "--key-file", dir_arg, "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert_not_printed(&out, pasted);
    // A secret file that is not UTF-8, readable by others (the warning), and a
    // key file whose key is refused: the messages name the option.
    let not_utf8 = temp_file(&format!("{pasted}-secret"), b"\xff\xfe");
    let path = not_utf8.to_str().unwrap();
    let out = run(Some(KEY), &["seal", "--secret-file", path, "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("the secret file (--secret-file) is not UTF-8"));
    assert_not_printed(&out, pasted);
    let short = temp_file(&format!("{pasted}-key"), b"short");
    let out = run(None, &["seal", "--key-file", short.to_str().unwrap(), "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("(from --key-file)"),
        "{}",
        stderr(&out)
    );
    assert_not_printed(&out, pasted);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A key or secret file is read as stdin is: up to its limit and no further,
/// so `/dev/zero` fails at once with a clear error.
#[cfg(unix)]
#[test]
fn key_and_secret_files_are_read_up_to_a_limit() {
    for option in ["--key-file", "--secret-file"] {
        let out = run(Some(KEY), &["seal", option, "/dev/zero", "1"]);
        assert_eq!(out.status.code(), Some(2), "{option}");
        let err = stderr(&out);
        assert!(
            err.contains("holds more than 1048578 bytes"),
            "{option}: {err}"
        );
        assert!(!err.contains("/dev/zero"), "{err}");
    }
    // At the limit a secret file is read (and sealed, if the token may hold it).
    let mut secret = vec![b'"'];
    secret.resize((1 << 20) - 1, b'a');
    secret.push(b'"');
    let at_limit = temp_file("secret-at-limit", &secret);
    let out = run(
        Some(KEY),
        &["seal", "--secret-file", at_limit.to_str().unwrap(), "1"],
    );
    assert!(
        !stderr(&out).contains("holds more than"),
        "{}",
        stderr(&out)
    );
}

/// The CLI takes the library's key rule (tests/vectors/key-length.json): a
/// key file HMAC would shorten is refused, with the reason.
#[test]
fn a_key_file_is_measured_as_hmac_uses_it() {
    for case in common::key_length_cases() {
        let [key] = case.keys.as_slice() else {
            continue;
        };
        let file = temp_file("key-length", key);
        let out = run(None, &["seal", "--key-file", file.to_str().unwrap(), "1"]);
        let err = stderr(&out);
        match case.error.as_ref().map(|(kind, _)| kind.as_str()) {
            None => assert_eq!(out.status.code(), Some(0), "{}: {err}", case.name),
            Some(kind) => {
                assert_eq!(out.status.code(), Some(2), "{}", case.name);
                let says = match kind {
                    "too-short" => "keys must be at least 32 bytes",
                    "zero-padded" => "ends in zero bytes, which HMAC ignores",
                    "all-zero" => "is all zero bytes",
                    other => panic!("{other}"),
                };
                assert!(err.contains(says), "{}: {err}", case.name);
            }
        }
    }
}
