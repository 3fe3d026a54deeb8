//! The UNVERIFIED reader, for widgets that hold no key.
//!
//! It decodes a token's body and reports what it claims. It checks no MAC,
//! so everything it returns is for display only: anyone can forge it. Only
//! the server's `open` says whether a token is genuine.

use crate::envelope;
use crate::error::{Reason, SealedStateError};
use crate::json;
use crate::payload::{self, Payload};
use crate::purpose::Purpose;
use crate::wire;

/// Tokens longer than this are not read at all (a sealed token rides every
/// tool call, so a real one is far smaller).
pub const MAX_READ_BYTES: usize = 1 << 20;

/// What a token claims, UNVERIFIED.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenView {
    payload: Payload,
    /// [`Purpose::Raw`] for a raw `mint` token (no purpose envelope).
    pub purpose: Purpose<String>,
    /// Expiry, unix seconds.
    pub exp: i64,
    /// Whether it carries a bind tag.
    pub bound: bool,
    /// Bytes of the secret part (nonce, ciphertext and tag) when it has one;
    /// what it says stays unread (only a key holder can decrypt it).
    pub secret_bytes: Option<usize>,
}

impl TokenView {
    /// The payload as JSON text: `d` of a purpose envelope, else the whole `p`.
    pub fn payload_json(&self) -> &str {
        self.payload.payload_json()
    }

    /// The whole view as one JSON object
    /// `{"payload":..,"purpose":"view"|"requestState"|null,"tool":..,"exp":..,"bound":..,"hasSecret":..}`,
    /// so a JS caller gets it with a single `JSON.parse`.
    pub fn to_json(&self) -> String {
        let payload = self.payload_json();
        let mut out = String::with_capacity(payload.len() + 96);
        out.push_str("{\"payload\":");
        out.push_str(payload);
        out.push_str(",\"purpose\":");
        out.push_str(match self.purpose {
            Purpose::View => "\"view\"",
            Purpose::RequestState(_) => "\"requestState\"",
            Purpose::Raw => "null",
        });
        out.push_str(",\"tool\":");
        match self.purpose.tool() {
            Some(tool) => json::write_string(tool, &mut out),
            None => out.push_str("null"),
        }
        out.push_str(",\"exp\":");
        json::write_int(self.exp, &mut out);
        out.push_str(if self.bound {
            ",\"bound\":true"
        } else {
            ",\"bound\":false"
        });
        out.push_str(if self.secret_bytes.is_some() {
            ",\"hasSecret\":true}"
        } else {
            ",\"hasSecret\":false}"
        });
        out
    }
}

/// Read what a token claims, WITHOUT verifying anything. Fails with
/// [`Reason::Malformed`] for anything that is not a v1 token.
pub fn read_token_unverified(token: &str) -> Result<TokenView, SealedStateError> {
    let malformed = || SealedStateError::new(Reason::Malformed);
    let parts = wire::split(token.as_bytes(), MAX_READ_BYTES)?;
    if parts.mac.len() != wire::MAC_CHARS {
        return Err(malformed());
    }
    let body = wire::decode_classified(parts.body)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(malformed)?;
    // Parsing the envelope validates all of it, payload included.
    let env = envelope::parse(&body).ok_or_else(malformed)?;
    let claim = env.claim_all();
    let (purpose, payload) = (claim.purpose, claim.payload);
    let (exp, bound) = (env.exp, env.b.is_some());
    let secret_bytes = match claim.secret {
        Some(raw) => Some(
            json::unescape(raw)
                .and_then(|s| wire::decode(&s))
                .ok_or_else(malformed)?
                .len(),
        ),
        None => None,
    };
    let range = payload::range_in(&body, payload).ok_or_else(malformed)?;
    Ok(TokenView {
        payload: Payload::new(body, range).ok_or_else(malformed)?,
        purpose,
        exp,
        bound,
        secret_bytes,
    })
}

/// ng-mcp-ui's stable message for the same failure, which the widget's JS
/// also reads as "expired, start over".
pub const NG_MCP_UI_INVALID_MESSAGE: &str = "ng-mcp-ui: sealed state is invalid or expired";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SEALED_STATE_INVALID_MESSAGE;

    fn token_with_body(body_json: &str) -> String {
        format!(
            "v1.{}.{}",
            wire::encode(body_json.as_bytes()),
            "A".repeat(43)
        )
    }

    #[test]
    fn reads_a_view_token() {
        let t = token_with_body(
            "{\"p\":{\"p\":\"v\",\"d\":{\"board\":[0,1]}},\"exp\":1700000000,\"b\":\"x\"}",
        );
        let v = read_token_unverified(&t).unwrap();
        assert_eq!(v.payload_json(), "{\"board\":[0,1]}");
        assert_eq!(v.purpose, Purpose::View);
        assert_eq!(v.exp, 1_700_000_000);
        assert!(v.bound);
        assert_eq!(
            v.to_json(),
            "{\"payload\":{\"board\":[0,1]},\"purpose\":\"view\",\"tool\":null,\"exp\":1700000000,\"bound\":true,\"hasSecret\":false}"
        );
    }

    #[test]
    fn reads_request_state_and_raw_tokens() {
        let t = token_with_body("{\"p\":{\"p\":\"r\",\"d\":\"é\",\"o\":\"mo\\\"ve\"},\"exp\":5}");
        let v = read_token_unverified(&t).unwrap();
        assert_eq!(
            (v.purpose.as_deref(), v.payload_json()),
            (Purpose::RequestState("mo\"ve"), "\"é\"")
        );
        assert!(v.to_json().contains("\"tool\":\"mo\\\"ve\""));
        let secret = token_with_body("{\"p\":{\"p\":\"v\",\"d\":1,\"s\":\"AAAA\"},\"exp\":5}");
        assert_eq!(
            read_token_unverified(&secret).unwrap().secret_bytes,
            Some(3)
        );
        assert_eq!(v.secret_bytes, None);
        let raw = read_token_unverified(&token_with_body("{\"p\":[1,2],\"exp\":5}")).unwrap();
        assert_eq!(
            (raw.purpose.as_deref(), raw.payload_json(), raw.bound),
            (Purpose::Raw, "[1,2]", false)
        );
    }

    #[test]
    fn malformed_tokens_are_errors() {
        for t in [
            String::new(),
            "v1.".into(),
            "v1.a.b.c".into(),
            token_with_body("[1]"),
            token_with_body("not json"),
            token_with_body("{\"p\":1,\"exp\":\"5\"}"),
            token_with_body("{\"p\":1}"),
            format!("v1.{}.short", wire::encode(b"{\"p\":1,\"exp\":5}")),
            format!("v1.{}.{}", wire::encode(&[0xff, 0xfe]), "A".repeat(43)),
        ] {
            let e = read_token_unverified(&t).unwrap_err();
            assert_eq!(e.reason(), Reason::Malformed, "{t}");
            assert_eq!(e.to_string(), SEALED_STATE_INVALID_MESSAGE);
        }
    }
}
