//! Shared by the fuzz targets: the input format, the fixed codec, and an
//! independent reference implementation of opening and reading a token built
//! on other crates (`hmac`, `base64`, `serde_json`), for differential checks.
//!
//! Input format (so seeds are easy to write by hand): the first byte is a set
//! of flags, the rest is split on 0xFF (never a byte of UTF-8) into fields,
//! each read as UTF-8 (lossily).
#![allow(dead_code)]

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use mcp_sealed_state::bindings::{io, protocol};
use mcp_sealed_state::{Clock, Codec, CodecOptions, Purpose, Reason};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use sha2::Sha256;

/// Keys of the SDK vectors: #1 seals, both open (rotation).
pub const KEYS: [&[u8]; 2] = [
    b"mcp-sealed-state test vector key #1 (ascii)",
    b"another-ascii-key-for-sdk-v1-vectors-0123456789",
];
/// The SDK vectors' clock.
pub const NOW_MS: f64 = 1_764_500_000_123.0;
pub const NOW_S: i64 = 1_764_500_000;
/// Small, so the fuzzer reaches the size check.
pub const MAX_TOKEN_BYTES: usize = 3000;
pub const LEEWAY: i64 = 30;
pub const TTL: i64 = 600;
pub const BIND_LABEL: &[u8] = b"mcp.requestState.bind:";

pub struct Input<'a> {
    pub flags: u8,
    fields: Vec<Cow<'a, str>>,
}

impl<'a> Input<'a> {
    pub fn parse(data: &'a [u8]) -> Option<Self> {
        let (&flags, rest) = data.split_first()?;
        Some(Input {
            flags,
            fields: rest
                .split(|&b| b == 0xFF)
                .map(String::from_utf8_lossy)
                .collect(),
        })
    }
    pub fn field(&self, i: usize) -> &str {
        self.fields.get(i).map(|c| c.as_ref()).unwrap_or("")
    }
    pub fn flag(&self, bit: u8) -> bool {
        self.flags & (1 << bit) != 0
    }
}

fn codec_with(leeway: i64) -> Codec {
    let mut opts = CodecOptions::with_keys(KEYS.to_vec());
    opts.max_token_bytes = MAX_TOKEN_BYTES;
    opts.leeway_seconds = leeway;
    opts.ttl_seconds = TTL;
    opts.now = Clock::from_fn(|| NOW_MS);
    Codec::new(opts).expect("codec")
}

/// The fixed codec (leeway 0) and one with [`LEEWAY`].
pub fn codec(leeway: bool) -> &'static Codec {
    static PLAIN: OnceLock<Codec> = OnceLock::new();
    static LENIENT: OnceLock<Codec> = OnceLock::new();
    if leeway {
        LENIENT.get_or_init(|| codec_with(LEEWAY))
    } else {
        PLAIN.get_or_init(|| codec_with(0))
    }
}

pub fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("hmac key");
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

/// `"v1." body "." b64(HMAC(key, "v1." body))`, with no checks on `body`.
pub fn signed_token(body_b64: &str, key: &[u8]) -> String {
    let signed = format!("v1.{body_b64}");
    let mac = URL_SAFE_NO_PAD.encode(hmac(key, &[signed.as_bytes()]));
    format!("{signed}.{mac}")
}

pub fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Every `\u` escape of `s` (a valid JSON text): its index and its unit.
fn unicode_escapes(s: &str) -> impl Iterator<Item = (usize, u32)> + '_ {
    let b = s.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            if b[i] != b'\\' {
                i += 1;
                continue;
            }
            let at = i;
            i += 2;
            if b.get(at + 1) != Some(&b'u') {
                continue;
            }
            let unit = b
                .get(at + 2..at + 6)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u32::from_str_radix(h, 16).ok());
            if let Some(unit) = unit {
                i = at + 6;
                return Some((at, unit));
            }
        }
        None
    })
}

/// Whether `s` has a `\u` escape of a surrogate that is not part of a
/// high+low pair: JSON.parse accepts it, serde_json's string decoding does not.
pub fn has_lone_surrogate_escape(s: &str) -> bool {
    let high = |u: &u32| (0xD800..0xDC00).contains(u);
    let low = |u: &u32| (0xDC00..0xE000).contains(u);
    let mut escapes = unicode_escapes(s).peekable();
    while let Some((at, u)) = escapes.next() {
        if low(&u) {
            return true;
        }
        if high(&u) {
            match escapes.peek() {
                Some(&(next, l)) if next == at + 6 && low(&l) => {
                    escapes.next();
                }
                _ => return true,
            }
        }
    }
    false
}

