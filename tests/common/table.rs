//! The runner of the opening tables in tests/vectors/ (hostile.json, reasons.json),
//! which js/suite/table.js runs the same way in every JS runtime. The format is
//! described in docs/development.md ("Opening tables"): each case builds its tokens,
//! opens each with each opener and reads it with the unverified reader.
#![allow(dead_code)]

use std::collections::HashMap;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use mcp_sealed_state::{
    read_token_unverified, Codec, OpenWith, Purpose, Reason, SealWith, SealedStateError,
    SEALED_STATE_INVALID_MESSAGE,
};
use serde_json::Value;
use sha2::Sha256;

use crate::common::hex;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const BIND_LABEL: &[u8] = b"mcp.requestState.bind:";

/// The openers a `"shape": true` case stands for: refused at step 1 however it is opened.
const SHAPE_OPENERS: &str = r#"[{"as":"view","want":"malformed"},
  {"as":"requestState","tool":"move","want":"malformed"},
  {"as":"raw","bind":"x","want":"malformed"}]"#;

struct Table {
    now_ms: f64,
    keys: HashMap<String, Vec<u8>>,
}

fn hmac(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).unwrap();
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().to_vec()
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A position of an edit: from the start, from the end when negative, or "end".
fn position(v: &Value, len: usize, default: usize) -> usize {
    match v {
        Value::Null => default,
        Value::String(s) if s == "end" => len,
        v => {
            let n = v.as_i64().expect("a position");
            if n < 0 {
                len - n.unsigned_abs() as usize
            } else {
                n as usize
            }
        }
    }
}

