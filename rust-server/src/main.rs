//! `rmcp-tic-tac-toe`: the demo's stateless tic-tac-toe MCP server, in Rust.
//!
//! Streamable HTTP on loopback (`http://127.0.0.1:PORT` and `names::MCP_PATH`), no sessions: a
//! fresh handler serves every request, and the game lives only in the token
//! under `_meta["ng-mcp-ui/state"]`, sealed with mcp-sealed-state and bound to
//! the principal header (`names::PRINCIPAL_HEADER`). With the same `STATE_KEY` as the workerd servers
//! (www/server), a game moves freely between them.
//!
//! The key comes from the environment only (`STATE_KEY`, at least 32 bytes, a
//! string used as its UTF-8 bytes, as the JS package does). Unset: the dev
//! ephemeral key with a warning, refused when `NODE_ENV` is `production` or `prod` (any case).
// As in the crate: no panics outside tests (every argument and token is the client's).
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

mod game;
mod http;
mod names;
mod tools;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::builder::BoolishValueParser;
use clap::{ArgAction, Parser};
use mcp_sealed_state::{Codec, CodecOptions};
use tokio_util::sync::CancellationToken;

use crate::http::AllowedOrigins;
use crate::tools::{Shared, View};

/// The demo's tic-tac-toe MCP server on rmcp (stateless Streamable HTTP, sealed state).
#[derive(Parser, Debug)]
#[command(
    version,
    after_help = "Key: STATE_KEY in the environment (never an argument); unset, a dev ephemeral key (refused when NODE_ENV is production or prod, in any case)."
)]
struct Args {
    /// Port on 127.0.0.1; 0 takes any free port.
    #[arg(long, env = "PORT", default_value_t = 8790)]
    port: u16,
    /// Token lifetime, seconds.
    #[arg(long = "ttl", env = "TTL_SECONDS", default_value_t = mcp_sealed_state::DEFAULT_TTL_SECONDS)]
    ttl_seconds: i64,
    /// Serve this HTML file as the View resource (read on every resources/read).
    #[arg(long, env = "VIEW_HTML", value_name = "PATH")]
    view_html: Option<PathBuf>,
    /// The View's MCP Apps resource URI (`text/html;profile=mcp-app`); tools link to it in `_meta.ui.resourceUri`.
    #[arg(
        long,
        env = "VIEW_URI",
        default_value = "ui://mcp-sealed-state/tic-tac-toe.html"
    )]
    view_uri: String,
    /// The same View as an Apps SDK template (`text/html+skybridge`); tools link to it in `_meta["openai/outputTemplate"]`.
    #[arg(
        long,
        env = "OUTPUT_TEMPLATE_URI",
        default_value = "ui://mcp-sealed-state/tic-tac-toe.skybridge.html"
    )]
    output_template_uri: String,
    /// `_meta` of the View's resources, a JSON object (e.g. {"ui":{"csp":{...}}}).
    #[arg(long, env = "VIEW_META", value_name = "JSON")]
    view_meta: Option<String>,
    /// Origin hostnames a browser page may call from, comma-separated; "*" allows any.
    #[arg(
        long,
        env = "ALLOWED_ORIGINS",
        default_value = "localhost,127.0.0.1,[::1]"
    )]
    allowed_origins: String,
    /// A label for /health and the logs.
    #[arg(long, env = "INSTANCE", default_value = "rust")]
    instance: String,
    /// Also copy each result's token and viewUUID from `_meta` into its
    /// structuredContent, for hosts that drop `_meta`; model-visible (see the
    /// README). A request may choose for itself with `names::MIRROR_QUERY` set to 1 or 0.
    #[arg(
        long = "mirror-to-structured-content",
        env = "MIRROR_TO_STRUCTURED_CONTENT",
        action = ArgAction::Set,
        value_parser = BoolishValueParser::new(),
        num_args = 0..=1,
        default_value = "false",
        default_missing_value = "true",
        value_name = "BOOL"
    )]
    mirror: bool,
    /// Print one JSON line with the URLs once listening (for scripts and tests).
    #[arg(long)]
    json: bool,
}

