//! Other MCP SDKs' `requestState` tokens, told apart by their shape, for
//! `inspect` when a token is not this package's (nor the TypeScript SDK's,
//! which is the same `v1.body.mac`). Nothing here checks a token: the shape
//! says which SDK most likely made it, what protects it, and what anyone can
//! read without the key. The layouts, from each SDK's source:
//!
//! - Python SDK (`mcp`, FastMCP servers included), `src/mcp/server/request_state.py`:
//!   `v1.` + base64url(key id 4 | nonce 12 | AES-256-GCM ciphertext | tag 16),
//!   the key derived with HKDF-SHA256;
//! - Ruby SDK, `lib/mcp/server/request_state_security.rb`:
//!   `v1.` + base64url(iv 12 | AES-256-GCM ciphertext | tag 16) under the raw key;
//! - mcp.d (D), `source/mcp/server/request_state.d`: signed
//!   `v1.` + base64url({"s","exp","b"}) + `.` + base64url(HMAC-SHA256 under an
//!   HKDF sub-key, over the JSON bytes), or encrypted `v1e.` + base64url(nonce 12 |
//!   AES-256-GCM ciphertext | tag 16);
//! - Rust SDK (rmcp), `crates/rmcp/src/model/request_state.rs`: `rs1.` +
//!   base64url(expiry ms, 8 bytes big-endian, 0 = none | payload) + `.` +
//!   base64url(HMAC-SHA256 over a domain label, associated data and the body);
//!   `rs2.` adds base64url(key id) as the second part;
//! - PHP SDK, `src/Server/Stateless/RequestStateCodec.php`: base64url({"exp","data"})
//!   + `.` + base64url(HMAC-SHA256 over the base64url text), no prefix.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Value};

use crate::calendar::date_of;
use crate::escape::json_for_terminal;
use crate::output::time_left;

const MAC_BYTES: usize = 32;
const GCM_NONCE_BYTES: usize = 12;
const GCM_TAG_BYTES: usize = 16;
const PYTHON_KEY_ID_BYTES: usize = 4;
const RMCP_EXPIRY_BYTES: usize = 8;

/// When a foreign token expires, as far as its shape tells.
#[derive(Debug, Clone, PartialEq)]
pub enum Expiry {
    /// Inside the ciphertext.
    Hidden,
    /// The format says the token never expires.
    Never,
    /// Unix seconds.
    At(i64),
}

/// What `inspect` says about a token another SDK made.
#[derive(Debug, Clone, PartialEq)]
pub struct Foreign {
    /// The format's name, stable for scripts.
    pub format: &'static str,
    /// Which SDK most likely made it, and where its layout is written.
    pub made_by: &'static str,
    /// Why this package cannot check it.
    pub why: &'static str,
    pub key_id: Option<String>,
    pub expiry: Expiry,
    /// The payload, when it travels in the clear; `None` when encrypted.
    pub payload: Option<Value>,
}

fn base64url(part: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(part).ok()
}

fn is_mac(part: &str) -> bool {
    base64url(part).is_some_and(|mac| mac.len() == MAC_BYTES)
}

/// JSON when the bytes are JSON, a string when they are only text.
fn readable(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice(bytes)
        .ok()
        .or_else(|| std::str::from_utf8(bytes).ok().map(Value::from))
}

/// The format a token has, if it is one of the other SDKs'.
pub fn recognise(token: &str) -> Option<Foreign> {
    let parts: Vec<&str> = token.split('.').collect();
    match parts.as_slice() {
        ["rs1", body, mac] => rmcp("rs1", None, body, mac),
        ["rs2", key_id, body, mac] => {
            let key_id = String::from_utf8(base64url(key_id)?).ok()?;
            rmcp("rs2", Some(key_id), body, mac)
        }
        ["v1e", sealed] => {
            let sealed = base64url(sealed)?;
            (sealed.len() >= GCM_NONCE_BYTES + GCM_TAG_BYTES).then_some(Foreign {
                format: "mcp.d-v1e",
                made_by: "mcp.d, the D SDK, in its encrypted mode (source/mcp/server/request_state.d)",
                why: "encrypted with AES-256-GCM under a key derived with HKDF-SHA256: nothing is readable without that key",
                key_id: None,
                expiry: Expiry::Hidden,
                payload: None,
            })
        }
        ["v1", sealed] => python_or_ruby(sealed),
        ["v1", body, mac] => mcp_d_signed(body, mac),
        [body, mac] => php(body, mac),
        _ => None,
    }
}

fn rmcp(format: &'static str, key_id: Option<String>, body: &str, mac: &str) -> Option<Foreign> {
    let body = base64url(body)?;
    if !is_mac(mac) {
        return None;
    }
    let expiry: [u8; RMCP_EXPIRY_BYTES] = body.get(..RMCP_EXPIRY_BYTES)?.try_into().ok()?;
    let expiry_ms = i64::from_be_bytes(expiry);
    Some(Foreign {
        format,
        made_by: "the Rust SDK, rmcp's RequestStateCodec (crates/rmcp/src/model/request_state.rs)",
        why: if key_id.is_some() {
            "HMAC-SHA256 over rmcp's domain label, the key id, associated data the token does not carry, and the body: another MAC layout, which this package cannot check"
        } else {
            "HMAC-SHA256 over rmcp's domain label, associated data the token does not carry, and the body: another MAC layout, which this package cannot check"
        },
        key_id,
        expiry: if expiry_ms == 0 {
            Expiry::Never
        } else {
            Expiry::At(expiry_ms.div_euclid(1000))
        },
        payload: readable(body.get(RMCP_EXPIRY_BYTES..)?),
    })
}

