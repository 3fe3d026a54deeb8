//! RFC 8785 canonical JSON (JCS), for the request digest (docs/format.md,
//! "q: the request digest"): object members sorted by the UTF-16 code units of their
//! names, no whitespace, strings escaped as `JSON.stringify` escapes them, and
//! numbers written as ECMAScript's `Number.prototype.toString` writes them.
//!
//! It reads JSON text with the crate's scanner, so the same code serves the
//! wasm build and native Rust. Request arguments are small and shallow, so
//! the walk is recursive with a depth limit rather than iterative.
//!
//! Text with no canonical form is refused, never mapped onto another text's
//! form (which would let a token sealed for one request open for another):
//! a lone surrogate escape (RFC 8785 requires well-formed Unicode), a number
//! beyond the double range, a repeated member name, nesting deeper than
//! [`MAX_REQUEST_DEPTH`]. The JS glue applies the same rules.

#[cfg(feature = "jcs")]
use crate::json;

/// Deepest nesting of arrays and objects a request may have: a scalar is
/// depth 0, `[]` and `{}` depth 1, `[[]]` depth 2.
pub const MAX_REQUEST_DEPTH: usize = 64;

/// Why a request's JSON text has no canonical form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JcsError {
    /// Not one JSON text.
    NotJson,
    /// A number too large for an IEEE 754 double (RFC 8785 has no form for it).
    NumberOutOfRange,
    /// An object names a member twice (RFC 8785 requires unique names).
    DuplicateName,
    /// Nested deeper than [`MAX_REQUEST_DEPTH`].
    TooDeep,
    /// A string or member name holds a lone surrogate escape (`"\ud800"`):
    /// it is not Unicode text, so RFC 8785 gives it no form (read as U+FFFD
    /// it would share one with `"\ufffd"`).
    LoneSurrogate,
}

impl core::fmt::Display for JcsError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            JcsError::NotJson => "the request is not valid JSON text",
            JcsError::NumberOutOfRange => "the request holds a number beyond the double range",
            JcsError::DuplicateName => "the request holds an object with a repeated member name",
            JcsError::TooDeep => "the request is nested more than 64 levels deep",
            JcsError::LoneSurrogate => {
                "the request holds a lone surrogate escape (\\uD800-\\uDFFF unpaired)"
            }
        })
    }
}

impl std::error::Error for JcsError {}

