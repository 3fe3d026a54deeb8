//! The drop-in's reading of a raw token: as the SDK's own codec
//! (`createRequestStateCodec` of `@modelcontextprotocol/server`) reads it,
//! for the `OP_SDK` operation of the wasm I/O path (docs/drop-in.md, "Read as the
//! SDK reads them"). The shape, MAC and binding steps are docs/format.md's;
//! the body is read as the SDK's `JSON.parse` and property reads take it.
//! Only a key holder can make a body that reads differently either way.
//!
//! The glue's side of the same reading is `pkg-template/edge/api.js`.

use crate::clock;
use crate::codec::{Codec, SealError, SealWith};
use crate::envelope::{Picker, OUTER_MEMBERS};
use crate::error::{Reason, SealedStateError};
use crate::json;
use crate::payload::{self, Payload};

/// Seal a raw token as the SDK's `mint` does: no payload (JS `undefined`,
/// which `JSON.stringify` leaves out of the envelope) is `{"exp":N}`.
pub(crate) fn mint_into(
    codec: &Codec,
    payload_json: Option<&str>,
    bind: Option<&str>,
    now_ms: f64,
    out: &mut Vec<u8>,
) -> Result<(), SealError> {
    codec.seal_into(&SealWith::raw().bind(bind), payload_json, now_ms, out)
}

/// Open a raw token as the SDK's `verify` does: no `p` opens as `None` (JS
/// `undefined`), `exp` may be any JSON number, the last of a repeated key
/// counts.
pub(crate) fn verify(
    codec: &Codec,
    token: &[u8],
    bind: Option<&str>,
    now_ms: f64,
) -> Result<Option<Payload>, SealedStateError> {
    let (key, body) = codec.authenticate(token)?;
    let env = parse(&body).ok_or(Reason::Malformed)?;
    let now = clock::unix_seconds(now_ms).ok_or(Reason::Expired)?;
    // The SDK: expired when `typeof exp !== "number" || exp < floor(now)`.
    let fresh = env
        .exp
        .and_then(|exp| number_at_least(exp, now.saturating_sub(codec.leeway_seconds())))
        .unwrap_or(false);
    if !fresh {
        return Err(Reason::Expired.into());
    }
    crate::codec::check_binding(key, bind, env.b)?;
    let Some(p) = env.p else {
        return Ok(None);
    };
    let range = payload::range_in(&body, p).ok_or(Reason::Malformed)?;
    Payload::new(body, range)
        .map(Some)
        .ok_or_else(|| Reason::Malformed.into())
}

/// The outer envelope as the SDK's codec reads it: `JSON.parse` of the body,
/// then `envelope.p`, `envelope.exp`, `envelope.b`. Slices borrow the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Envelope<'a> {
    /// Raw JSON of `p`; `None` where JS reads `undefined`.
    p: Option<&'a str>,
    /// Raw JSON of `exp`, if present: any JSON value (a number of any form is
    /// compared by [`number_at_least`]; anything else is expired).
    exp: Option<&'a str>,
    /// Raw JSON of `b`, if present.
    b: Option<&'a str>,
}

/// The body read as the SDK's codec reads it, after its MAC verified. `None`
/// where the SDK gives "malformed" (not one JSON text) or throws (`null`,
/// whose properties JS cannot read). A JSON text that is not an object has
/// none of the three members (its `exp` is `undefined`: "expired" there);
/// an object's repeated key counts once, the last, as in `JSON.parse`. A
/// leading BOM is skipped, as the SDK's `TextDecoder` does.
fn parse(body: &str) -> Option<Envelope<'_>> {
    let text = body.strip_prefix('\u{feff}').unwrap_or(body);
    let none = Envelope {
        p: None,
        exp: None,
        b: None,
    };
    match text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .as_bytes()
        .first()
    {
        Some(b'{') => {}
        Some(b'n') => return None, // `null`, if valid: JS throws reading its `exp`
        _ => return json::is_valid(text).then_some(none),
    }
    let mut picker = Picker::keeping_last(OUTER_MEMBERS);
    json::object_members_into(text, &mut picker)?;
    let [p, exp, b] = picker.picked()?;
    Some(Envelope { p, exp, b })
}