/// `s` with every `\u` escape of a surrogate (paired or not) replaced by one
/// of a private-use character (U+D800 + n to U+E000 + n), so serde_json reads
/// a text it refuses for a lone surrogate: its numbers, names and depth are
/// those of `s` (names that differ still differ, but for a literal U+E000 to
/// U+E7FF spelled alike, which only makes more texts look broken).
pub fn surrogates_to_private_use(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut copied = 0;
    for (at, u) in unicode_escapes(s).filter(|(_, u)| (0xD800..0xE000).contains(u)) {
        out.push_str(&s[copied..at]);
        out.push_str(&format!("\\u{:04x}", 0xE000 + (u - 0xD800)));
        copied = at + 6;
    }
    out.push_str(&s[copied..]);
    out
}

/// True when `s` holds one of serde_json's private marker keys, which its
/// `raw_value` and `arbitrary_precision` features read as a RawValue or a
/// Number instead of an object member: serde's verdict on such a text is not
/// JSON's (the fuzzer found `{"$serde_json::private::RawValue":2,"":1}`).
pub fn has_serde_marker_key(s: &str) -> bool {
    s.contains("$serde_json::private::")
}

/// serde_json's `Value` stops at 128 levels; this is a cheap upper bound.
pub fn may_be_too_deep_for_serde(s: &str) -> bool {
    s.bytes().filter(|&c| c == b'[' || c == b'{').count() > 120
}

/// JSON.parse's grammar, by serde_json: `RawValue` only validates (iterative,
/// no recursion limit, surrogates not decoded, numbers not converted).
pub fn serde_grammar_ok(s: &str) -> bool {
    serde_json::from_str::<Box<RawValue>>(s).is_ok()
}

