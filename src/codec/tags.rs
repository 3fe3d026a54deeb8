//! The two truncated-HMAC tags of a token: the bind tag `b` and the request
//! digest `q`, made when sealing and checked when opening.

use hmac::Mac;

use crate::envelope;
use crate::error::{Reason, SealedStateError};
use crate::keys::{HmacSha256, Key};
use crate::wire;

/// Domain separation for bind tags, as the SDK writes it.
const BIND_LABEL: &[u8] = b"mcp.requestState.bind:";
/// Bytes of the bind tag (truncated HMAC).
const BIND_TAG_BYTES: usize = 16;
/// Characters of the base64url bind tag (and of the request digest).
pub(super) const BIND_TAG_CHARS: usize = wire::encoded_len(BIND_TAG_BYTES);
/// Domain separation for the request digest `q` (docs/format.md, "q: the request digest").
const REQUEST_LABEL: &[u8] = b"mcp-sealed-state/v1/request:";

/// Step 7: a token sealed with a request opens only with the same request
/// (`canonical`, its canonical form from step 0), and one sealed without
/// opens only without. `raw_q` is the raw JSON of `q`.
pub(super) fn check_request(
    key: &HmacSha256,
    canonical: Option<&str>,
    raw_q: Option<&str>,
) -> Result<(), SealedStateError> {
    check_tag(
        canonical.map(|c| request_mac(key, c)),
        raw_q,
        Reason::Request,
    )
}

/// Step 5: fail closed on configuration drift in both directions. `raw_tag`
/// is the raw JSON of `b`.
pub(crate) fn check_binding(
    key: &Key,
    bind: Option<&str>,
    raw_tag: Option<&str>,
) -> Result<(), SealedStateError> {
    check_tag(bind.map(|v| bind_mac(&key.mac, v)), raw_tag, Reason::Bind)
}

/// A tag (`b` or `q`) is in the token exactly when the caller gives a value,
/// and is the first 16 bytes of that value's MAC (`expected`). A tag is a
/// string of the canonical spelling of 16 bytes, so comparing bytes compares
/// the strings the SDK compares.
fn check_tag(
    expected: Option<HmacSha256>,
    raw_tag: Option<&str>,
    reason: Reason,
) -> Result<(), SealedStateError> {
    match (expected, raw_tag) {
        (None, None) => Ok(()),
        (Some(mac), Some(raw_tag)) => {
            let tag = envelope::string_value(raw_tag)
                .and_then(|t| wire::decode_exact::<BIND_TAG_BYTES>(t.as_bytes()))
                .ok_or(reason)?;
            mac.verify_truncated_left(&tag).map_err(|_| reason.into())
        }
        _ => Err(reason.into()),
    }
}

/// `HMAC(key, label + value)`, left for the caller to finalize or to check.
fn labelled_mac(key: &HmacSha256, label: &[u8], value: &str) -> HmacSha256 {
    key.clone()
        .chain_update(label)
        .chain_update(value.as_bytes())
}

fn bind_mac(key: &HmacSha256, value: &str) -> HmacSha256 {
    labelled_mac(key, BIND_LABEL, value)
}

fn request_mac(key: &HmacSha256, canonical: &str) -> HmacSha256 {
    labelled_mac(key, REQUEST_LABEL, canonical)
}

/// `b64url(mac[0..16])`, 22 chars, written into `buf` (no allocation).
fn truncated_tag(mac: HmacSha256, buf: &mut [u8; BIND_TAG_CHARS]) -> &str {
    let full = mac.finalize().into_bytes();
    wire::encode_to(full.get(..BIND_TAG_BYTES).unwrap_or(&[]), buf);
    // base64url is ASCII, so this never falls back.
    core::str::from_utf8(buf).unwrap_or("")
}

/// `b: b64url(HMAC(key, "mcp.requestState.bind:" + value)[0..16])`.
pub(super) fn bind_tag<'b>(
    key: &HmacSha256,
    value: &str,
    buf: &'b mut [u8; BIND_TAG_CHARS],
) -> &'b str {
    truncated_tag(bind_mac(key, value), buf)
}

/// `q: b64url(HMAC(key, "mcp-sealed-state/v1/request:" + canonical)[0..16])`.
pub(super) fn request_digest<'b>(
    key: &HmacSha256,
    canonical: &str,
    buf: &'b mut [u8; BIND_TAG_CHARS],
) -> &'b str {
    truncated_tag(request_mac(key, canonical), buf)
}
