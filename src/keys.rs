//! HMAC keys: validation, rotation, and the dev ephemeral key.
//!
//! Each key is turned into a keyed HMAC-SHA256 state once, at construction
//! (that copies the key material), and the state is cloned per call, so no
//! call pays for keying. The first key seals; every key opens.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use crate::secret::SecretKey;

pub(crate) type HmacSha256 = Hmac<Sha256>;

/// One configured key, ready to use: its keyed MAC state and the cipher of
/// its derived secret-part key (both made once, at construction).
#[derive(Clone)]
pub(crate) struct Key {
    pub(crate) mac: HmacSha256,
    pub(crate) secret: SecretKey,
}

impl Key {
    fn new(key: &[u8]) -> Option<Key> {
        Some(Key {
            mac: keyed(key).ok()?,
            secret: SecretKey::new(key),
        })
    }
}

/// Keys shorter than this are refused, counted as HMAC uses the key: the
/// trailing zero bytes of a key of up to 64 bytes do not count (HMAC pads
/// the key with zeros to 64 bytes, so they add nothing).
pub const MIN_KEY_BYTES: usize = 32;

/// Logged once per process when a codec runs on an ephemeral key.
pub const EPHEMERAL_KEY_WARNING: &str = "mcp-sealed-state: no key configured; using a development \
key drawn at random once per process (once per isolate on Cloudflare Workers). Tokens open only in \
this process or isolate: not after a restart, on another instance or in another isolate. Set a key \
of at least 32 bytes. To make a missing key fatal: NODE_ENV=production in Node, Deno and Bun; on \
Workers pass the bindings (new StateCodec({ env })) and set the variable NODE_ENV = \"production\", \
or pass production: true.";

/// Why keys could not be set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyError {
    /// A key is shorter than [`MIN_KEY_BYTES`].
    TooShort {
        /// Its place in the list, from 0.
        index: usize,
        /// Its length, in bytes.
        len: usize,
    },
    /// A key of at least [`MIN_KEY_BYTES`] whose last bytes are zero bytes,
    /// fewer than [`MIN_KEY_BYTES`] before them: HMAC pads a key of up to 64
    /// bytes with zeros, so it keys HMAC as that shorter key.
    ZeroPadded {
        /// Its place in the list, from 0.
        index: usize,
        /// Its length, in bytes.
        len: usize,
    },
    /// A key of zero bytes only: no secret (one of up to 64 bytes keys HMAC
    /// as the empty key).
    AllZero {
        /// Its place in the list, from 0.
        index: usize,
    },
    /// No key, in production.
    Missing,
    /// The platform CSPRNG failed (no `crypto.getRandomValues`, for example).
    NoRandomness,
    /// Key `index` is the same HMAC key as key `first` (a list holds each
    /// key once): the same bytes, or the same but for trailing zero bytes up
    /// to the block size, or a key over the block size beside its SHA-256.
    Duplicate {
        /// The place of the second copy in the list, from 0.
        index: usize,
        /// The place of the first.
        first: usize,
    },
    /// A key list with no key in it: a configuration error, never "no key"
    /// (it must not fall back to the ephemeral key).
    Empty,
}

impl core::fmt::Display for KeyError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            KeyError::TooShort { index, len } => write!(
                f,
                "key #{index} is {len} bytes; keys must be at least {MIN_KEY_BYTES} bytes"
            ),
            KeyError::ZeroPadded { index, len } => write!(
                f,
                "key #{index} is {len} bytes but ends in zero bytes, which HMAC ignores \
                 (it pads a key of up to 64 bytes with zeros), leaving fewer than \
                 {MIN_KEY_BYTES}; keys must be at least {MIN_KEY_BYTES} bytes before \
                 trailing zero bytes"
            ),
            KeyError::AllZero { index } => write!(
                f,
                "key #{index} is all zero bytes, which is no secret (HMAC keys one of up \
                 to 64 bytes as the empty key); use a random key"
            ),
            KeyError::Missing => f.write_str(
                "no key configured, and production mode refuses the ephemeral development key",
            ),
            KeyError::NoRandomness => f.write_str("the platform's random number generator failed"),
            KeyError::Empty => f.write_str(
                "the key list is empty; give at least one key (or `keys: None` for the development key)",
            ),
            KeyError::Duplicate { index, first } => {
                write!(
                    f,
                    "key #{index} is the same key as key #{first} to HMAC (which pads a key \
                     with zero bytes to 64 bytes and hashes a longer one); list each key once"
                )
            }
        }
    }
}

impl std::error::Error for KeyError {}

/// The keyed MAC states. Holds no raw key bytes and prints none.
#[derive(Clone)]
pub(crate) struct Keys {
    macs: Vec<Key>,
    ephemeral: bool,
}

impl core::fmt::Debug for Keys {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Keys")
            .field("count", &self.macs.len())
            .field("ephemeral", &self.ephemeral)
            .finish()
    }
}

