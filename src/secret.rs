//! The secret part of a token (docs/format.md, "s: the secret part"): JSON
//! only a key holder reads, as `s` in the inner envelope, XChaCha20-Poly1305
//! under a key derived with HKDF-SHA256 from the token's key.
//!
//! The nonce is random (24 bytes make collisions negligible), so no counter
//! has to survive a restart or be shared between instances.

use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::{Tag, XChaCha20Poly1305, XNonce};
use hkdf::Hkdf;
use sha2::Sha256;

use crate::error::Reason;
use crate::purpose::Purpose;
use crate::wire;

/// HKDF `info` of the encryption key.
pub(crate) const HKDF_INFO: &[u8] = b"mcp-sealed-state/v1/secret";
/// Start of the AAD; the purpose letter, `:` and the tool follow.
pub(crate) const AAD_LABEL: &[u8] = b"mcp-sealed-state/v1/secret:";
/// Bytes of the random nonce.
pub(crate) const NONCE_BYTES: usize = 24;
/// Bytes of the Poly1305 tag.
pub(crate) const TAG_BYTES: usize = 16;

/// The encryption key derived from one configured key.
#[derive(Clone)]
pub(crate) struct SecretKey(XChaCha20Poly1305);

/// The 32-byte encryption key for `key`.
pub(crate) fn derive_key(key: &[u8]) -> [u8; 32] {
    let mut okm = [0u8; 32];
    // 32 bytes is far below HKDF-SHA256's 8160-byte limit, so this never fails.
    let _ = Hkdf::<Sha256>::new(None, key).expand(HKDF_INFO, &mut okm);
    okm
}

impl SecretKey {
    pub(crate) fn new(key: &[u8]) -> SecretKey {
        let mut okm = derive_key(key);
        let cipher = XChaCha20Poly1305::new(&okm.into());
        okm.fill(0);
        SecretKey(cipher)
    }
}

/// The AAD for a token of `purpose` ("v" or "r", and the tool).
fn aad(purpose: Purpose<&str>) -> Vec<u8> {
    let (letter, tool) = match purpose {
        Purpose::RequestState(tool) => ("r", tool),
        _ => ("v", ""),
    };
    [AAD_LABEL, letter.as_bytes(), b":", tool.as_bytes()].concat()
}

/// Characters of `s` for a secret of `json_len` bytes.
pub(crate) fn sealed_len(json_len: usize) -> Option<usize> {
    Some(wire::encoded_len(
        json_len.checked_add(NONCE_BYTES + TAG_BYTES)?,
    ))
}

/// Encrypt `json` under `key` with `nonce`; the base64url of nonce, ciphertext and tag.
pub(crate) fn seal_with_nonce(
    key: &SecretKey,
    purpose: Purpose<&str>,
    json: &str,
    nonce: [u8; NONCE_BYTES],
) -> Option<String> {
    let mut buf = Vec::new();
    buf.try_reserve_exact(NONCE_BYTES + json.len() + TAG_BYTES)
        .ok()?;
    buf.extend_from_slice(&nonce);
    buf.extend_from_slice(json.as_bytes());
    let tag = key
        .0
        .encrypt_in_place_detached(
            XNonce::from_slice(&nonce),
            &aad(purpose),
            buf.get_mut(NONCE_BYTES..)?,
        )
        .ok()?;
    buf.extend_from_slice(&tag);
    let mut out = String::new();
    out.try_reserve_exact(wire::encoded_len(buf.len())).ok()?;
    wire::encode_into(&buf, &mut out);
    Some(out)
}

/// Why a secret could not be sealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SealFailure {
    NoRandomness,
    OutOfMemory,
}

/// Encrypt `json` under `key` with a fresh random nonce.
pub(crate) fn seal(
    key: &SecretKey,
    purpose: Purpose<&str>,
    json: &str,
) -> Result<String, SealFailure> {
    let mut nonce = [0u8; NONCE_BYTES];
    fill_nonce(&mut nonce).map_err(|_| SealFailure::NoRandomness)?;
    seal_with_nonce(key, purpose, json, nonce).ok_or(SealFailure::OutOfMemory)
}

/// A fresh nonce from the platform CSPRNG.
#[cfg(not(target_arch = "wasm32"))]
fn fill_nonce(nonce: &mut [u8; NONCE_BYTES]) -> Result<(), getrandom::Error> {
    getrandom::fill(nonce)
}

/// In wasm each draw crosses into JS (`crypto.getRandomValues`, about half
/// the cost of a small seal with a secret in Node), so nonces come from a
/// pool drawn 1 KiB at a time, each handed out once and zeroed. Native code
/// draws every nonce: a forked process would share a pool.
#[cfg(target_arch = "wasm32")]
fn fill_nonce(nonce: &mut [u8; NONCE_BYTES]) -> Result<(), getrandom::Error> {
    use core::cell::RefCell;
    const POOL_BYTES: usize = 1024;
    std::thread_local! {
        static POOL: RefCell<(usize, [u8; POOL_BYTES])> = const { RefCell::new((POOL_BYTES, [0; POOL_BYTES])) };
    }
    POOL.with(|pool| {
        // Never re-entered (nothing here calls back into the codec); if it were, draw directly.
        let Ok(mut pool) = pool.try_borrow_mut() else {
            return getrandom::fill(nonce);
        };
        let (used, bytes) = &mut *pool;
        if used.saturating_add(NONCE_BYTES) > POOL_BYTES {
            getrandom::fill(bytes)?;
            *used = 0;
        }
        let Some(chunk) = bytes.get_mut(*used..*used + NONCE_BYTES) else {
            return getrandom::fill(nonce);
        };
        nonce.copy_from_slice(chunk);
        chunk.fill(0);
        *used += NONCE_BYTES;
        Ok(())
    })
}

