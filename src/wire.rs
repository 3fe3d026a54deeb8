//! The v1 token shape: `"v1." body "." mac`, both parts unpadded base64url.
//!
//! Shape checks are cheap byte scans that run before any hashing; decoding is
//! strict (no padding, no `+`/`/`, no non-canonical trailing bits), so every
//! token has exactly one spelling.

use crate::error::Reason;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

/// Every v1 token starts with this.
pub const PREFIX: &str = "v1.";
/// Length of a base64url HMAC-SHA256 (32 bytes, unpadded).
pub const MAC_CHARS: usize = 43;
/// Length of the decoded MAC.
#[cfg(feature = "edge")]
pub const MAC_BYTES: usize = 32;

/// Sextet of each byte; `INVALID` for bytes outside the base64url alphabet.
const INVALID: u8 = 0xff;
// Evaluated at compile time: an index out of range fails the build, not a call.
#[allow(clippy::indexing_slicing)]
const SEXTETS: [u8; 256] = {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < 64 {
        t[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    t
};

/// The sextet of `c`, or `INVALID`. A table lookup, where range tests
/// would cost a branch per character on the hot path.
#[inline(always)]
fn sextet_of(c: u8) -> u8 {
    SEXTETS.get(usize::from(c)).copied().unwrap_or(INVALID)
}

fn is_b64url(b: u8) -> bool {
    sextet_of(b) != INVALID
}

/// A token that passed the shape checks, as bytes of the token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts<'a> {
    /// `"v1." body`: the bytes the MAC covers.
    pub signed: &'a [u8],
    /// The base64url body (envelope JSON), its alphabet not yet judged.
    pub body: &'a [u8],
    /// The base64url MAC.
    pub mac: &'a [u8],
}

/// Split a token into its parts, refusing anything longer than `max_bytes`
/// before looking at it. Errors are always [`Reason::Malformed`]. The
/// body's alphabet is left to `decode_classified`, which judges it while
/// decoding, so the body is read once: a second '.' (this takes the last)
/// and every byte that is not ASCII are in the body, whose alphabet refuses
/// them. It reads bytes, so a token needs no UTF-8 check first.
pub fn split(token: &[u8], max_bytes: usize) -> Result<Parts<'_>, Reason> {
    if token.len() > max_bytes {
        return Err(Reason::Malformed);
    }
    let rest = token
        .strip_prefix(PREFIX.as_bytes())
        .ok_or(Reason::Malformed)?;
    let dot = rest
        .iter()
        .rposition(|&c| c == b'.')
        .ok_or(Reason::Malformed)?;
    let body = rest.get(..dot).ok_or(Reason::Malformed)?;
    let mac = rest.get(dot + 1..).ok_or(Reason::Malformed)?;
    if body.is_empty() || mac.is_empty() || !mac.iter().all(|&c| is_b64url(c)) {
        return Err(Reason::Malformed);
    }
    let signed = token
        .get(..PREFIX.len() + body.len())
        .ok_or(Reason::Malformed)?;
    Ok(Parts { signed, body, mac })
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Why a strict decode failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// A character outside the base64url alphabet (padding, '.', whitespace, ...).
    Alphabet,
    /// All in the alphabet, but an impossible length or non-zero unused bits
    /// in the last character (non-canonical).
    Shape,
    /// The allocator refused room for the decoded bytes.
    NoMemory,
}

/// Strict unpadded base64url decode, appended to `out`; an error on any
/// deviation: a character outside the alphabet (padding included), an
/// impossible length, or non-zero unused bits in the last character
/// (non-canonical). Hand-written rather than the `base64` crate: it is a
/// quarter of the size, and the widget build is budgeted in bytes. A build
/// with SIMD128 takes 16 characters at a time first.
fn decode_into(s: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        let (taken, bad) = simd128::decode_blocks(s, out);
        let rest = s.get(taken..).ok_or(DecodeError::Shape)?;
        return decode_scalar_into(rest, out, if bad { INVALID } else { 0 });
    }
    #[allow(unreachable_code)]
    decode_scalar_into(s, out, 0)
}