static EPHEMERAL_WARNED: AtomicBool = AtomicBool::new(false);

/// True the first time it is called in this process (or wasm instance), so a
/// caller logs [`EPHEMERAL_KEY_WARNING`] once.
pub(crate) fn ephemeral_warning_due() -> bool {
    !EPHEMERAL_WARNED.swap(true, Ordering::Relaxed)
}

impl Keys {
    /// Key the MAC states. No list (`None`) gives the ephemeral key unless
    /// `production` is set; an empty list is an error.
    pub(crate) fn new<K: AsRef<[u8]>>(
        keys: Option<&[K]>,
        production: bool,
    ) -> Result<Keys, KeyError> {
        let Some(keys) = keys else {
            return if production {
                Err(KeyError::Missing)
            } else {
                Keys::ephemeral()
            };
        };
        if keys.is_empty() {
            return Err(KeyError::Empty);
        }
        let mut macs = Vec::with_capacity(keys.len());
        for (index, key) in keys.iter().enumerate() {
            let key = key.as_ref();
            check_length(index, key)?;
            // A configuration slip (the old key pasted as the new one), refused
            // rather than silently verifying with one key twice. Compared as
            // HMAC keys them: `K` and `K || 00` MAC alike but derive different
            // secret-part keys, so a token by one would open and then fail
            // to decrypt under the other.
            if let Some(first) = keys
                .iter()
                .take(index)
                .position(|k| same_hmac_key(k.as_ref(), key))
            {
                return Err(KeyError::Duplicate { index, first });
            }
            macs.push(Key::new(key).ok_or(KeyError::TooShort {
                index,
                len: key.len(),
            })?);
        }
        Ok(Keys {
            macs,
            ephemeral: false,
        })
    }

    /// The process's (a wasm instance's: an isolate's) one development key,
    /// a random 32-byte key drawn from the platform CSPRNG at its first use,
    /// so every keyless codec of the process opens the others' tokens. A
    /// failed draw is not kept: the next codec tries again.
    pub(crate) fn ephemeral() -> Result<Keys, KeyError> {
        static EPHEMERAL: OnceLock<Key> = OnceLock::new();
        let mac = match EPHEMERAL.get() {
            Some(mac) => mac.clone(),
            None => {
                let mut key = [0u8; MIN_KEY_BYTES];
                getrandom::fill(&mut key).map_err(|_| KeyError::NoRandomness)?;
                let mac = Key::new(&key).ok_or(KeyError::NoRandomness);
                key.fill(0);
                let mac = mac?;
                EPHEMERAL.get_or_init(|| mac).clone()
            }
        };
        Ok(Keys {
            macs: vec![mac],
            ephemeral: true,
        })
    }

    /// Whether this is the dev ephemeral key.
    pub(crate) fn is_ephemeral(&self) -> bool {
        self.ephemeral
    }

    /// The key that seals.
    pub(crate) fn sealing(&self) -> Option<&Key> {
        self.macs.first()
    }

    /// Every key that opens, the sealing one first.
    pub(crate) fn all(&self) -> &[Key] {
        &self.macs
    }
}

/// SHA-256's block size: HMAC-SHA256 hashes a longer key, and pads a key
/// with zero bytes to this length (RFC 2104, section 2).
const HMAC_BLOCK_BYTES: usize = 64;

/// The length rule: at least [`MIN_KEY_BYTES`], not all zero bytes, and, for
/// a key HMAC pads rather than hashes, at least [`MIN_KEY_BYTES`] before its
/// trailing zero bytes (which HMAC's padding makes no part of the key).
fn check_length(index: usize, key: &[u8]) -> Result<(), KeyError> {
    let len = key.len();
    if len < MIN_KEY_BYTES {
        return Err(KeyError::TooShort { index, len });
    }
    let Some(last) = key.iter().rposition(|&b| b != 0) else {
        return Err(KeyError::AllZero { index });
    };
    if len <= HMAC_BLOCK_BYTES && last < MIN_KEY_BYTES - 1 {
        return Err(KeyError::ZeroPadded { index, len });
    }
    Ok(())
}

/// Whether HMAC-SHA256 keys `a` and `b` alike: their blocks (a key over the
/// block size replaced by its SHA-256, then zero-padded) are equal. Runs at
/// construction only, on the caller's own keys, so it need not be constant time.
fn same_hmac_key(a: &[u8], b: &[u8]) -> bool {
    let (mut x, mut y) = (hmac_block(a), hmac_block(b));
    let same = x == y;
    x.fill(0);
    y.fill(0);
    same
}

