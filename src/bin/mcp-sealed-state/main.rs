//! `mcp-sealed-state`: make, check and read sealed-state tokens in a terminal.
//!
//! ```text
//! mcp-sealed-state keygen
//! mcp-sealed-state seal   [KEY] [--ttl S] [--bind B] [--tool T [--request JSON] | --raw]
//!                         [--secret JSON|- | --secret-file PATH] JSON
//! mcp-sealed-state verify [KEY] [--bind B] [--tool T [--request JSON] | --raw] [--json] TOKEN
//! mcp-sealed-state inspect [--json] TOKEN
//! KEY: --key-env VAR (default STATE_KEY) | --key-file PATH
//! ```
//!
//! Exit status: 0 done; 1 `verify` refused the token (the reason on stderr);
//! 2 a usage, key or input error.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![deny(unsafe_code)]

mod args;
mod calendar;
mod escape;
mod formats;
mod key;
mod output;
mod stdin;

use std::io::Write;
use std::process::ExitCode;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use clap::Parser;
use mcp_sealed_state::{
    read_token_unverified, Codec, CodecOptions, OpenWith, Purpose, Request, SealWith, MIN_KEY_BYTES,
};

use args::{Cli, Command, KeyArgs, Kind};

/// Usage, key or input errors.
const EXIT_USAGE: u8 = 2;
/// `verify` refused the token.
const EXIT_REFUSED: u8 = 1;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // clap prints help and version to stdout (exit 0), errors to stderr (2).
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { 0 });
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("mcp-sealed-state: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Keygen => {
            let mut key = [0u8; MIN_KEY_BYTES];
            getrandom::fill(&mut key).map_err(|_| "the system random number generator failed")?;
            let text = URL_SAFE_NO_PAD.encode(key.as_slice());
            key.fill(0);
            print_line(&text)
        }
        Command::Seal {
            key,
            ttl,
            bind,
            kind,
            secret,
            secret_file,
            request,
            json,
        } => {
            let codec = codec(&key, Some(ttl))?;
            if json == "-" && secret.as_deref() == Some("-") {
                return Err(
                    "only one of the payload and --secret can be - (standard input); \
                            give the secret with --secret-file PATH"
                        .into(),
                );
            }
            let secret = secret_text(secret, secret_file)?;
            let text = text_or_stdin(json, stdin::MAX_PAYLOAD_BYTES)?;
            // Whitespace around the JSON (stdin's newline) is no part of the
            // value, and JSON.stringify writes none; inner text is sealed as given.
            let payload = text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
            let bind = bind.as_deref();
            let with = SealWith::new(purpose(Kind::from(&kind)))
                .bind(bind)
                .secret(secret.as_deref())
                .request(request.as_deref().map(Request::Json));
            let sealed = codec.seal(payload, &with);
            print_line(&sealed.map_err(|e| e.to_string())?)
        }
        Command::Verify {
            key,
            bind,
            kind,
            request,
            json,
            token,
        } => {
            let codec = codec(&key, None)?;
            let token = token_or_stdin(token, codec.max_token_bytes())?;
            let token = token.as_str();
            let bind = bind.as_deref();
            let kind = Kind::from(&kind);
            let with = OpenWith::new(purpose(kind))
                .bind(bind)
                .request(request.as_deref().map(Request::Json));
            let opened = codec.open(token, &with);
            match opened {
                Ok(opened) => {
                    let (payload, secret) = (opened.payload.payload_json(), opened.secret);
                    if json {
                        print_line(&output::verified_json(payload, secret.as_deref(), kind))
                    } else {
                        print_line(&output::verified_text(payload, secret.as_deref()))
                    }
                }
                Err(e) => {
                    if json {
                        print_line(&output::refused_json(e.reason()))?;
                    }
                    eprintln!("{}", output::refused_text(e.reason()));
                    if has_space_around(token) {
                        eprintln!("(the token has whitespace around it; a token has none)");
                    }
                    Ok(ExitCode::from(EXIT_REFUSED))
                }
            }
        }
        Command::Inspect { json, token } => {
            let token = token_or_stdin(token, mcp_sealed_state::MAX_READ_BYTES)?;
            let token = token.as_str();
            let Ok(view) = read_token_unverified(token) else {
                // Not ours: perhaps another SDK's, which inspect names.
                let foreign = formats::recognise(token).ok_or(if has_space_around(token) {
                    "not a v1 sealed-state token (it has whitespace around it; a token has none)"
                } else {
                    "not a v1 sealed-state token"
                })?;
                return print_line(&if json {
                    formats::to_json(&foreign)
                } else {
                    formats::to_text(&foreign, output::now_seconds())
                });
            };
            if json {
                print_line(&output::inspect_json(&view))
            } else {
                print_line(&output::inspect_text(&view, output::now_seconds()))
            }
        }
    }
}

/// A codec on the one key the arguments name (never the dev ephemeral key).
fn codec(key_args: &KeyArgs, ttl: Option<i64>) -> Result<Codec, String> {
    let key = key::load(key_args)?;
    let mut options = CodecOptions::with_keys(vec![key]);
    options.production = true;
    if let Some(ttl) = ttl {
        options.ttl_seconds = ttl;
    }
    Codec::new(options).map_err(|e| format!("{e} (from {})", key_args.describe()))
}

/// The argument, or standard input when it is `-` (for payloads too long for
/// argv), up to `limit` bytes.
fn text_or_stdin(arg: String, limit: usize) -> Result<String, String> {
    if arg != "-" {
        return Ok(arg);
    }
    stdin::read_at_most(limit)
}

/// A token exactly as given (the library's rule: whitespace around it is
/// `malformed`), or standard input less the one line ending that `echo` or
/// a terminal adds, up to the token limit `limit`.
fn token_or_stdin(arg: String, limit: usize) -> Result<String, String> {
    if arg != "-" {
        return Ok(arg);
    }
    let mut text = stdin::read_at_most(limit + stdin::LINE_ENDING_BYTES)?;
    stdin::drop_line_ending(&mut text);
    Ok(text)
}

fn has_space_around(token: &str) -> bool {
    token.trim() != token
}

/// The secret part's JSON text: from `--secret` (`-`: standard input, less
/// one line ending) or `--secret-file` (read as a key file is), or none.
fn secret_text(
    secret: Option<String>,
    secret_file: Option<std::path::PathBuf>,
) -> Result<Option<String>, String> {
    match (secret, secret_file) {
        (Some(s), _) if s == "-" => {
            let mut text = stdin::read_at_most(stdin::MAX_PAYLOAD_BYTES)?;
            stdin::drop_line_ending(&mut text);
            Ok(Some(text))
        }
        (Some(s), _) => Ok(Some(s)),
        (None, Some(path)) => {
            let which = key::PrivateFile::Secret;
            let bytes = key::read_private_file(&path, which)?;
            String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| format!("{} is not UTF-8 text", which.name()))
        }
        (None, None) => Ok(None),
    }
}

fn print_line(text: &str) -> Result<ExitCode, String> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write to standard output: {e}"))?;
    Ok(ExitCode::SUCCESS)
}

/// The codec's purpose for a kind of token.
fn purpose(kind: Kind<'_>) -> Purpose<&str> {
    match kind {
        Kind::View => Purpose::View,
        Kind::RequestState(tool) => Purpose::RequestState(tool),
        Kind::Raw => Purpose::Raw,
    }
}
