//! One source for the constants on both sides of the wasm boundary: the
//! Rust core. `pkg-template/constants.js` is rendered from it, and this test
//! fails when the committed file differs (`UPDATE_CONSTANTS=1 cargo test
//! --test constants` rewrites it), or when the glue keeps a copy of its own.
#![cfg(feature = "edge")]

use std::fmt::Write as _;
use std::path::Path;

use mcp_sealed_state::bindings::protocol as io;
use mcp_sealed_state::internals::{clock, reader, view_state};
use mcp_sealed_state::{Codec, CodecOptions, KeyError, Reason, SealWith};

fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn render() -> String {
    let mut out = String::from(
        "// @ts-check\n\
         // Rendered from the Rust core by tests/constants.rs: do not edit. After a change\n\
         // there, `UPDATE_CONSTANTS=1 cargo test --test constants` rewrites this file.\n\n",
    );
    let mut line = |doc: &str, name: &str, value: String| {
        writeln!(out, "/** {doc} */\nexport const {name} = {value};\n").unwrap();
    };
    line(
        "The `_meta` key of a tool result that carries the sealed token.",
        "STATE_META_KEY",
        js(mcp_sealed_state::STATE_META_KEY),
    );
    line(
        "The one message of every token failure. It never says which check failed.",
        "SEALED_STATE_INVALID_MESSAGE",
        js(mcp_sealed_state::SEALED_STATE_INVALID_MESSAGE),
    );
    assert_eq!(
        SDK_REASONS,
        Reason::ALL[..4],
        "the SDK's reasons are the core's first four"
    );
    let mut reasons = vec!["undefined".to_owned()];
    for (i, r) in Reason::ALL.iter().enumerate() {
        assert_eq!(usize::from(r.code()), i + 1, "reason codes are 1, 2, ...");
        reasons.push(js(r.as_str()));
    }
    line(
        "Reason names by the code the wasm core reports (a tuple to the type checker: SealedStateReason is its names).",
        "REASONS",
        format!("Object.freeze(/** @type {{const}} */ ([{}]))", reasons.join(", ")),
    );
    line(
        "The reasons of the SDK's codec, and so of createRequestStateCodec's verify: the core's first four.",
        "SDK_REASONS",
        format!(
            "Object.freeze(/** @type {{const}} */ ([{}]))",
            SDK_REASONS.map(|r| js(r.as_str())).join(", ")
        ),
    );
    line(
        "Default token lifetime, seconds.",
        "DEFAULT_TTL_SECONDS",
        mcp_sealed_state::DEFAULT_TTL_SECONDS.to_string(),
    );
    line(
        "Default grace past a token's expiry, seconds: none.",
        "DEFAULT_LEEWAY_SECONDS",
        mcp_sealed_state::DEFAULT_LEEWAY_SECONDS.to_string(),
    );
    line(
        "Default size limit of a token, bytes.",
        "DEFAULT_MAX_TOKEN_BYTES",
        mcp_sealed_state::DEFAULT_MAX_TOKEN_BYTES.to_string(),
    );
    line(
        "Deepest nesting of a request's arrays and objects (a scalar is depth 0, `[]` depth 1).",
        "MAX_REQUEST_DEPTH",
        mcp_sealed_state::internals::jcs::MAX_REQUEST_DEPTH.to_string(),
    );
    line(
        "Shortest key, bytes.",
        "MIN_KEY_BYTES",
        mcp_sealed_state::MIN_KEY_BYTES.to_string(),
    );
    line(
        "Longest token the unverified reader reads, bytes (a token is ASCII, so also chars).",
        "MAX_READ_CHARS",
        mcp_sealed_state::MAX_READ_BYTES.to_string(),
    );
    line(
        "Characters of a token's MAC part (base64url of 32 bytes).",
        "MAC_CHARS",
        mcp_sealed_state::internals::wire::MAC_CHARS.to_string(),
    );
    line(
        "What every v1 token starts with.",
        "TOKEN_PREFIX",
        js(&token_prefix()),
    );
    line(
        "ng-mcp-ui's stable message, which widgets also read as \"expired, start over\".",
        "NG_MCP_UI_INVALID_MESSAGE",
        js(reader::NG_MCP_UI_INVALID_MESSAGE),
    );
    line(
        "Largest clock either way from the epoch, ms (a JS Date's range).",
        "MAX_CLOCK_MS",
        format!("{}", clock::MAX_CLOCK_MS as i64),
    );
    line(
        "Logged once when a codec runs on the ephemeral development key.",
        "EPHEMERAL_KEY_WARNING",
        js(mcp_sealed_state::internals::keys::EPHEMERAL_KEY_WARNING),
    );
    line(
        "Default bound of a request's RFC 8785 canonical UTF-8 text, bytes (maxRequestBytes).",
        "DEFAULT_MAX_REQUEST_BYTES",
        mcp_sealed_state::DEFAULT_MAX_REQUEST_BYTES.to_string(),
    );
    line(
        "The MCP Apps request that saves view state.",
        "SET_VIEW_STATE_METHOD",
        js(view_state::SET_VIEW_STATE_METHOD),
    );
    line(
        "How long a Host's view-state store call may take by default, ms, before the save is answered -32603 (a JS-only rule: the save queue is JS).",
        "DEFAULT_STORE_TIMEOUT_MS",
        DEFAULT_STORE_TIMEOUT_MS.to_string(),
    );
    line(
        "How long a View waits by default for the MCP Apps bridge to answer ui/initialize, ms, where window.openai exists, before it decides its store without the bridge (a JS-only rule).",
        "DEFAULT_BRIDGE_TIMEOUT_MS",
        DEFAULT_BRIDGE_TIMEOUT_MS.to_string(),
    );
    line(
        "How long a View's `ready` waits by default for the tool result whose viewUUID decides the \"local\" store, ms; a store decided later joins then (a JS-only rule).",
        "DEFAULT_READY_TIMEOUT_MS",
        DEFAULT_READY_TIMEOUT_MS.to_string(),
    );
    line(
        "The proposal's suggested floor for a Host's maxBytes, and the size limit of the View-side stores that have no Host's maxBytes (a JS-only rule).",
        "DEFAULT_VIEW_STATE_MAX_BYTES",
        DEFAULT_VIEW_STATE_MAX_BYTES.to_string(),
    );
    line(
        "The View's view-state stores, in the order connectWithViewState tries them (a JS-only rule).",
        "VIEW_STATE_STORES",
        format!(
            "Object.freeze(/** @type {{const}} */ ([{}]))",
            VIEW_STATE_STORES.map(js).join(", ")
        ),
    );
    line(
        "How long a framework entry waits after a change before one save, ms, by default (a JS-only rule).",
        "DEFAULT_DEBOUNCE_MS",
        DEFAULT_DEBOUNCE_MS.to_string(),
    );
    line(
        "JSON-RPC error codes of `ui/set-view-state`.",
        "VIEW_STATE_ERRORS",
        format!(
            "Object.freeze({{ INVALID_PARAMS: {}, INTERNAL_ERROR: {}, METHOD_NOT_FOUND: {} }})",
            view_state::ERR_INVALID_PARAMS,
            view_state::ERR_INTERNAL,
            view_state::ERR_METHOD_NOT_FOUND
        ),
    );
    line(
        "Operation codes and statuses of the edge build's sealIo/openIo (src/bindings/protocol.rs).",
        "IO",
        format!(
            "Object.freeze({{ VIEW: {}, REQUEST_STATE: {}, RAW: {}, SDK: {}, BAD_INPUT: {}, UNKNOWN_OP: {}, INVALID_CLOCK: {}, OUT_OF_MEMORY: {}, PAYLOAD_NOT_JSON: {}, TOKEN_TOO_LARGE: {}, NO_CODEC: {}, SECRET_NOT_JSON: {}, REQUEST_NOT_CANONICAL: {}, NO_RANDOMNESS: {}, WITH_SECRET: {} }})",
            io::OP_VIEW,
            io::OP_REQUEST_STATE,
            io::OP_RAW,
            io::OP_SDK,
            io::STATUS_BAD_INPUT,
            io::STATUS_UNKNOWN_OP,
            io::STATUS_INVALID_CLOCK,
            io::STATUS_OUT_OF_MEMORY,
            io::STATUS_PAYLOAD_NOT_JSON,
            io::STATUS_TOKEN_TOO_LARGE,
            io::STATUS_NO_CODEC,
            io::STATUS_SECRET_NOT_JSON,
            io::STATUS_REQUEST_NOT_CANONICAL,
            io::STATUS_NO_RANDOMNESS,
            io::OP_WITH_SECRET
        ),
    );
    line(
        "Messages of a WasmCodec's configError by its low byte (src/bindings/protocol.rs); the key's index is above it, and {index} and {len} are that key's.",
        "CONFIG_ERRORS",
        format!("Object.freeze([{}])", config_errors().join(", ")),
    );
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// The one default of the Host's store timeout. The save queue is JS
/// (ViewStateSaveQueue, ViewStateAppBridge), so the core has no copy; it is
/// rendered here so that both JS users read one value.
const DEFAULT_STORE_TIMEOUT_MS: u32 = 5000;

/// The View's bound on a bridge that may never answer: Apps SDK hosts inject
/// window.openai and answer nothing, while MCP Apps hosts answer ui/initialize
/// within milliseconds.
const DEFAULT_BRIDGE_TIMEOUT_MS: u32 = 500;

/// The View's bound on waiting for the first tool result before `ready`: a
/// Host may send none after a reload (the MCP Inspector).
const DEFAULT_READY_TIMEOUT_MS: u32 = 1000;

/// The one default size limit of view state (ViewStateAppBridge's maxBytes,
/// and the View's stores other than the Host's), for both JS users.
const DEFAULT_VIEW_STATE_MAX_BYTES: u32 = 65536;

/// The SDK's codec has no purpose and no request, so it gives the core's
/// reasons up to `bind`; the core's later ones come after them.
const SDK_REASONS: [Reason; 4] = [
    Reason::Malformed,
    Reason::Mac,
    Reason::Expired,
    Reason::Bind,
];

/// The best store first: the Host's own, then ChatGPT's, then the frame's
/// localStorage (which needs the tool result's viewUUID), then memory.
const VIEW_STATE_STORES: [&str; 4] = ["host", "openai", "local", "memory"];

/// The framework entries' debounce of view-state saves: a burst of updates
/// sends one save.
const DEFAULT_DEBOUNCE_MS: u32 = 300;

/// The prefix of a token the core mints, up to and including its first dot.
fn token_prefix() -> String {
    let keys = vec![[7u8; 32]];
    let codec = Codec::new(CodecOptions::with_keys(keys)).unwrap();
    let token = codec.seal("1", &SealWith::raw()).unwrap();
    let (prefix, rest) = token.split_at(token.find('.').unwrap() + 1);
    let mac = rest.rsplit('.').next().unwrap();
    assert_eq!(mac.len(), mcp_sealed_state::internals::wire::MAC_CHARS);
    prefix.to_owned()
}

/// The core's own words for each `CONFIG_*` code, by code.
fn config_errors() -> Vec<String> {
    // Numbers no message has, to find where the short key's go.
    let (index, len) = (987_651, 987_652);
    let short = KeyError::TooShort { index, len }.to_string();
    assert!(short.contains(&index.to_string()) && short.contains(&len.to_string()));
    let short = short
        .replace(&index.to_string(), "{index}")
        .replace(&len.to_string(), "{len}");
    // The second key's index is `{index}`; the first's is not carried across.
    let duplicate = KeyError::Duplicate { index, first: len }
        .to_string()
        .replace(&index.to_string(), "{index}")
        .replace(&format!("key #{len}"), "an earlier key");
    let padded = KeyError::ZeroPadded { index, len }
        .to_string()
        .replace(&index.to_string(), "{index}")
        .replace(&len.to_string(), "{len}");
    let all_zero = KeyError::AllZero { index }
        .to_string()
        .replace(&index.to_string(), "{index}");
    let by_code = [
        (io::CONFIG_OK, "undefined".to_owned()),
        (io::CONFIG_KEY_TOO_SHORT, js(&short)),
        (io::CONFIG_KEY_MISSING, js(&KeyError::Missing.to_string())),
        (
            io::CONFIG_NO_RANDOMNESS,
            js(&KeyError::NoRandomness.to_string()),
        ),
        (io::CONFIG_NEGATIVE_LEEWAY, js(io::NEGATIVE_LEEWAY_MESSAGE)),
        (io::CONFIG_BAD_OPTIONS, js(io::BAD_OPTIONS_MESSAGE)),
        (io::CONFIG_KEY_DUPLICATE, js(&duplicate)),
        (io::CONFIG_KEY_EMPTY, js(io::KEY_EMPTY_MESSAGE)),
        (io::CONFIG_KEY_ZERO_PADDED, js(&padded)),
        (io::CONFIG_KEY_ALL_ZERO, js(&all_zero)),
    ];
    for (i, (code, _)) in by_code.iter().enumerate() {
        assert_eq!(usize::from(*code), i, "config codes are 0, 1, 2, ...");
    }
    by_code.into_iter().map(|(_, text)| text).collect()
}

/// Every .js file under `dir`, sorted.
fn package_js_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(package_js_files(&path));
        } else if path.extension().is_some_and(|e| e == "js") {
            files.push(path);
        }
    }
    files.sort();
    files
}