fn python_or_ruby(sealed: &str) -> Option<Foreign> {
    let sealed = base64url(sealed)?;
    if sealed.len() < GCM_NONCE_BYTES + GCM_TAG_BYTES {
        return None;
    }
    // A Python token starts with its key id; a Ruby one with its IV. Only the
    // length can rule Python out.
    let (made_by, key_id) = match sealed.get(..PYTHON_KEY_ID_BYTES) {
        Some(id) if sealed.len() >= PYTHON_KEY_ID_BYTES + GCM_NONCE_BYTES + GCM_TAG_BYTES => (
            "most likely the Python SDK (mcp, FastMCP servers included; src/mcp/server/request_state.py), whose tokens begin with this 4-byte key id; or the Ruby SDK (lib/mcp/server/request_state_security.rb), whose tokens have the same shape",
            Some(id.iter().map(|b| format!("{b:02x}")).collect::<String>()),
        ),
        _ => (
            "the Ruby SDK (lib/mcp/server/request_state_security.rb): too short for the Python SDK's key id",
            None,
        ),
    };
    Some(Foreign {
        format: "v1-aes-256-gcm",
        made_by,
        why: "encrypted with AES-256-GCM (the Python SDK's key derived with HKDF-SHA256, the Ruby SDK's the raw key): nothing is readable without that key",
        key_id,
        expiry: Expiry::Hidden,
        payload: None,
    })
}

fn mcp_d_signed(body: &str, mac: &str) -> Option<Foreign> {
    if !is_mac(mac) {
        return None;
    }
    let envelope: Value = serde_json::from_slice(&base64url(body)?).ok()?;
    let state = envelope.get("s")?.as_str()?;
    let exp = envelope.get("exp")?.as_i64()?;
    envelope.get("b")?.as_str()?;
    Some(Foreign {
        format: "mcp.d-v1",
        made_by: "mcp.d, the D SDK, in its signed mode (source/mcp/server/request_state.d)",
        why: "HMAC-SHA256 under a sub-key derived from the secret with HKDF-SHA256, over the JSON bytes (this package's MAC is under the key itself, over \"v1.\" and the base64url text): another MAC layout, which this package cannot check",
        key_id: None,
        expiry: Expiry::At(exp),
        payload: Some(readable(state.as_bytes()).unwrap_or_else(|| Value::from(state))),
    })
}

fn php(body: &str, mac: &str) -> Option<Foreign> {
    if !is_mac(mac) {
        return None;
    }
    let claims: Value = serde_json::from_slice(&base64url(body)?).ok()?;
    let exp = claims.get("exp")?.as_i64()?;
    let data = claims.get("data")?;
    if !(data.is_object() || data.is_array()) {
        return None;
    }
    Some(Foreign {
        format: "php",
        made_by: "the PHP SDK's RequestStateCodec (src/Server/Stateless/RequestStateCodec.php)",
        why: "HMAC-SHA256 over the base64url body with no \"v1.\" prefix: another MAC layout, which this package cannot check",
        key_id: None,
        expiry: Expiry::At(exp),
        payload: Some(data.clone()),
    })
}

/// `{"verified":false,"exp":..,"expiry":..,"format":..,"keyId":..,"madeBy":..,"payload":..,"why":..}`.
pub fn to_json(foreign: &Foreign) -> String {
    let (expiry, exp) = match foreign.expiry {
        Expiry::Hidden => ("encrypted", Value::Null),
        Expiry::Never => ("never", Value::Null),
        Expiry::At(exp) => ("at", Value::from(exp)),
    };
    let fields = json!({
        "format": foreign.format,
        "madeBy": foreign.made_by,
        "why": foreign.why,
        "keyId": foreign.key_id,
        "expiry": expiry,
        "exp": exp,
        "payload": foreign.payload,
    })
    .to_string();
    // `"verified":false` first, as for this package's tokens, so no script mistakes it.
    let fields = json_for_terminal(&fields, true);
    format!("{{\"verified\":false,{}", fields.get(1..).unwrap_or("}"))
}

/// The same, one field a line, under a warning; `now` in Unix seconds.
pub fn to_text(foreign: &Foreign, now: i64) -> String {
    let exp = match foreign.expiry {
        Expiry::Hidden => "unreadable (encrypted)".to_string(),
        Expiry::Never => "none (the token never expires)".to_string(),
        Expiry::At(exp) => format!("{exp} ({}, {})", date_of(exp), time_left(exp, now)),
    };
    let payload = foreign.payload.as_ref().map_or_else(
        || "unreadable (encrypted)".to_string(),
        |p| json_for_terminal(&p.to_string(), true),
    );
    let key_id = foreign.key_id.as_ref().map_or_else(
        || "-".to_string(),
        |id| json_for_terminal(&Value::from(id.as_str()).to_string(), true),
    );
    format!(
        "UNVERIFIED: not a token of this package (nor the TypeScript SDK's); only the SDK that made it can say it is genuine.\n\
         format   {}\n\
         made by  {}\n\
         why      {}\n\
         key id   {key_id}\n\
         exp      {exp}\n\
         payload  {payload}",
        foreign.format, foreign.made_by, foreign.why
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_that_are_no_format_are_not_recognised() {
        for token in [
            "",
            "v1.",
            "rs1.AAAA",
            "rs1.!!!.AAAA",
            "a.b.c.d.e",
            "v1e.AAAA",
            "e30.e30",
        ] {
            assert_eq!(recognise(token), None, "{token}");
        }
    }
}
