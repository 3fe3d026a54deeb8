//! RFC 8785 canonical JSON (JCS), for the request digest (SPEC "Request
//! binding (MRTR)"): object members sorted by the UTF-16 code units of their
//! names, no whitespace, strings escaped as `JSON.stringify` escapes them, and
//! numbers written as ECMAScript's `Number.prototype.toString` writes them.
//!
//! It reads JSON text with the crate's scanner, so the same code serves the
//! wasm build and native Rust. Request arguments are small and shallow, so
//! the walk is recursive with a depth limit rather than iterative.

use crate::json;

/// Deepest nesting of arrays and objects a request may have.
pub const MAX_DEPTH: usize = 64;

/// Default bound of a request's canonical UTF-8 text, bytes (JS
/// `maxRequestBytes`): a client's arguments past it are refused before they
/// are copied or hashed.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 64 * 1024;

/// Why a JSON text has no canonical form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JcsError {
    /// Not one JSON text.
    NotJson,
    /// A number too large for an IEEE 754 double (RFC 8785 has no form for it).
    NumberOutOfRange,
    /// An object names a member twice (RFC 8785 requires unique names).
    DuplicateName,
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

impl core::fmt::Display for JcsError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            JcsError::NotJson => "the request is not valid JSON text",
            JcsError::NumberOutOfRange => "the request holds a number beyond the double range",
            JcsError::DuplicateName => "the request holds an object with a repeated member name",
            JcsError::TooDeep => "the request is nested more than 64 levels deep",
        })
    }
}

impl std::error::Error for JcsError {}

/// The text the request digest is taken over: its RFC 8785 form with the
/// `jcs` feature; without it (the wasm build, whose JS glue canonicalizes
/// with the engine's own number formatting, which saves the float tables),
/// the JSON text as given. Text that is not canonical then only fails to
/// match: it fails closed.
pub fn request_form(text: &str) -> Result<std::borrow::Cow<'_, str>, JcsError> {
    #[cfg(feature = "jcs")]
    return canonicalize(text).map(std::borrow::Cow::Owned);
    #[cfg(not(feature = "jcs"))]
    return if json::is_valid(text) {
        Ok(std::borrow::Cow::Borrowed(text))
    } else {
        Err(JcsError::NotJson)
    };
}

/// The canonical form of the JSON text `text`.
#[cfg(feature = "jcs")]
pub fn canonicalize(text: &str) -> Result<String, JcsError> {
    if !json::is_valid(text) {
        return Err(JcsError::NotJson);
    }
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
    if depth > MAX_DEPTH {
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
    if depth > MAX_DEPTH {
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
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(canonicalize(&deep), Err(JcsError::TooDeep));
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert_eq!(c(&ok), ok);
    }
}
