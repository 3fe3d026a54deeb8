//! Renders www/server/http-names.json, the demo servers' HTTP names that app.js
//! imports too, into Rust constants (src/names.rs includes them): a missing
//! name or a malformed file fails the build, never a request.

use std::{env, fs, path::Path};

use serde::Deserialize;

const SOURCE: &str = "../www/server/http-names.json";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HttpNames {
    mcp_path: String,
    health_path: String,
    principal_header: String,
    default_principal: String,
    mirror_query: String,
    cors_allow_headers: Vec<String>,
    cors_expose_headers: Vec<String>,
}

fn main() {
    println!("cargo::rerun-if-changed={SOURCE}");
    let text = fs::read_to_string(SOURCE).unwrap_or_else(|e| panic!("{SOURCE}: {e}"));
    let n: HttpNames = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{SOURCE}: {e}"));
    // A browser may send the MCP transport's headers and the principal header.
    let allow = format!(
        "{}, {}",
        n.cors_allow_headers.join(", "),
        n.principal_header
    );
    let constants = [
        (
            "MCP_PATH",
            "The path of the MCP endpoint (Streamable HTTP).",
            n.mcp_path,
        ),
        (
            "HEALTH_PATH",
            "The path of the health report.",
            n.health_path,
        ),
        (
            "PRINCIPAL_HEADER",
            "The header whose value tokens are bound to (a demo, not authentication).",
            n.principal_header,
        ),
        (
            "DEFAULT_PRINCIPAL",
            "The principal of a request without that header.",
            n.default_principal,
        ),
        (
            "MIRROR_QUERY",
            "The query parameter of the MCP path that turns the mirror on or off for one request.",
            n.mirror_query,
        ),
        (
            "CORS_ALLOW_HEADERS",
            "Request headers a browser Host may send (the preflight allows exactly these).",
            allow,
        ),
        (
            "CORS_EXPOSE_HEADERS",
            "Response headers a browser Host may read.",
            n.cors_expose_headers.join(", "),
        ),
    ];
    let rust: String = constants
        .iter()
        .map(|(name, doc, value)| format!("/// {doc}\npub const {name}: &str = {value:?};\n"))
        .collect();
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("http_names.rs");
    fs::write(&out, rust).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