/// The members of a JSON object as serde_json sees them: unescaped keys and
/// the raw text of each value, in order.
pub struct Entries(pub Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Entries, A::Error> {
                let mut v = Vec::new();
                while let Some(e) = m.next_entry::<String, Box<RawValue>>()? {
                    v.push(e);
                }
                Ok(Entries(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// "Cannot judge": the reference (serde_json) refuses a lone surrogate that
/// the crate (like JSON.parse) accepts, or reads a marker key of its own.
pub struct Unjudgeable;

/// Members of the object `text`, or `Ok(None)` when it is not one.
fn entries(text: &str) -> Result<Option<Entries>, Unjudgeable> {
    if has_serde_marker_key(text) {
        return Err(Unjudgeable);
    }
    match serde_json::from_str::<Entries>(text) {
        Ok(e) => Ok(Some(e)),
        Err(_) if has_lone_surrogate_escape(text) => Err(Unjudgeable),
        Err(_) => Ok(None),
    }
}

/// A JSON string's value, or `Ok(None)` when `raw` is not a string.
fn string_value(raw: &str) -> Result<Option<String>, Unjudgeable> {
    match serde_json::from_str::<String>(raw) {
        Ok(s) => Ok(Some(s)),
        Err(_) if has_lone_surrogate_escape(raw) => Err(Unjudgeable),
        Err(_) => Ok(None),
    }
}

/// The wanted members; `None` if one of them is repeated.
fn pick<'e, const N: usize>(e: &'e Entries, names: [&str; N]) -> Option<[Option<&'e str>; N]> {
    let mut found = [None; N];
    for (k, v) in &e.0 {
        if let Some(i) = names.iter().position(|n| n == k) {
            if found[i].is_some() {
                return None;
            }
            found[i] = Some(v.get());
        }
    }
    Some(found)
}

/// The outer envelope: (p, exp, b).
pub struct RefEnvelope {
    pub p: String,
    pub exp: i64,
    pub b: Option<String>,
}

fn ref_envelope(text: &str) -> Result<Option<RefEnvelope>, Unjudgeable> {
    let Some(e) = entries(text)? else {
        return Ok(None);
    };
    let Some([Some(p), Some(exp), b]) = pick(&e, ["p", "exp", "b"]) else {
        return Ok(None);
    };
    // An integer literal: no fraction, no exponent, and it fits an i64.
    if exp.contains(['.', 'e', 'E']) {
        return Ok(None);
    }
    let Ok(exp) = exp.parse::<i64>() else {
        return Ok(None);
    };
    Ok(Some(RefEnvelope {
        p: p.to_owned(),
        exp,
        b: b.map(str::to_owned),
    }))
}

#[derive(Debug, PartialEq, Eq)]
pub enum RefInner {
    View { d: String },
    Rs { d: String, tool: String },
}

fn ref_inner(p: &str) -> Result<Option<RefInner>, Unjudgeable> {
    if !p.starts_with('{') {
        return Ok(None);
    }
    let Some(e) = entries(p)? else {
        return Ok(None);
    };
    let Some([Some(purpose), d, o]) = pick(&e, ["p", "d", "o"]) else {
        return Ok(None);
    };
    Ok(match string_value(purpose)?.as_deref() {
        Some("v") => d.map(|d| RefInner::View { d: d.to_owned() }),
        Some("r") => match (d, o) {
            (Some(d), Some(o)) => string_value(o)?.map(|tool| RefInner::Rs {
                d: d.to_owned(),
                tool,
            }),
            _ => None,
        },
        _ => None,
    })
}

fn b64url_alphabet(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
}

/// `(signed, body, mac)` of a token of the right shape.
fn ref_split(token: &str, max: usize) -> Option<(&str, &str, &str)> {
    if token.len() > max {
        return None;
    }
    let rest = token.strip_prefix("v1.")?;
    let mut it = rest.split('.');
    let (body, mac) = (it.next()?, it.next()?);
    if it.next().is_some() || !b64url_alphabet(body) || !b64url_alphabet(mac) {
        return None;
    }
    Some((&token[..3 + body.len()], body, mac))
}

fn ref_body(body_b64: &str) -> Option<String> {
    String::from_utf8(URL_SAFE_NO_PAD.decode(body_b64).ok()?).ok()
}

#[derive(Clone, Copy, Debug)]
pub enum Want<'a> {
    View,
    Rs(&'a str),
    Raw,
}

/// What opening should give: the payload JSON or the reason, by docs/format.md's steps,
/// built on other crates. `Err(Unjudgeable)` when serde_json cannot tell.
pub fn ref_open(
    token: &str,
    want: Want<'_>,
    bind: Option<&str>,
    leeway: i64,
) -> Result<Result<String, Reason>, Unjudgeable> {
    use Reason::*;
    // 1. shape
    let Some((signed, body, mac)) = ref_split(token, MAX_TOKEN_BYTES) else {
        return Ok(Err(Malformed));
    };
    // 2. MAC: the first key that made it
    let Ok(mac) = URL_SAFE_NO_PAD.decode(mac) else {
        return Ok(Err(Mac));
    };
    let Some(key) = KEYS
        .iter()
        .find(|k| hmac(k, &[signed.as_bytes()])[..] == mac[..])
    else {
        return Ok(Err(Mac));
    };
    // 3. body
    let Some(text) = ref_body(body) else {
        return Ok(Err(Malformed));
    };
    let Some(env) = ref_envelope(&text)? else {
        return Ok(Err(Malformed));
    };
    // 4. expiry
    if env.exp.saturating_add(leeway) < NOW_S {
        return Ok(Err(Expired));
    }
    // 5. binding
    match (bind, &env.b) {
        (None, None) => {}
        (Some(value), Some(raw)) => {
            let Some(tag) = string_value(raw)? else {
                return Ok(Err(Bind));
            };
            let want = hmac(key, &[BIND_LABEL, value.as_bytes()]);
            match URL_SAFE_NO_PAD.decode(&tag) {
                Ok(t) if t.len() == 16 && t[..] == want[..16] => {}
                _ => return Ok(Err(Bind)),
            }
        }
        _ => return Ok(Err(Bind)),
    }
    // 6. purpose and tool
    let inner = ref_inner(&env.p)?;
    Ok(match (want, inner) {
        (Want::Raw, _) => Ok(env.p),
        (Want::View, Some(RefInner::View { d })) => Ok(d),
        (Want::Rs(t), Some(RefInner::Rs { d, tool })) if tool == t => Ok(d),
        _ => Err(Purpose),
    })
}

/// What the unverified reader should see: (payload, purpose, tool, exp, bound).
#[derive(Debug, PartialEq, Eq)]
pub struct RefView {
    pub payload: String,
    pub purpose: Purpose<String>,
    pub exp: i64,
    pub bound: bool,
}

pub fn ref_read(token: &str) -> Result<Option<RefView>, Unjudgeable> {
    let Some((_, body, mac)) = ref_split(token, mcp_sealed_state::MAX_READ_BYTES) else {
        return Ok(None);
    };
    if mac.len() != 43 {
        return Ok(None);
    }
    let Some(text) = ref_body(body) else {
        return Ok(None);
    };
    let Some(env) = ref_envelope(&text)? else {
        return Ok(None);
    };
    let (payload, purpose) = match ref_inner(&env.p)? {
        Some(RefInner::View { d }) => (d, Purpose::View),
        Some(RefInner::Rs { d, tool }) => (d, Purpose::RequestState(tool)),
        None => (env.p, Purpose::Raw),
    };
    Ok(Some(RefView {
        payload,
        purpose,
        exp: env.exp,
        bound: env.b.is_some(),
    }))
}

pub fn view_of(v: &mcp_sealed_state::TokenView) -> RefView {
    RefView {
        payload: v.payload_json().to_owned(),
        purpose: v.purpose.clone(),
        exp: v.exp,
        bound: v.bound,
    }
}

/// JSON text without the whitespace around it (what the crate's slices hold).
pub fn trim_json_ws(s: &str) -> &str {
    s.trim_matches([' ', '\t', '\n', '\r'])
}

/// Whether some key made this token's MAC (independent check).
pub fn mac_is_genuine(token: &str) -> bool {
    let Some((signed, mac)) = token.rsplit_once('.') else {
        return false;
    };
    let Ok(mac) = URL_SAFE_NO_PAD.decode(mac) else {
        return false;
    };
    KEYS.iter()
        .any(|k| hmac(k, &[signed.as_bytes()])[..] == mac[..])
}

/// The `what` code and tool of an opening.
fn op(want: Want<'_>) -> (u8, &str) {
    match want {
        Want::View => (protocol::OP_VIEW, ""),
        Want::Rs(t) => (protocol::OP_REQUEST_STATE, t),
        Want::Raw => (protocol::OP_RAW, ""),
    }
}

/// The strings back to back, as the JS glue writes them into the input
/// buffer, and their lengths as `sealIo`/`openIo` take them.
fn io_input(a: &str, b: &str, c: Option<&str>) -> (Vec<u8>, usize, usize, i32) {
    let bytes = [a, b, c.unwrap_or("")].concat().into_bytes();
    let c_len = c.map_or(-1, |c| i32::try_from(c.len()).expect("short bind"));
    (bytes, a.len(), b.len(), c_len)
}

/// Open through the shipped I/O path (what `openIo` runs): the payload JSON
/// or the reason.
pub fn io_open(
    codec: &Codec,
    want: Want<'_>,
    token: &str,
    bind: Option<&str>,
) -> Result<String, Reason> {
    let (what, tool) = op(want);
    let (input, a, b, c) = io_input(token, tool, bind);
    let mut out = b"stale output".to_vec();
    let n = io::open(codec, &input, &mut out, what, a, b, c, -1, NOW_MS);
    if n >= 0.0 {
        assert_eq!(n as usize, out.len());
        return Ok(String::from_utf8(out).expect("the payload is UTF-8"));
    }
    let code = usize::try_from(-n as i64).expect("a reason code");
    Err(*Reason::ALL
        .get(code - 1)
        .unwrap_or_else(|| panic!("openIo gave status {n} for a token")))
}

/// Seal through the shipped I/O path (what `sealIo` runs): the token or the
/// status.
pub fn io_seal(
    codec: &Codec,
    want: Want<'_>,
    payload: &str,
    bind: Option<&str>,
) -> Result<String, i8> {
    let (what, tool) = op(want);
    let (input, a, b, c) = io_input(payload, tool, bind);
    let mut out = b"stale output".to_vec();
    let n = io::seal(codec, &input, &mut out, what, a, b, c, -1, -1, NOW_MS);
    if n >= 0.0 {
        assert_eq!(n as usize, out.len());
        return Ok(String::from_utf8(out).expect("a token is ASCII"));
    }
    Err(n as i8)
}