/// One edit of a string (docs/development.md, "Opening tables"): positions count ASCII characters.
fn edit(s: String, e: &Value) -> String {
    if let Some(at) = e.get("flip") {
        assert!(s.is_ascii(), "flip edits ASCII text: {e}");
        let i = position(at, s.len(), 0);
        let idx = ALPHABET.iter().position(|&c| c == s.as_bytes()[i]).unwrap();
        let mut out = s.clone();
        out.replace_range(i..=i, &(ALPHABET[idx ^ 1] as char).to_string());
        return out;
    }
    if let Some(pair) = e.get("replaceAll") {
        return s.replace(pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
    }
    if e.get("escapeAll").is_some() {
        return s.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
    }
    assert!(s.is_ascii(), "edits apply to ASCII text: {e}");
    let at = position(&e["at"], s.len(), s.len());
    let to = position(&e["to"], s.len(), at);
    let mut out = s;
    out.replace_range(at..to, e["ins"].as_str().unwrap_or(""));
    out
}

fn edits(s: String, list: &Value) -> String {
    match list.as_array() {
        Some(list) => list.iter().fold(s, edit),
        None => s,
    }
}

impl Table {
    fn key(&self, name: &Value) -> &[u8] {
        &self.keys[name.as_str().unwrap_or("k1")]
    }

    fn keys(&self, names: &Value) -> Vec<&[u8]> {
        match names.as_array() {
            Some(list) => list.iter().map(|n| self.key(n)).collect(),
            None => vec![self.key(&Value::Null)],
        }
    }

    /// Text written as a string or a list of parts.
    fn text(&self, v: &Value) -> String {
        match v {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts.iter().map(|p| self.text(p)).collect(),
            Value::Object(o) if o.contains_key("repeat") => self
                .text(&o["repeat"])
                .repeat(o["times"].as_u64().unwrap() as usize),
            Value::Object(o) if o.contains_key("bindTag") => {
                let value = o["bindTag"].as_str().unwrap();
                let mac = hmac(self.key(&v["key"]), &[BIND_LABEL, value.as_bytes()]);
                let bytes = v["bytes"].as_u64().unwrap_or(16) as usize;
                let mut tag = b64(&mac[..bytes]);
                if let Some(chars) = v["chars"].as_u64() {
                    tag.truncate(chars as usize);
                }
                edits(tag, &v["edits"])
            }
            other => panic!("not text: {other}"),
        }
    }

    fn codec(&self, spec: &Value) -> (Codec, f64) {
        let codec = crate::common::codec_with(&self.keys(&spec["keys"]), |o| {
            if let Some(l) = spec["leewaySeconds"].as_i64() {
                o.leeway_seconds = l;
            }
            if let Some(m) = spec["maxTokenBytes"].as_u64() {
                o.max_token_bytes = m as usize;
            }
            if let Some(t) = spec["ttlSeconds"].as_i64() {
                o.ttl_seconds = t;
            }
        });
        (codec, spec["nowMs"].as_f64().unwrap_or(self.now_ms))
    }

    fn token(&self, spec: &Value) -> String {
        let token = match spec {
            Value::String(_) | Value::Array(_) => return self.text(spec),
            _ if spec.get("seal").is_some() => {
                let s = &spec["seal"];
                let (codec, now) = self.codec(s);
                let tool = s["tool"].as_str().unwrap_or("");
                let with = match s["as"].as_str().unwrap() {
                    "view" => SealWith::view(),
                    "raw" => SealWith::raw(),
                    _ => SealWith::request_state(tool),
                };
                let with = with.bind(s["bind"].as_str());
                crate::common::at(now, || codec.seal(&self.text(&s["payload"]), &with)).unwrap()
            }
            _ => {
                let prefix = spec["prefix"].as_str().unwrap_or("v1.");
                let body = if let Some(h) = spec["envHex"].as_str() {
                    b64(&hex(h))
                } else if !spec["env"].is_null() {
                    b64(self.text(&spec["env"]).as_bytes())
                } else {
                    self.text(&spec["body"])
                };
                let signed = format!("{prefix}{}", edits(body, &spec["bodyEdits"]));
                let mac = if spec["mac"].is_null() {
                    self.text(&spec["macText"])
                } else {
                    let mac = hmac(self.key(&spec["mac"]), &[signed.as_bytes()]);
                    b64(&mac[..spec["macBytes"].as_u64().unwrap_or(32) as usize])
                };
                format!("{signed}.{mac}")
            }
        };
        let token = edits(token, &spec["edits"]);
        if let Some(len) = spec["length"].as_u64() {
            assert_eq!(token.len() as u64, len, "the built token's length: {spec}");
        }
        token
    }

    /// What `opener` makes of `token`: the payload's JSON text, or the reason.
    fn open(&self, opener: &Value, token: &str) -> Result<String, Reason> {
        let (codec, now) = self.codec(&opener["codec"]);
        let with = match opener["as"].as_str().unwrap() {
            "view" => OpenWith::view(),
            "raw" => OpenWith::raw(),
            _ => OpenWith::request_state(opener["tool"].as_str().unwrap()),
        };
        let with = with.bind(opener["bind"].as_str());
        crate::common::at(now, || codec.open(token, &with))
            .map(|o| o.payload_json().to_owned())
            .map_err(|e| {
                assert_eq!(e.to_string(), SEALED_STATE_INVALID_MESSAGE);
                assert!(format!("{e:?}").contains(&format!("{:?}", e.reason())));
                e.reason()
            })
    }
}

/// The same token with another well-formed, wrong MAC (its first character changed).
fn mac_broken(token: &str) -> Option<String> {
    let dot = token.rfind('.')?;
    let first = token.get(dot + 1..dot + 2)?;
    let mut t = token.to_owned();
    t.replace_range(dot + 1..dot + 2, if first == "A" { "B" } else { "A" });
    Some(t)
}

fn purpose_name(p: &Purpose<String>) -> &'static str {
    match p {
        Purpose::Raw => "raw",
        Purpose::View => "view",
        _ => "requestState",
    }
}