/// The rules a valid JSON text must also meet to have a canonical form that
/// need no number parsing: no lone surrogate escape, nesting at most
/// [`MAX_REQUEST_DEPTH`]. One byte scan; both builds apply it, so the wasm
/// build (which hashes the glue's [`Request::Canonical`](crate::codec::Request) text
/// as given) refuses what Rust refuses.
pub(crate) fn check_text(text: &str) -> Result<(), JcsError> {
    let mut bytes = text.bytes();
    let mut depth = 0usize;
    while let Some(c) = bytes.next() {
        match c {
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_REQUEST_DEPTH {
                    return Err(JcsError::TooDeep);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'"' => check_string(&mut bytes)?,
            _ => {}
        }
    }
    Ok(())
}

/// Scan the rest of a (valid) string literal after its opening quote, up to
/// and including its closing quote: every `\uD800`-`\uDBFF` escape must be
/// followed by a `\uDC00`-`\uDFFF` escape, and no low one may stand alone.
/// Raw (unescaped) text is UTF-8 from a `&str`, so it holds no surrogates.
fn check_string(bytes: &mut core::str::Bytes<'_>) -> Result<(), JcsError> {
    // A high surrogate escape just read, waiting for its low half.
    let mut pending_high = false;
    while let Some(c) = bytes.next() {
        let unit = match c {
            b'"' => None,
            b'\\' => match bytes.next() {
                Some(b'u') => Some(hex4(bytes).ok_or(JcsError::NotJson)?),
                _ => None,
            },
            _ => None,
        };
        let low = unit.is_some_and(|u| (0xDC00..0xE000).contains(&u));
        if pending_high != low {
            return Err(JcsError::LoneSurrogate);
        }
        pending_high = unit.is_some_and(|u| (0xD800..0xDC00).contains(&u));
        if c == b'"' {
            return Ok(());
        }
    }
    Err(JcsError::NotJson)
}

fn hex4(bytes: &mut core::str::Bytes<'_>) -> Option<u32> {
    let mut unit = 0;
    for _ in 0..4 {
        unit = unit * 16 + char::from(bytes.next()?).to_digit(16)?;
    }
    Some(unit)
}

/// The canonical form of the JSON text `text`.
#[cfg(feature = "jcs")]
pub fn canonicalize(text: &str) -> Result<String, JcsError> {
    if !json::is_valid(text) {
        return Err(JcsError::NotJson);
    }
    check_text(text)?;
    let mut out = String::new();
    out.try_reserve(text.len()).map_err(|_| JcsError::NotJson)?;
    write_value(text.trim_matches(is_ws), 0, &mut out)?;
    Ok(out)
}

#[cfg(feature = "jcs")]
fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Write one (validated, trimmed) value.
#[cfg(feature = "jcs")]
fn write_value(v: &str, depth: usize, out: &mut String) -> Result<(), JcsError> {
    match v.as_bytes().first() {
        Some(b'{') => write_object(v, depth + 1, out),
        Some(b'[') => write_array(v, depth + 1, out),
        Some(b'"') => {
            json::write_string(&json::unescape(v).ok_or(JcsError::NotJson)?, out);
            Ok(())
        }
        Some(b't' | b'f' | b'n') => {
            out.push_str(v);
            Ok(())
        }
        Some(_) => write_number(v, out),
        None => Err(JcsError::NotJson),
    }
}

#[cfg(feature = "jcs")]
fn write_number(v: &str, out: &mut String) -> Result<(), JcsError> {
    let n: f64 = v.parse().map_err(|_| JcsError::NotJson)?;
    if !n.is_finite() {
        return Err(JcsError::NumberOutOfRange);
    }
    out.push_str(ryu_js::Buffer::new().format_finite(n));
    Ok(())
}

#[cfg(feature = "jcs")]
fn write_object(v: &str, depth: usize, out: &mut String) -> Result<(), JcsError> {
    if depth > MAX_REQUEST_DEPTH {
        return Err(JcsError::TooDeep);
    }
    let members = json::object_members(v).ok_or(JcsError::NotJson)?;
    let mut named = Vec::new();
    named
        .try_reserve_exact(members.len())
        .map_err(|_| JcsError::NotJson)?;
    for m in members {
        let name = json::unescape(m.key).ok_or(JcsError::NotJson)?;
        named.push((name, m.value.trim_matches(is_ws)));
    }
    named.sort_unstable_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    if named.windows(2).any(|w| matches!(w, [a, b] if a.0 == b.0)) {
        return Err(JcsError::DuplicateName);
    }
    out.push('{');
    for (i, (name, value)) in named.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        json::write_string(name, out);
        out.push(':');
        write_value(value, depth, out)?;
    }
    out.push('}');
    Ok(())
}

#[cfg(feature = "jcs")]
fn write_array(v: &str, depth: usize, out: &mut String) -> Result<(), JcsError> {
    if depth > MAX_REQUEST_DEPTH {
        return Err(JcsError::TooDeep);
    }
    let b = v.as_bytes();
    let skip = |mut i: usize| {
        while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
            i += 1;
        }
        i
    };
    out.push('[');
    let mut i = skip(1);
    if b.get(i) != Some(&b']') {
        loop {
            let end = json::value_end(b, i).ok_or(JcsError::NotJson)?;
            write_value(v.get(i..end).ok_or(JcsError::NotJson)?, depth, out)?;
            i = skip(end);
            match b.get(i) {
                Some(b',') => {
                    out.push(',');
                    i = skip(i + 1);
                }
                Some(b']') => break,
                _ => return Err(JcsError::NotJson),
            }
        }
    }
    out.push(']');
    Ok(())
}

#[cfg(all(test, feature = "jcs"))]
mod tests {
    use super::*;

    fn c(s: &str) -> String {
        canonicalize(s).unwrap()
    }