/// The block HMAC-SHA256 keys with.
fn hmac_block(key: &[u8]) -> [u8; HMAC_BLOCK_BYTES] {
    use sha2::Digest as _;
    let mut block = [0u8; HMAC_BLOCK_BYTES];
    if key.len() > HMAC_BLOCK_BYTES {
        let digest = Sha256::digest(key);
        block
            .iter_mut()
            .zip(digest.iter())
            .for_each(|(b, d)| *b = *d);
    } else {
        block.iter_mut().zip(key).for_each(|(b, k)| *b = *k);
    }
    block
}

/// HMAC accepts keys of any length, so this never fails in practice.
fn keyed(key: &[u8]) -> Result<HmacSha256, hmac::digest::InvalidLength> {
    <HmacSha256 as Mac>::new_from_slice(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_short_keys() {
        assert_eq!(
            Keys::new(Some(&[[1u8; 31]]), false).unwrap_err(),
            KeyError::TooShort { index: 0, len: 31 }
        );
        let keys: [&[u8]; 2] = [&[1u8; 32], b"short"];
        assert_eq!(
            Keys::new(Some(&keys), false).unwrap_err(),
            KeyError::TooShort { index: 1, len: 5 }
        );
        assert!(Keys::new(Some(&[[1u8; 32]]), false).is_ok());
    }

    #[test]
    fn refuses_a_key_listed_twice() {
        let (a, b) = ([1u8; 32], [2u8; 32]);
        let keys: [&[u8]; 3] = [&a, &b, &a];
        assert_eq!(
            Keys::new(Some(&keys), false).unwrap_err(),
            KeyError::Duplicate { index: 2, first: 0 }
        );
        let keys: [&[u8]; 2] = [&a, &b];
        assert!(Keys::new(Some(&keys), false).is_ok());
    }

    #[test]
    fn refuses_keys_that_hmac_keys_alike() {
        let mac = |key: &[u8]| {
            keyed(key)
                .unwrap()
                .chain_update(b"x")
                .finalize()
                .into_bytes()
        };
        let k = [7u8; 40];
        let mut padded = k.to_vec();
        padded.push(0);
        let mut full = k.to_vec();
        full.resize(HMAC_BLOCK_BYTES, 0);
        let long = [9u8; 65];
        let digest = <Sha256 as sha2::Digest>::digest(long);
        for (a, b) in [
            (&k[..], &padded[..]),
            (&padded[..], &k[..]),
            (&k[..], &full[..]),
            (&long[..], &digest[..]),
            (&digest[..], &long[..]),
        ] {
            let keys = [a, b];
            assert_eq!(
                Keys::new(Some(&keys), false).unwrap_err(),
                KeyError::Duplicate { index: 1, first: 0 },
                "{} and {} bytes",
                a.len(),
                b.len()
            );
            // And they do MAC alike: the rule is HMAC's, not a guess.
            assert_eq!(mac(a), mac(b));
        }
        // A zero byte elsewhere, one byte over the block, 64 bytes beside
        // their hash: different keys.
        let mut inner = k.to_vec();
        inner.insert(0, 0);
        let mut over = full.clone();
        over.push(0);
        let block_digest = <Sha256 as sha2::Digest>::digest(&full);
        for (a, b) in [
            (&k[..], &inner[..]),
            (&full[..], &over[..]),
            (&full[..], &block_digest[..]),
        ] {
            let keys = [a, b];
            assert!(
                Keys::new(Some(&keys), false).is_ok(),
                "{} and {}",
                a.len(),
                b.len()
            );
            assert_ne!(mac(a), mac(b));
        }
    }

    #[test]
    fn missing_key_in_production_is_an_error() {
        assert_eq!(
            Keys::new::<&[u8]>(None, true).unwrap_err(),
            KeyError::Missing
        );
        let dev = Keys::new::<&[u8]>(None, false).unwrap();
        assert!(dev.is_ephemeral());
    }

    #[test]
    fn an_empty_list_is_an_error_never_the_ephemeral_key() {
        for production in [false, true] {
            assert_eq!(
                Keys::new::<&[u8]>(Some(&[]), production).unwrap_err(),
                KeyError::Empty
            );
        }
    }

    #[test]
    fn one_ephemeral_key_per_process() {
        let mac_of_x = || {
            let keys = Keys::ephemeral().unwrap();
            keys.sealing()
                .unwrap()
                .mac
                .clone()
                .chain_update(b"x")
                .finalize()
                .into_bytes()
        };
        let (a, b) = (mac_of_x(), mac_of_x());
        assert_eq!(a, b);
        let fixed = Keys::new(Some(&[[3u8; 32]]), false).unwrap();
        let c = fixed
            .sealing()
            .unwrap()
            .mac
            .clone()
            .chain_update(b"x")
            .finalize()
            .into_bytes();
        assert_ne!(a, c);
    }

    #[test]
    fn debug_prints_no_key_material() {
        let k = Keys::new(Some(&[b"0123456789abcdef0123456789abcdef"]), false).unwrap();
        assert_eq!(format!("{k:?}"), "Keys { count: 1, ephemeral: false }");
    }
}