/// Decrypt the `s` of a token that passed the MAC. Not canonical base64url,
/// or shorter than a nonce and a tag: `Malformed`; a tag that does not
/// verify: `Mac`; plaintext that is not JSON text: `Malformed`.
pub(crate) fn open(
    key: &SecretKey,
    purpose: Purpose<&str>,
    sealed: &str,
) -> Result<String, Reason> {
    let mut bytes = wire::decode(sealed).ok_or(Reason::Malformed)?;
    let text_len = bytes
        .len()
        .checked_sub(NONCE_BYTES + TAG_BYTES)
        .ok_or(Reason::Malformed)?;
    let (nonce, rest) = bytes
        .split_at_mut_checked(NONCE_BYTES)
        .ok_or(Reason::Malformed)?;
    let (text, tag) = rest
        .split_at_mut_checked(text_len)
        .ok_or(Reason::Malformed)?;
    key.0
        .decrypt_in_place_detached(
            XNonce::from_slice(nonce),
            &aad(purpose),
            text,
            Tag::from_slice(tag),
        )
        .map_err(|_| Reason::Mac)?;
    let json = core::str::from_utf8(text).map_err(|_| Reason::Malformed)?;
    if !crate::json::is_valid(json) {
        return Err(Reason::Malformed);
    }
    Ok(json.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// draft-irtf-cfrg-xchacha-03, appendix A.3.1, through the same cipher
    /// type and in-place call the token path uses.
    #[test]
    fn xchacha20poly1305_draft_vector() {
        let key = hex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
        let nonce = hex("404142434445464748494a4b4c4d4e4f5051525354555657");
        let aad = hex("50515253c0c1c2c3c4c5c6c7");
        let plaintext = b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.";
        let cipher = XChaCha20Poly1305::new_from_slice(&key).unwrap();
        let mut buf = plaintext.to_vec();
        let tag = cipher
            .encrypt_in_place_detached(XNonce::from_slice(&nonce), &aad, &mut buf)
            .unwrap();
        assert_eq!(
            buf,
            hex("bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e")
        );
        assert_eq!(tag.as_slice(), hex("c0875924c1c7987947deafd8780acf49"));
        cipher
            .decrypt_in_place_detached(XNonce::from_slice(&nonce), &aad, &mut buf, &tag)
            .unwrap();
        assert_eq!(buf, plaintext);
    }

    /// RFC 5869 test case 3 (SHA-256, no salt, no info) through the same
    /// `Hkdf` call, and our info giving a stable key.
    #[test]
    fn hkdf_rfc_5869_vector() {
        let ikm = [0x0bu8; 22];
        let mut okm = [0u8; 42];
        Hkdf::<Sha256>::new(None, &ikm)
            .expand(&[], &mut okm)
            .unwrap();
        assert_eq!(
            okm.to_vec(),
            hex("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
        );
        // Test case 1's IKM and PRK path, with salt, checks the extract step.
        let (prk, _) =
            Hkdf::<Sha256>::extract(Some(&hex("000102030405060708090a0b0c")), &[0x0bu8; 22]);
        assert_eq!(
            prk.to_vec(),
            hex("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
        );
        assert_eq!(derive_key(&[7u8; 32]), derive_key(&[7u8; 32]));
        assert_ne!(derive_key(&[7u8; 32]), derive_key(&[8u8; 32]));
    }

    #[test]
    fn round_trip_and_purpose_binding() {
        let key = SecretKey::new(&[1u8; 32]);
        let view = Purpose::View;
        let tool = Purpose::RequestState("move");
        let s = seal(&key, view, "{\"a\":1}").unwrap();
        assert_eq!(s.len(), sealed_len(7).unwrap());
        assert_eq!(open(&key, view, &s).unwrap(), "{\"a\":1}");
        assert_eq!(open(&key, tool, &s), Err(Reason::Mac));
        let t = seal(&key, tool, "1").unwrap();
        assert_eq!(
            open(&key, Purpose::RequestState("other"), &t),
            Err(Reason::Mac)
        );
        assert_eq!(
            open(&SecretKey::new(&[2u8; 32]), view, &s),
            Err(Reason::Mac)
        );
        assert_eq!(open(&key, view, "AAAA"), Err(Reason::Malformed));
        assert_eq!(open(&key, view, "not base64!"), Err(Reason::Malformed));
        // Two seals of the same secret differ (fresh nonces).
        assert_ne!(
            seal(&key, view, "1").unwrap(),
            seal(&key, view, "1").unwrap()
        );
        // A key holder encrypting something that is not JSON: malformed, not a panic.
        let bad = seal_with_nonce(&key, view, "{", [0; NONCE_BYTES]).unwrap();
        assert_eq!(open(&key, view, &bad), Err(Reason::Malformed));
    }
}