/// The scalar decode of [`decode_into`], with `seen` the OR of the sextets
/// already decoded (`INVALID` when one of them was not in the alphabet).
#[inline(always)]
fn decode_scalar_into(b: &[u8], out: &mut Vec<u8>, mut seen: u8) -> Result<(), DecodeError> {
    let mut chunks = b.chunks_exact(4);
    // Invalid characters are collected in one OR (a valid sextet is < 64)
    // and judged once, so the loop has no early exits.
    let mut quad = |c: &[u8]| {
        c.iter().fold(0u32, |n, &x| {
            let v = sextet_of(x);
            seen |= v;
            n << 6 | u32::from(v)
        })
    };
    for c in chunks.by_ref() {
        let n = quad(c);
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
    }
    let rest = chunks.remainder();
    let n = quad(rest);
    let shaped = match rest.len() {
        0 => true,
        // 2 chars: 12 bits, 1 byte; the low 4 bits must be zero (canonical).
        2 if n & 0xf == 0 => {
            out.push((n >> 4) as u8);
            true
        }
        // 3 chars: 18 bits, 2 bytes; the low 2 bits must be zero.
        3 if n & 0x3 == 0 => {
            out.extend_from_slice(&[(n >> 10) as u8, (n >> 2) as u8]);
            true
        }
        _ => false,
    };
    if seen >= 64 {
        Err(DecodeError::Alphabet)
    } else if !shaped {
        Err(DecodeError::Shape)
    } else {
        Ok(())
    }
}

/// Strict unpadded base64url decode; `None` on any deviation.
pub fn decode(s: &str) -> Option<Vec<u8>> {
    decode_classified(s.as_bytes()).ok()
}

/// Strict unpadded base64url decode, saying why it failed.
pub fn decode_classified(s: &[u8]) -> Result<Vec<u8>, DecodeError> {
    decoded_by(s, decode_into)
}

/// [`decode`] by the scalar loop alone, whatever the build: the reference
/// the SIMD128 decode is tested against in wasm.
pub fn decode_scalar(s: &str) -> Option<Vec<u8>> {
    decoded_by(s.as_bytes(), |b, out| decode_scalar_into(b, out, 0)).ok()
}

/// The bytes `decode` writes for `s`, into a buffer reserved for them first.
fn decoded_by(
    s: &[u8],
    decode: impl FnOnce(&[u8], &mut Vec<u8>) -> Result<(), DecodeError>,
) -> Result<Vec<u8>, DecodeError> {
    let mut out = Vec::new();
    out.try_reserve_exact(s.len() / 4 * 3 + 2)
        .map_err(|_| DecodeError::NoMemory)?;
    decode(s, &mut out)?;
    Ok(out)
}

/// Decode exactly `N` bytes (MACs, bind tags).
#[cfg(feature = "edge")]
pub fn decode_exact<const N: usize>(s: &[u8]) -> Option<[u8; N]> {
    if s.len() != encoded_len(N) {
        return None;
    }
    decode_classified(s).ok()?.try_into().ok()
}

/// Unpadded base64url.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(encoded_len(bytes.len()));
    encode_into(bytes, &mut out);
    out
}

fn char_of(n: u32) -> u8 {
    ALPHABET.get((n & 63) as usize).copied().unwrap_or(b'A')
}

/// Append unpadded base64url to `out`, in stack-buffered pieces (each is
/// ASCII, so the UTF-8 check that makes it a `&str` is the cheap fast path).
pub fn encode_into(bytes: &[u8], out: &mut String) {
    out.reserve(encoded_len(bytes.len()));
    let mut buf = [0u8; 1024];
    for piece in bytes.chunks(768) {
        let n = encoded_len(piece.len());
        if let Some(dst) = buf.get_mut(..n) {
            encode_to(piece, dst);
            out.push_str(core::str::from_utf8(dst).unwrap_or_default());
        }
    }
}

/// Append unpadded base64url to a byte buffer (the token builder's).
#[cfg(feature = "edge")]
pub fn encode_into_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + encoded_len(bytes.len()), 0);
    if let Some(dst) = out.get_mut(start..) {
        encode_to(bytes, dst);
    }
}