    // RFC 8785 section 3.2.2 and appendix B (number serialization samples).
    #[test]
    fn rfc_8785_vectors() {
        let input = r#"{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}"#;
        assert_eq!(
            c(input),
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
        // Section 3.2.3: sorting by UTF-16 code units.
        let sorting = "{\"\\u20ac\":\"Euro Sign\",\"\\r\":\"Carriage Return\",\"\\ufb33\":\"Hebrew Letter Dalet With Dagesh\",\"1\":\"One\",\"\\ud83d\\ude00\":\"Emoji: Grinning Face\",\"\\u0080\":\"Control\",\"\\u00f6\":\"Latin Small Letter O With Diaeresis\"}";
        let order: Vec<String> = json::object_members(&c(sorting))
            .unwrap()
            .iter()
            .map(|m| json::unescape(m.value).unwrap())
            .collect();
        assert_eq!(
            order,
            [
                "Carriage Return",
                "One",
                "Control",
                "Latin Small Letter O With Diaeresis",
                "Euro Sign",
                "Emoji: Grinning Face",
                "Hebrew Letter Dalet With Dagesh"
            ]
        );
        for (bits, text) in [
            (0x0000000000000000u64, "0"),
            (0x8000000000000000, "0"),
            (0x0000000000000001, "5e-324"),
            (0x8000000000000001, "-5e-324"),
            (0x7fefffffffffffff, "1.7976931348623157e+308"),
            (0xffefffffffffffff, "-1.7976931348623157e+308"),
            (0x4340000000000000, "9007199254740992"),
            (0xc340000000000000, "-9007199254740992"),
            (0x4430000000000000, "295147905179352830000"),
            (0x44b52d02c7e14af5, "9.999999999999997e+22"),
            (0x44b52d02c7e14af6, "1e+23"),
            (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
            (0x444b1ae4d6e2ef4e, "999999999999999700000"),
            (0x444b1ae4d6e2ef4f, "999999999999999900000"),
            (0x444b1ae4d6e2ef50, "1e+21"),
            (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
            (0x3eb0c6f7a0b5ed8d, "0.000001"),
            (0x41b3de4355555553, "333333333.3333332"),
            (0x41b3de4355555554, "333333333.33333325"),
            (0x41b3de4355555555, "333333333.3333333"),
            (0x41b3de4355555556, "333333333.3333334"),
            (0x41b3de4355555557, "333333333.33333343"),
            (0xbecbf647612f3696, "-0.0000033333333333333333"),
            (0x43143ff3c1cb0959, "1424953923781206.2"),
        ] {
            // Each sample's shortest round-trip text, written plainly, reads back to the same double.
            let f = f64::from_bits(bits);
            assert_eq!(c(&format!("{f:e}")), text, "{bits:#x}");
        }
    }

    #[test]
    fn key_order_and_whitespace_do_not_matter() {
        assert_eq!(
            c("{\"b\":1,\"a\":[ 2 , {\"d\":0,\"c\":0} ]}"),
            c("{ \"a\" : [2,{\"c\":0,\"d\":0}], \"b\" : 1.0 }")
        );
        assert_eq!(c(" [ ] "), "[]");
        assert_eq!(c("{}"), "{}");
        assert_eq!(c("\"\\u0041\""), "\"A\"");
        assert_eq!(c("-0"), "0");
        assert_eq!(c("1e2"), "100");
    }

    #[test]
    fn refuses_what_has_no_canonical_form() {
        assert_eq!(canonicalize("{"), Err(JcsError::NotJson));
        assert_eq!(canonicalize(""), Err(JcsError::NotJson));
        assert_eq!(canonicalize("1e400"), Err(JcsError::NumberOutOfRange));
        assert_eq!(
            canonicalize("{\"a\":1,\"\\u0061\":2}"),
            Err(JcsError::DuplicateName)
        );
        let deep = format!(
            "{}{}",
            "[".repeat(MAX_REQUEST_DEPTH + 1),
            "]".repeat(MAX_REQUEST_DEPTH + 1)
        );
        assert_eq!(canonicalize(&deep), Err(JcsError::TooDeep));
        let ok = format!(
            "{}{}",
            "[".repeat(MAX_REQUEST_DEPTH),
            "]".repeat(MAX_REQUEST_DEPTH)
        );
        assert_eq!(c(&ok), ok);
    }
}

/// The rules both builds apply before any canonicalizing (the wasm build
/// without the `jcs` feature applies only these and `is_valid`).
#[cfg(test)]
mod text_rules {
    use super::*;

    #[test]
    fn lone_surrogates_and_depth() {
        for ok in [
            "\"\\ud83d\\ude00\"",
            "\"\\\\ud800\"",
            "\"\\ufffd\"",
            "[\"[[[[\"]",
            "{\"\\u0022\\ud800\\udc00\":\"\\\\\"}",
        ] {
            assert_eq!(check_text(ok), Ok(()), "{ok}");
        }
        for lone in [
            "\"\\ud800\"",
            "\"\\udfff\"",
            "[\"\\ud800\",\"\\udc00\"]",
            "\"\\ud800\\u0041\"",
            "{\"\\udbff\":0}",
        ] {
            assert_eq!(check_text(lone), Err(JcsError::LoneSurrogate), "{lone}");
        }
        let deep = |n| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert_eq!(check_text(&deep(MAX_REQUEST_DEPTH)), Ok(()));
        assert_eq!(
            check_text(&deep(MAX_REQUEST_DEPTH + 1)),
            Err(JcsError::TooDeep)
        );
    }
}
