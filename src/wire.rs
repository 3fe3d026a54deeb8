//! The v1 token shape: `"v1." body "." mac`, both parts unpadded base64url.
//!
//! Shape checks are cheap byte scans that run before any hashing; decoding is
//! strict (no padding, no `+`/`/`, no non-canonical trailing bits), so every
//! token has exactly one spelling.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use crate::error::Reason;

/// Every v1 token starts with this.
pub const PREFIX: &str = "v1.";
/// Length of a base64url HMAC-SHA256 (32 bytes, unpadded).
pub const MAC_CHARS: usize = 43;
/// Length of the decoded MAC.
pub const MAC_BYTES: usize = 32;

/// A token that passed the shape checks. Borrowed from the token string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts<'a> {
    /// `"v1." body`: the bytes the MAC covers.
    pub signed: &'a str,
    /// The base64url body (envelope JSON).
    pub body: &'a str,
    /// The base64url MAC.
    pub mac: &'a str,
}

const fn is_b64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// Split a token into its parts, refusing anything longer than `max_bytes`
/// before looking at it. Errors are always [`Reason::Malformed`].
pub fn split(token: &str, max_bytes: usize) -> Result<Parts<'_>, Reason> {
    if token.len() > max_bytes {
        return Err(Reason::Malformed);
    }
    let rest = token.strip_prefix(PREFIX).ok_or(Reason::Malformed)?;
    let dot = rest.find('.').ok_or(Reason::Malformed)?;
    let (body, dot_mac) = rest.split_at(dot);
    let mac = dot_mac.get(1..).ok_or(Reason::Malformed)?;
    // The alphabet scan also rules out a second '.', padding, whitespace, NUL.
    if body.is_empty()
        || mac.is_empty()
        || !body.bytes().all(is_b64url)
        || !mac.bytes().all(is_b64url)
    {
        return Err(Reason::Malformed);
    }
    let signed = token
        .get(..PREFIX.len() + body.len())
        .ok_or(Reason::Malformed)?;
    Ok(Parts { signed, body, mac })
}

/// Strict unpadded base64url decode; `None` on any deviation.
pub fn decode(s: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(s).ok()
}

/// Decode into a fixed-size buffer (MACs, bind tags) without allocating.
pub fn decode_exact<const N: usize>(s: &str) -> Option<[u8; N]> {
    let mut out = [0u8; N];
    match URL_SAFE_NO_PAD.decode_slice(s, &mut out) {
        Ok(n) if n == N && s.len() == encoded_len(N) => Some(out),
        _ => None,
    }
}

/// Unpadded base64url.
pub fn encode(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Append unpadded base64url to `out`.
pub fn encode_into(bytes: &[u8], out: &mut String) {
    URL_SAFE_NO_PAD.encode_string(bytes, out);
}

/// Length of the unpadded base64url encoding of `n` bytes.
pub const fn encoded_len(n: usize) -> usize {
    (n / 3) * 4
        + match n % 3 {
            0 => 0,
            1 => 2,
            _ => 3,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAC: &str = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

    #[test]
    fn splits_a_well_formed_token() {
        let token = format!("v1.eyJ9.{MAC}");
        let p = split(&token, 1024).unwrap();
        assert_eq!(p.signed, "v1.eyJ9");
        assert_eq!(p.body, "eyJ9");
        assert_eq!(p.mac, MAC);
    }

    #[test]
    fn refuses_bad_shapes() {
        for t in [
            "",
            "v1.",
            "v1..",
            "v1.abc",
            "v2.abc.def",
            "v1.abc.def.ghi",
            "v1.ab=.def",
            "v1.ab+.def",
            "v1.ab/.def",
            "v1.a b.def",
            "v1.ab\0.def",
            "v1.abc.",
            "v1..def",
            "V1.abc.def",
        ] {
            assert_eq!(split(t, 1024), Err(Reason::Malformed), "{t:?}");
        }
    }

    #[test]
    fn refuses_oversize_before_anything_else() {
        let token = format!("v1.{}.{MAC}", "A".repeat(100));
        assert!(split(&token, token.len()).is_ok());
        assert_eq!(split(&token, token.len() - 1), Err(Reason::Malformed));
    }

    #[test]
    fn decoding_is_strict() {
        assert_eq!(decode("eyJ9").unwrap(), b"{\"}");
        assert!(decode("eyJ9=").is_none(), "padding");
        assert!(decode("eQ").is_some());
        assert!(decode("eR").is_none(), "non-canonical trailing bits");
        assert!(decode("e").is_none(), "impossible length");
        assert!(decode("+/").is_none(), "standard alphabet");
    }

    #[test]
    fn decode_exact_wants_the_exact_length() {
        assert!(decode_exact::<32>(MAC).is_some());
        assert!(decode_exact::<32>(&MAC[1..]).is_none());
        assert!(decode_exact::<16>(MAC).is_none());
        let mut bad = MAC.to_string();
        bad.replace_range(42.., "B"); // last char carries 2 unused bits
        assert!(decode_exact::<32>(&bad).is_none());
    }

    #[test]
    fn encoded_len_matches_encode() {
        for n in 0..40 {
            assert_eq!(encode(&vec![7u8; n]).len(), encoded_len(n));
        }
    }
}
