//! The command line. No argument ever holds a key: `--key` exists only to be
//! refused without echoing its value.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand};

// No `Debug` on what holds arguments: `--key`'s value and `--secret`'s must
// never print.
#[derive(Parser)]
#[command(
    name = "mcp-sealed-state",
    version,
    about = "Make, check and read sealed-state tokens (HMAC-SHA256, v1 wire format)",
    after_help = "KEY: --key-env VAR (default STATE_KEY) or --key-file PATH; never the key itself on the command line.\nA - reads standard input (one of the payload and --secret): a payload or secret of at most 1 MiB; a token of at most the token limit (256 KiB for verify, 1 MiB for inspect) plus a line ending, which is dropped. A --key-file or --secret-file holds at most 1 MiB plus a line ending (its path is never printed). More is an input error.\nExit status: 0 done, 1 verify refused the token (reason on stderr), 2 usage, key or input error."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Print a new random 32-byte key, base64url, on stdout.
    Keygen,
    /// Seal a JSON payload; prints the token.
    Seal {
        #[command(flatten)]
        key: KeyArgs,
        /// Token lifetime in seconds, a positive integer.
        // Negative numbers are parsed so that `--ttl -5` is refused as a
        // value out of range, not as an unknown option.
        #[arg(long, value_name = "S", allow_negative_numbers = true,
              default_value_t = mcp_sealed_state::DEFAULT_TTL_SECONDS,
              value_parser = clap::value_parser!(i64).range(1..=MAX_TTL_SECONDS))]
        ttl: i64,
        /// Bind the token to this principal (taken as given, even if it starts with -).
        #[arg(long, value_name = "B", allow_hyphen_values = true)]
        bind: Option<String>,
        #[command(flatten)]
        kind: KindArgs,
        /// A secret part, JSON text only a key holder reads (encrypted in the token; not with --raw), or - to read it from stdin. On the command line it shows in the process list and shell history: prefer - or --secret-file.
        #[arg(long, value_name = "JSON", conflicts_with_all = ["raw", "secret_file"], allow_hyphen_values = true)]
        secret: Option<String>,
        /// Read the secret part's JSON text from this file (one trailing newline is dropped).
        #[arg(long, value_name = "PATH", conflicts_with = "raw")]
        secret_file: Option<PathBuf>,
        /// With --tool: bind the token to these request arguments (JSON text, by their RFC 8785 digest; taken as given, even if it starts with -).
        #[arg(
            long,
            value_name = "JSON",
            requires = "tool",
            allow_hyphen_values = true
        )]
        request: Option<String>,
        /// The payload as JSON text (after `--` if it starts with a minus), or - to read it from stdin.
        #[arg(value_name = "JSON")]
        json: String,
    },
    /// Verify a token; prints the payload JSON, and on a second line `secret: JSON` when it has one. Refused: the reason on stderr, exit 1.
    Verify {
        #[command(flatten)]
        key: KeyArgs,
        /// The principal the token must be bound to (taken as given, even if it starts with -).
        #[arg(long, value_name = "B", allow_hyphen_values = true)]
        bind: Option<String>,
        #[command(flatten)]
        kind: KindArgs,
        /// With --tool: the request arguments the token must be bound to (JSON text; taken as given, even if it starts with -).
        #[arg(
            long,
            value_name = "JSON",
            requires = "tool",
            allow_hyphen_values = true
        )]
        request: Option<String>,
        /// Print one JSON object: {"ok":true,"payload":..,"secret":..,"purpose":..,"tool":..} or {"ok":false,"reason":..}.
        #[arg(long)]
        json: bool,
        /// The token exactly (whitespace around it is malformed, as in the library), or - to read it from stdin (one line ending dropped).
        #[arg(value_name = "TOKEN")]
        token: String,
    },
    /// Show what a token claims, UNVERIFIED (no key, no MAC check).
    Inspect {
        /// Print one JSON object: {"verified":false,"payload":..,"purpose":..,"tool":..,"exp":..,"bound":..}.
        #[arg(long)]
        json: bool,
        /// The token exactly, or - to read it from stdin (one line ending dropped).
        #[arg(value_name = "TOKEN")]
        token: String,
    },
}

/// Where the key comes from.
#[derive(Args)]
#[command(group(ArgGroup::new("key-source").args(["key_env", "key_file"])))]
pub struct KeyArgs {
    /// Read the key from this environment variable [default: STATE_KEY].
    // Hyphen values too: a key given here by mistake may start with "--", and
    // clap would echo it as an unexpected argument; key::load refuses it unshown.
    #[arg(long, value_name = "VAR", allow_hyphen_values = true)]
    pub key_env: Option<OsString>,
    /// Read the key from this file (one trailing newline is dropped).
    #[arg(long, value_name = "PATH")]
    pub key_file: Option<PathBuf>,
    /// Refused: a key on the command line is visible to every local user (ps) and kept in shell history.
    #[arg(long, hide = true, num_args = 0..=1, allow_hyphen_values = true, value_name = "KEY")]
    pub key: Option<Option<OsString>>,
}

/// The longest `--ttl`: the library's rule, a positive safe integer
/// (2^53 - 1, the largest integer JS reads exactly).
pub const MAX_TTL_SECONDS: i64 = (1 << 53) - 1;

/// The default key variable, shared with the demo servers.
pub const DEFAULT_KEY_ENV: &str = "STATE_KEY";

impl KeyArgs {
    /// Where the key comes from, for messages (a name, never the key).
    pub fn describe(&self) -> String {
        match (&self.key_file, &self.key_env) {
            // Not the path: a key pasted in its place must not be echoed.
            (Some(_), _) => "--key-file".to_owned(),
            (None, Some(var)) => format!("${}", var.to_string_lossy()),
            (None, None) => format!("${DEFAULT_KEY_ENV}"),
        }
    }
}

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("kind").args(["tool", "raw"])))]
pub struct KindArgs {
    /// A requestState token for this tool (MRTR), instead of a view token.
    #[arg(long, value_name = "T")]
    pub tool: Option<String>,
    /// The SDK's raw v1 token (createRequestStateCodec's mint/verify), no purpose envelope.
    #[arg(long)]
    pub raw: bool,
}

/// Which of the three token kinds.
#[derive(Clone, Copy, Debug)]
pub enum Kind<'a> {
    View,
    RequestState(&'a str),
    Raw,
}

impl<'a> From<&'a KindArgs> for Kind<'a> {
    fn from(args: &'a KindArgs) -> Self {
        match (&args.tool, args.raw) {
            (Some(tool), _) => Kind::RequestState(tool),
            (None, true) => Kind::Raw,
            (None, false) => Kind::View,
        }
    }
}