/// Encode `bytes` into `dst`, which has exactly the encoded length.
pub fn encode_to(bytes: &[u8], dst: &mut [u8]) {
    let mut src = bytes.chunks_exact(3);
    let mut dst4 = dst.chunks_exact_mut(4);
    for (s, d) in src.by_ref().zip(dst4.by_ref()) {
        if let ([a, b, c], [w, x, y, z]) = (s, d) {
            let n = u32::from(*a) << 16 | u32::from(*b) << 8 | u32::from(*c);
            *w = char_of(n >> 18);
            *x = char_of(n >> 12);
            *y = char_of(n >> 6);
            *z = char_of(n);
        }
    }
    match (src.remainder(), dst4.into_remainder()) {
        ([a], [w, x]) => {
            let n = u32::from(*a) << 16;
            *w = char_of(n >> 18);
            *x = char_of(n >> 12);
        }
        ([a, b], [w, x, y]) => {
            let n = u32::from(*a) << 16 | u32::from(*b) << 8;
            *w = char_of(n >> 18);
            *x = char_of(n >> 12);
            *y = char_of(n >> 6);
        }
        _ => {}
    }
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
        let p = split(token.as_bytes(), 1024).unwrap();
        assert_eq!(p.signed, b"v1.eyJ9");
        assert_eq!(p.body, b"eyJ9");
        assert_eq!(p.mac, MAC.as_bytes());
    }

    /// A split and the body's decode, as the codec and the reader run them.
    fn split_and_decode(t: &str, max: usize) -> Result<Vec<u8>, Reason> {
        let parts = split(t.as_bytes(), max)?;
        decode_classified(parts.body).map_err(|_| Reason::Malformed)
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
            assert_eq!(split_and_decode(t, 1024), Err(Reason::Malformed), "{t:?}");
        }
    }

    #[test]
    fn refuses_oversize_before_anything_else() {
        let token = format!("v1.{}.{MAC}", "A".repeat(100));
        assert!(split(token.as_bytes(), token.len()).is_ok());
        assert_eq!(
            split(token.as_bytes(), token.len() - 1),
            Err(Reason::Malformed)
        );
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

    #[cfg(feature = "edge")]
    #[test]
    fn decode_exact_wants_the_exact_length() {
        let mac = MAC.as_bytes();
        assert!(decode_exact::<32>(mac).is_some());
        assert!(decode_exact::<32>(&mac[1..]).is_none());
        assert!(decode_exact::<16>(mac).is_none());
        let mut bad = MAC.to_string();
        bad.replace_range(42.., "B"); // last char carries 2 unused bits
        assert!(decode_exact::<32>(bad.as_bytes()).is_none());
    }

    #[test]
    fn encoded_len_matches_encode() {
        for n in 0..40 {
            assert_eq!(encode(&vec![7u8; n]).len(), encoded_len(n));
        }
    }
}

// Its byte builder is the codec's: edge builds only.
#[cfg(all(test, feature = "edge", not(target_arch = "wasm32")))]
mod against_the_base64_crate {
    use super::*;

    /// The reference shape check: the first '.', then both parts' alphabets
    /// scanned before anything is decoded.
    fn scanned_split(token: &str, max_bytes: usize) -> Result<Parts<'_>, Reason> {
        if token.len() > max_bytes {
            return Err(Reason::Malformed);
        }
        let rest = token.strip_prefix(PREFIX).ok_or(Reason::Malformed)?;
        let (body, mac) = rest.split_once('.').ok_or(Reason::Malformed)?;
        let b64 = |p: &str| !p.is_empty() && p.bytes().all(is_b64url);
        if !b64(body) || !b64(mac) {
            return Err(Reason::Malformed);
        }
        Ok(Parts {
            signed: &token.as_bytes()[..PREFIX.len() + body.len()],
            body: body.as_bytes(),
            mac: mac.as_bytes(),
        })
    }
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn encode_agrees(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            prop_assert_eq!(encode(&bytes), URL_SAFE_NO_PAD.encode(&bytes));
        }

        #[test]
        fn strict_decode_agrees(s in "[A-Za-z0-9_=+/ -]{0,64}") {
            prop_assert_eq!(decode(&s), URL_SAFE_NO_PAD.decode(&s).ok());
        }

        #[test]
        fn decode_agrees_on_alphabet_strings(s in "[A-Za-z0-9_-]{0,64}") {
            prop_assert_eq!(decode(&s), URL_SAFE_NO_PAD.decode(&s).ok());
        }

        // The one pass over the body refuses exactly what a scan of both
        // parts' alphabets before decoding refuses.
        #[test]
        fn split_agrees_with_a_scan_first(s in "(v1\\.)?[A-Da-d0-3_.=+ -]{0,24}") {
            let one_pass = split(s.as_bytes(), 64).and_then(|p| match decode_classified(p.body) {
                Err(DecodeError::Alphabet) => Err(Reason::Malformed),
                _ => Ok(p),
            });
            prop_assert_eq!(one_pass, scanned_split(&s, 64));
        }

        // Past the 768-byte pieces of `encode_into` and into the byte builder.
        #[test]
        fn long_inputs_agree(bytes in proptest::collection::vec(any::<u8>(), 0..3000)) {
            let reference = URL_SAFE_NO_PAD.encode(&bytes);
            prop_assert_eq!(&encode(&bytes), &reference);
            let mut built = b"v1.".to_vec();
            encode_into_bytes(&bytes, &mut built);
            prop_assert_eq!(&built[3..], reference.as_bytes());
            prop_assert_eq!(decode(&reference), Some(bytes));
        }
    }
}