/// Differences between what the reader makes of `token` and `want`.
fn check_reader(table: &Table, want: &Value, token: &str, fail: &mut dyn FnMut(String)) {
    let got = read_token_unverified(token);
    if want.as_str() == Some("malformed") {
        if got != Err(SealedStateError::new(Reason::Malformed)) {
            fail(format!("reader: want malformed, got {got:?}"));
        }
        return;
    }
    let Ok(view) = got else {
        return fail(format!("reader: want {want}, got {got:?}"));
    };
    if let Some(p) = want["purpose"].as_str() {
        if purpose_name(&view.purpose) != p {
            fail(format!("reader purpose: want {p}, got {:?}", view.purpose));
        }
    }
    if let Some(tool) = want["tool"].as_str() {
        if view.purpose.tool() != Some(tool) {
            fail(format!(
                "reader tool: want {tool:?}, got {:?}",
                view.purpose
            ));
        }
    }
    if !want["payload"].is_null() && view.payload_json() != table.text(&want["payload"]) {
        fail("reader payload differs".into());
    }
    if let Some(exp) = want["exp"].as_i64() {
        if view.exp != exp {
            fail(format!("reader exp: want {exp}, got {}", view.exp));
        }
    }
    if let Some(bound) = want["bound"].as_bool() {
        if view.bound != bound {
            fail(format!("reader bound: want {bound}, got {}", view.bound));
        }
    }
}

fn load(json: &str) -> (Value, Table) {
    let file: Value = serde_json::from_str(json).unwrap();
    let keys = file["keys"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, k)| {
            let bytes = match (&k["utf8"], &k["hex"]) {
                (Value::String(s), _) => s.as_bytes().to_vec(),
                (_, Value::String(h)) => hex(h),
                _ => panic!("key {name}"),
            };
            (name.clone(), bytes)
        })
        .collect();
    let now_ms = file["nowMs"].as_f64().unwrap();
    (file, Table { now_ms, keys })
}

/// Runs every case of a table file; panics listing each check that failed.
/// Returns (cases, tokens, checks) for the test's report.
pub fn run(json: &str) -> (usize, usize, usize) {
    let (file, table) = load(json);
    let shape_openers: Value = serde_json::from_str(SHAPE_OPENERS).unwrap();
    let cases = file["cases"].as_array().unwrap();
    let (mut tokens, mut checks, mut failures) = (0, 0, Vec::new());
    for case in cases {
        if case["only"].as_str().is_some_and(|only| only != "rust") {
            continue;
        }
        let name = case["name"].as_str().unwrap();
        let shape = case["shape"].as_bool() == Some(true);
        let openers = if shape { &shape_openers } else { &case["open"] };
        let broken_want = if shape {
            "malformed"
        } else {
            case["brokenMac"].as_str().unwrap_or("")
        };
        let reader = if shape {
            &Value::from("malformed")
        } else {
            &case["reader"]
        };
        for (i, spec) in case["tokens"].as_array().unwrap().iter().enumerate() {
            tokens += 1;
            let token = table.token(spec);
            let mut fail = |what: String| failures.push(format!("{name} #{i}: {what}"));
            for opener in openers.as_array().into_iter().flatten() {
                if opener["only"].as_str().is_some_and(|only| only != "rust") {
                    continue;
                }
                checks += 1;
                let want = &opener["want"];
                let got = table.open(opener, &token);
                match (want.as_str(), &got) {
                    (Some(reason), Err(r)) if r.as_str() == reason => {}
                    (None, Ok(payload)) if *payload == table.text(&want["payload"]) => {}
                    _ => fail(format!(
                        "{opener}: got {:?}",
                        got.map(|p| p.chars().take(80).collect::<String>())
                    )),
                }
                if !broken_want.is_empty() && want.is_string() {
                    if let Some(broken) = mac_broken(&token) {
                        checks += 1;
                        match table.open(opener, &broken) {
                            Err(r) if r.as_str() == broken_want => {}
                            other => fail(format!("{opener} with a broken MAC: got {other:?}")),
                        }
                    }
                }
            }
            if !reader.is_null() {
                checks += 1;
                check_reader(&table, reader, &token, &mut fail);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} checks failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    (cases.len(), tokens, checks)
}

/// The first token of the case `name` of a table file, built as the runner builds it,
/// for the few checks that need code (internal functions, the build itself).
pub fn token_of(json: &str, name: &str) -> String {
    let (file, table) = load(json);
    let case = file["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name}"));
    table.token(&case["tokens"][0])
}