/// Whether the JSON value `raw` is a number at least `t`: `None` when it is
/// not a number. Exact decimal arithmetic: Rust's float parsing would cost
/// the edge build far more bytes than this. JS compares the nearest double
/// instead; the two agree on every number `JSON.stringify` writes (the
/// shortest text of its double), and differ only for a longer text within
/// half a double's spacing below `t`, which JS rounds up to `t` (a tiny
/// negative, say, which JS reads as -0). `t` is a clock's second, so its
/// magnitude is far below `i64::MAX`.
fn number_at_least(raw: &str, t: i64) -> Option<bool> {
    use core::cmp::Ordering;
    let b = raw.as_bytes();
    let negative = b.first() == Some(&b'-');
    let rest = b.get(usize::from(negative)..)?;
    if !rest.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    // |value| = 0.D x 10^point, D the digits without leading zeros (the
    // literal was validated: digits, at most one '.', then an exponent).
    let mut d = [0u8; 24]; // D's first digits: |t| has at most 19
    let (mut len, mut point, mut more, mut frac, mut i) = (0usize, 0i64, false, false, 0usize);
    while let Some(&c) = rest.get(i) {
        match c {
            b'.' => frac = true,
            b'0' if len == 0 => point -= i64::from(frac),
            b'0'..=b'9' => {
                point += i64::from(!frac);
                match d.get_mut(len) {
                    Some(slot) => *slot = c,
                    None => more |= c != b'0',
                }
                len += 1;
            }
            _ => break,
        }
        i += 1;
    }
    if len == 0 {
        return Some(0 >= t); // zero, either sign
    }
    let (exp_negative, mut exp) = (rest.get(i + 1) == Some(&b'-'), 0i64);
    for &c in rest.get(i + 1..).unwrap_or(&[]) {
        if c.is_ascii_digit() {
            // Past 2^40 the exponent's size no longer matters: clamped there.
            exp = (exp * 10 + i64::from(c - b'0')).min(1 << 40);
        }
    }
    point += if exp_negative { -exp } else { exp };
    // |t| = 0.T x 10^len(T), T's digits in `tt`.
    let mut tt = [0u8; 24];
    let mut tlen = 0usize;
    let mut v = t.unsigned_abs();
    while v > 0 {
        tlen += 1;
        v /= 10;
    }
    let mut v = t.unsigned_abs();
    for k in (0..tlen).rev() {
        if let Some(slot) = tt.get_mut(k) {
            *slot = b'0' + (v % 10) as u8;
        }
        v /= 10;
    }
    let magnitude = if t == 0 {
        Ordering::Greater
    } else {
        // Both padded with zeros to 24 digits; a nonzero digit past them is D's.
        let pad = |s: &mut [u8; 24], n: usize| s.iter_mut().skip(n).for_each(|x| *x = b'0');
        pad(&mut d, len);
        pad(&mut tt, tlen);
        point.cmp(&(tlen as i64)).then(d.cmp(&tt)).then(if more {
            Ordering::Greater
        } else {
            Ordering::Equal
        })
    };
    Some(match (negative, t < 0) {
        (false, false) => magnitude.is_ge(),
        (false, true) => true,
        (true, false) => false, // below zero, so below t
        (true, true) => magnitude.is_le(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_as_the_sdk_reads() {
        use parse as sdk;
        let env = |p, exp, b| Some(Envelope { p, exp, b });
        // What docs/format.md's reading takes, the SDK's takes the same.
        assert_eq!(
            sdk("{\"p\":{\"a\":1},\"exp\":5,\"b\":\"T\"}"),
            env(Some("{\"a\":1}"), Some("5"), Some("\"T\""))
        );
        // And what only a key holder can make, as JSON.parse and JS read it.
        assert_eq!(sdk("{\"exp\":5}"), env(None, Some("5"), None));
        assert_eq!(
            sdk("{\"p\":1,\"exp\":5.5}"),
            env(Some("1"), Some("5.5"), None)
        );
        assert_eq!(
            sdk("{\"p\":1,\"exp\":1e400}"),
            env(Some("1"), Some("1e400"), None)
        );
        assert_eq!(
            sdk("{\"p\":1,\"p\":2,\"exp\":1,\"exp\":3}"),
            env(Some("2"), Some("3"), None)
        );
        assert_eq!(
            sdk("{\"\\u0070\":1,\"exp\":\"5\"}"),
            env(Some("1"), Some("\"5\""), None)
        );
        assert_eq!(
            sdk("\u{feff} {\"p\":1,\"exp\":5} "),
            env(Some("1"), Some("5"), None)
        );
        assert_eq!(
            sdk("{\"p\":1,\"exp\":5,\"b\":null}"),
            env(Some("1"), Some("5"), Some("null"))
        );
        for other in ["[]", "\"x\"", "42", "true", "false", " [1] "] {
            assert_eq!(sdk(other), env(None, None, None), "{other}");
        }
        // "malformed" or a TypeError in the SDK.
        for bad in [
            "",
            "{",
            "{\"p\":1,}",
            "null",
            " null",
            "nul",
            "\u{feff}\u{feff}{}",
            "{} {}",
            "[1,]",
        ] {
            assert_eq!(sdk(bad), None, "{bad}");
        }
    }

    #[test]
    fn numbers_compared_as_js_compares_them() {
        let js = |raw: &str, t: i64| raw.parse::<f64>().unwrap() >= t as f64;
        let texts = [
            "0",
            "-0",
            "0.0",
            "1",
            "-1",
            "9",
            "10",
            "1764500600",
            "1764500599",
            "1764500601",
            "1764500600.5",
            "1764500599.5",
            "1764500600.000",
            "0001764500600",
            "176450060e1",
            "1.7645006e9",
            "1.7645006E+9",
            "17645006000e-1",
            "1e3",
            "1e20",
            "1e400",
            "-1e400",
            "5e-400",
            "1e-7",
            "-1e-7",
            "0.00000000000000000000001e23",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-1764500600.5",
            "1e99999999999999999999",
            "1e-99999999999999999999",
            "-1e99999999999999999999",
        ];
        let ts = [
            0,
            1,
            -1,
            10,
            999,
            1000,
            1001,
            1_764_500_599,
            1_764_500_600,
            1_764_500_601,
            -1_764_500_600,
            -1_764_500_601,
            i64::MAX,
            i64::MIN + 1,
        ];
        for raw in texts {
            for t in ts {
                // JS's double loses digits past 2^53: compare exactly only below it.
                if t.unsigned_abs() < 1 << 53 {
                    assert_eq!(number_at_least(raw, t), Some(js(raw, t)), "{raw} >= {t}");
                }
            }
        }
        // Shortest texts of doubles, as JSON.stringify writes them.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let t = (x % 4_000_000_000) as i64 - 2_000_000_000;
            let v = t as f64 + ((x >> 40) as f64 / (1u64 << 24) as f64 - 0.5) * 4.0;
            let raw = format!("{v}");
            assert_eq!(
                number_at_least(&raw, t),
                Some(v >= t as f64),
                "{raw} >= {t}"
            );
        }
        // Long texts, any form, away from t: exactly as JS compares them.
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let t = (x % 20_000) as i64 - 10_000;
            let digits: String = (0..(x >> 8) % 30 + 1)
                .map(|k| char::from(b'0' + ((x >> (k % 50)) % 10) as u8))
                .collect();
            let raw = match (x >> 20) % 4 {
                0 => match digits.trim_start_matches('0') {
                    "" => "-0".to_string(),
                    int => format!("-{int}"),
                },
                1 => format!("0.{digits}e{}", (x >> 24) % 9),
                2 => format!("-{}.{digits}E+{}", (x >> 30) % 99, (x >> 24) % 4),
                _ => format!("{}.{digits}e-{}", (x >> 30) % 99_999, (x >> 24) % 3),
            };
            let v: f64 = raw.parse().unwrap();
            if (v - t as f64).abs() > 1e-3 {
                assert_eq!(number_at_least(&raw, t), Some(js(&raw, t)), "{raw} >= {t}");
            }
        }
        // The documented difference: a long text just under t, which JS rounds to t.
        assert_eq!(
            number_at_least("1764500599.99999999999", 1_764_500_600),
            Some(false)
        );
        assert!(js("1764500599.99999999999", 1_764_500_600));
        assert_eq!(number_at_least("-5e-400", 0), Some(false)); // -0 in JS
        assert!(js("-5e-400", 0));
        for other in ["\"1\"", "null", "true", "[1]", "{}"] {
            assert_eq!(number_at_least(other, 0), None, "{other}");
        }
    }
}