fn codec(ttl_seconds: i64) -> Result<Codec, String> {
    let key = std::env::var_os("STATE_KEY").filter(|k| !k.is_empty());
    // No STATE_KEY is no key option (the dev key, or an error in production), never an empty list.
    let mut options = CodecOptions::default();
    if let Some(key) = key {
        let key = key
            .into_string()
            .map_err(|_| "STATE_KEY is not valid UTF-8")?;
        options.keys = Some(vec![key.into_bytes()]);
    }
    options.ttl_seconds = ttl_seconds;
    options.production = std::env::var("NODE_ENV").is_ok_and(|v| is_production(&v));
    Codec::new(options).map_err(|e| format!("cannot build the state codec: {e}"))
}

/// Whether NODE_ENV means production, by the npm package's rule
/// (docs/server.md): "production" or "prod", in any ASCII case, with JSON
/// whitespace around it, so a slip such as "Production" fails closed.
fn is_production(node_env: &str) -> bool {
    let value = node_env.trim_matches([' ', '\t', '\n', '\r']);
    value.eq_ignore_ascii_case("production") || value.eq_ignore_ascii_case("prod")
}

fn view(args: &Args) -> Result<Option<View>, String> {
    let Some(html) = &args.view_html else {
        return Ok(None);
    };
    for (flag, uri) in [
        ("--view-uri", &args.view_uri),
        ("--output-template-uri", &args.output_template_uri),
    ] {
        if !uri.starts_with("ui://") {
            return Err(format!("{flag} must be a ui:// URI (got {uri:?})"));
        }
    }
    if args.view_uri == args.output_template_uri {
        return Err(
            "--view-uri and --output-template-uri must differ (one resource per MIME type)".into(),
        );
    }
    let meta = match &args.view_meta {
        Some(text) => match serde_json::from_str(text) {
            Ok(serde_json::Value::Object(m)) => Some(m),
            _ => return Err("--view-meta / VIEW_META must be a JSON object".into()),
        },
        None => None,
    };
    // Checked now so a wrong path fails at start, not at the first read.
    std::fs::metadata(html)
        .map_err(|e| format!("cannot read the View HTML {}: {e}", html.display()))?;
    Ok(Some(View {
        uri: args.view_uri.clone(),
        template_uri: args.output_template_uri.clone(),
        html: html.clone(),
        meta,
    }))
}

async fn shutdown(cancel: CancellationToken) {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    cancel.cancel();
}

async fn run(args: Args) -> Result<(), String> {
    let codec = codec(args.ttl_seconds)?;
    let view = view(&args)?;
    let origins = AllowedOrigins::parse(&args.allowed_origins);
    let ephemeral = codec.is_ephemeral();
    let shared = Arc::new(Shared {
        codec,
        view,
        instance: args.instance.clone(),
        mirror: args.mirror,
    });
    let cancel = CancellationToken::new();
    let app = http::router(shared.clone(), origins, args.ttl_seconds, cancel.clone());
    let listener =
        tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, args.port)))
            .await
            .map_err(|e| format!("cannot listen on 127.0.0.1:{}: {e}", args.port))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("no local address: {e}"))?;
    let base = format!("http://{addr}");
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "instance": args.instance,
                "url": format!("{base}/"),
                "mcp": format!("{base}{}", names::MCP_PATH),
                "health": format!("{base}{}", names::HEALTH_PATH),
                "view": shared.view.as_ref().map(|v| v.uri.clone()),
            })
        );
    } else {
        println!(
            "rmcp tic-tac-toe server ({}): {base}{} (health: {base}{}); key: {}; View: {}",
            args.instance,
            names::MCP_PATH,
            names::HEALTH_PATH,
            if ephemeral {
                "ephemeral (dev)"
            } else {
                "STATE_KEY"
            },
            shared.view.as_ref().map_or("none", |v| v.uri.as_str()),
        );
    }
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown(cancel))
        .await
        .map_err(|e| format!("server: {e}"))
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("rmcp-tic-tac-toe: {message}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    /// The cases the npm package's tests read too.
    #[test]
    fn node_env_reads_as_production_by_the_shared_rule() {
        let file: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/vectors/node-env.json")).unwrap();
        let cases = file["cases"].as_array().unwrap();
        assert!(cases.len() >= 10);
        for case in cases {
            let value = case["value"].as_str().unwrap();
            let want = case["production"].as_bool().unwrap();
            assert_eq!(super::is_production(value), want, "{value:?}");
        }
    }
}
