//! What the commands print: for a terminal, and with `--json` for scripts.

use mcp_sealed_state::{Purpose, Reason, TokenView, SEALED_STATE_INVALID_MESSAGE};

use crate::args::Kind;
use crate::calendar::date_of;
use crate::escape::json_for_terminal;

/// A JSON string, with no terminal control left raw.
fn json_string(s: &str) -> String {
    json_for_terminal(&serde_json::Value::from(s).to_string(), true)
}

/// The payload JSON of a verified token as `verify` prints it, and the
/// secret's on a line of its own when the token has one.
pub fn verified_text(payload: &str, secret: Option<&str>) -> String {
    let payload = json_for_terminal(payload, false);
    match secret {
        Some(secret) => format!("{payload}\nsecret: {}", json_for_terminal(secret, false)),
        None => payload,
    }
}

/// `{"ok":true,"payload":..,"secret":..,"purpose":..,"tool":..}` (as sealed;
/// `secret` only when the token has one).
pub fn verified_json(payload: &str, secret: Option<&str>, kind: Kind<'_>) -> String {
    let (purpose, tool) = match kind {
        Kind::View => ("\"view\"", "null".to_string()),
        Kind::RequestState(tool) => ("\"requestState\"", json_string(tool)),
        Kind::Raw => ("null", "null".to_string()),
    };
    let payload = json_for_terminal(payload, true);
    // Only a token with a secret has the member, so older scripts read the same object.
    let secret = secret.map_or(String::new(), |s| {
        format!(",\"secret\":{}", json_for_terminal(s, true))
    });
    format!("{{\"ok\":true,\"payload\":{payload}{secret},\"purpose\":{purpose},\"tool\":{tool}}}")
}

/// `{"ok":false,"reason":..,"message":..}`.
pub fn refused_json(reason: Reason) -> String {
    format!(
        "{{\"ok\":false,\"reason\":\"{}\",\"message\":{}}}",
        reason.as_str(),
        json_string(SEALED_STATE_INVALID_MESSAGE)
    )
}

/// The stderr line of a refused token.
pub fn refused_text(reason: Reason) -> String {
    format!(
        "refused: {} ({SEALED_STATE_INVALID_MESSAGE})",
        reason.as_str()
    )
}

/// The reader's JSON with `"verified":false` first, so no script mistakes it.
pub fn inspect_json(view: &TokenView) -> String {
    let body = json_for_terminal(&view.to_json(), true);
    let secret = view.secret_bytes.map_or(String::new(), |n| {
        format!("\"secret\":{{\"encrypted\":true,\"bytes\":{n}}},")
    });
    format!(
        "{{\"verified\":false,{secret}{}",
        body.get(1..).unwrap_or("}")
    )
}

pub fn now_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// The reader's fields, one a line, under a warning.
pub fn inspect_text(view: &TokenView, now: i64) -> String {
    let purpose = match view.purpose {
        Purpose::View => "view",
        Purpose::RequestState(_) => "requestState",
        Purpose::Raw => "none (raw v1 token)",
    };
    let tool = view.purpose.tool().map_or("-".to_string(), json_string);
    let when = time_left(view.exp, now);
    let date = date_of(view.exp);
    format!(
        "UNVERIFIED: nothing below is checked; only `verify` with the key says a token is genuine.\n\
         purpose  {purpose}\n\
         tool     {tool}\n\
         exp      {} ({date}, {when})\n\
         bound    {}\n\
         payload  {}{}",
        view.exp,
        if view.bound { "yes" } else { "no" },
        json_for_terminal(view.payload_json(), true),
        // Only its size: the secret is never decrypted here, nor its bytes shown.
        view.secret_bytes
            .map_or(String::new(), |n| format!("\nsecret: encrypted ({n} bytes)"))
    )
}

/// "valid for 5m" or "expired 5m ago": expired once exp < floor(now) (docs/format.md, "Opening").
pub fn time_left(exp: i64, now: i64) -> String {
    let left = exp.saturating_sub(now);
    if left >= 0 {
        format!("valid for {}", duration(left))
    } else {
        format!("expired {} ago", duration(left.saturating_neg()))
    }
}

fn duration(seconds: i64) -> String {
    let s = seconds.unsigned_abs();
    humantime::format_duration(std::time::Duration::from_secs(s)).to_string()
}