fn template(file: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("pkg-template")
        .join(file)
}

#[test]
fn constants_js_is_rendered_from_the_core() {
    let path = template("constants.js");
    let want = render();
    if std::env::var_os("UPDATE_CONSTANTS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "pkg-template/constants.js is stale; rewrite it with UPDATE_CONSTANTS=1 cargo test --test constants\n--- want ---\n{want}"
    );
}

#[test]
fn the_glue_keeps_no_copy_of_its_own() {
    // Texts and numbers that would mean a second source if they reappeared.
    let copies = [
        mcp_sealed_state::SEALED_STATE_INVALID_MESSAGE.to_owned(),
        format!("= {}", js(mcp_sealed_state::STATE_META_KEY)),
        "256 * 1024".to_owned(),
        mcp_sealed_state::DEFAULT_MAX_TOKEN_BYTES.to_string(),
        "1 << 20".to_owned(),
        "600".to_owned(),
        "no key configured".to_owned(),
        js(view_state::SET_VIEW_STATE_METHOD),
        ": -32602".to_owned(),
        ": -32603".to_owned(),
        "sealed state is invalid or expired\"".to_owned(),
        format!("= {}", mcp_sealed_state::internals::wire::MAC_CHARS),
        format!("+ {}", mcp_sealed_state::internals::wire::MAC_CHARS),
        format!("= {}", js(&token_prefix())),
        DEFAULT_STORE_TIMEOUT_MS.to_string(),
        "5_000".to_owned(),
        format!("Ms = {DEFAULT_BRIDGE_TIMEOUT_MS}"),
        format!("Ms = {DEFAULT_READY_TIMEOUT_MS}"),
        DEFAULT_VIEW_STATE_MAX_BYTES.to_string(),
        "64 * 1024".to_owned(),
        "10_000".to_owned(),
        VIEW_STATE_STORES.map(js).join(", "),
        SDK_REASONS.map(|r| js(r.as_str())).join(", "),
        format!("= {DEFAULT_DEBOUNCE_MS};"),
    ];
    // Every JS file the package ships from pkg-template (app/, app-bridge/, react/ too).
    for file in package_js_files(&template("")) {
        let file = file
            .strip_prefix(template(""))
            .unwrap()
            .display()
            .to_string();
        if file == "constants.js" {
            continue;
        }
        let text = std::fs::read_to_string(template(&file)).unwrap();
        for copy in &copies {
            assert!(
                !text.contains(copy.as_str()),
                "pkg-template/{file} has its own copy of {copy}: import it from constants.js"
            );
        }
    }
}
