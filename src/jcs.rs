//! RFC 8785 canonical JSON (JCS), for the request digest (docs/format.md,
//! "q: the request digest"): object members sorted by the UTF-16 code units of their
//! names, no whitespace, strings escaped as `JSON.stringify` escapes them, and
//! numbers written as ECMAScript's `Number.prototype.toString` writes them.
//!
//! It reads JSON text with the crate's scanner in one pass, writing the
//! canonical text as it goes and stopping once that passes the caller's
//! bound. Request arguments are small and shallow, so the walk is recursive
//! with a depth limit rather than iterative.
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
    canonicalize_within(text, usize::MAX).map_err(|e| match e {
        Bounded::Jcs(e) => e,
        // Nothing is longer than usize::MAX; out of memory is unusable input.
        Bounded::TooLarge(_) => JcsError::NotJson,
    })
}

/// Why a request has no canonical form of at most the bound.
#[cfg(feature = "jcs")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bounded {
    /// It has no canonical form.
    Jcs(JcsError),
    /// Its canonical text passed the bound: this many bytes were written
    /// when that was found, and no more of it was read.
    TooLarge(usize),
}

#[cfg(feature = "jcs")]
impl From<JcsError> for Bounded {
    fn from(e: JcsError) -> Self {
        Bounded::Jcs(e)
    }
}

/// The canonical form of `text`, built in one pass over it and given up as
/// soon as it is longer than `max` bytes: an oversized request costs about
/// `max` bytes of work, not its own size. A text that breaks a rule
/// ([`JcsError`] other than `NotJson`) is refused as `NotJson` when it is
/// not JSON at all, as JSON text is judged first.
#[cfg(feature = "jcs")]
pub(crate) fn canonicalize_within(text: &str, max: usize) -> Result<String, Bounded> {
    let mut w = Writer {
        text,
        out: String::new(),
        max,
    };
    w.out
        .try_reserve(text.len().min(max.saturating_add(1)))
        .map_err(|_| Bounded::TooLarge(0))?;
    let b = text.as_bytes();
    let result =
        w.value(json::skip_ws(b, 0), 0)
            .and_then(|end| match json::skip_ws(b, end) == b.len() {
                true => Ok(()),
                false => Err(JcsError::NotJson.into()),
            });
    match result {
        Ok(()) => Ok(w.out),
        // A rule broken before the text ends: only if the text is JSON.
        Err(Bounded::Jcs(e)) if e != JcsError::NotJson && !json::is_valid(text) => {
            Err(JcsError::NotJson.into())
        }
        Err(e) => Err(e),
    }
}

/// The canonical form of a `serde_json` value, within `max` bytes, written
/// from the value itself (no JSON text of it is made first).
#[cfg(feature = "serde")]
pub(crate) fn canonicalize_value_within(
    value: &serde_json::Value,
    max: usize,
) -> Result<String, Bounded> {
    let mut w = Writer {
        text: "",
        out: String::new(),
        max,
    };
    w.json_value(value, 0)?;
    Ok(w.out)
}

/// The canonical text being written, and its bound.
#[cfg(feature = "jcs")]
struct Writer<'t> {
    text: &'t str,
    out: String,
    max: usize,
}

#[cfg(feature = "jcs")]
impl Writer<'_> {
    /// After each write: stop once the text is past the bound.
    fn bounded(&self) -> Result<(), Bounded> {
        match self.out.len() > self.max {
            true => Err(Bounded::TooLarge(self.out.len())),
            false => Ok(()),
        }
    }

    fn push(&mut self, s: &str) -> Result<(), Bounded> {
        self.out
            .try_reserve(s.len())
            .map_err(|_| Bounded::TooLarge(self.out.len()))?;
        self.out.push_str(s);
        self.bounded()
    }

    fn string(&mut self, s: &str) -> Result<(), Bounded> {
        self.out
            .try_reserve(s.len().saturating_add(2))
            .map_err(|_| Bounded::TooLarge(self.out.len()))?;
        json::write_string(s, &mut self.out);
        self.bounded()
    }

    fn number(&mut self, n: f64) -> Result<(), Bounded> {
        if !n.is_finite() {
            return Err(JcsError::NumberOutOfRange.into());
        }
        self.push(ryu_js::Buffer::new().format_finite(n))
    }

    /// One value at `i` (its first byte), `depth` containers deep; the
    /// index after it.
    fn value(&mut self, i: usize, depth: usize) -> Result<usize, Bounded> {
        let b = self.text.as_bytes();
        let not_json = Bounded::Jcs(JcsError::NotJson);
        match b.get(i) {
            Some(b'{') => self.object(i, depth + 1),
            Some(b'[') => self.array(i, depth + 1),
            Some(b'"') => {
                let (end, s) = self.string_at(i)?;
                self.string(&s)?;
                Ok(end)
            }
            Some(&c @ (b't' | b'f' | b'n')) => {
                let lit: &str = match c {
                    b't' => "true",
                    b'f' => "false",
                    _ => "null",
                };
                let end = json::literal_end(b, i, lit.as_bytes()).ok_or(not_json)?;
                self.push(lit)?;
                Ok(end)
            }
            Some(_) => {
                let end = json::number_end(b, i).ok_or(not_json)?;
                let n: f64 = self
                    .text
                    .get(i..end)
                    .and_then(|t| t.parse().ok())
                    .ok_or(not_json)?;
                self.number(n)?;
                Ok(end)
            }
            None => Err(not_json),
        }
    }

    /// The string literal at `i`: the index after it and its value. A lone
    /// surrogate escape has no form.
    fn string_at(&self, i: usize) -> Result<(usize, String), Bounded> {
        let not_json = Bounded::Jcs(JcsError::NotJson);
        let end = json::string_end(self.text.as_bytes(), i).ok_or(not_json)?;
        let literal = self.text.get(i..end).ok_or(not_json)?;
        check_string(&mut literal.get(1..).ok_or(not_json)?.bytes())?;
        Ok((end, json::unescape(literal).ok_or(not_json)?))
    }

    fn array(&mut self, i: usize, depth: usize) -> Result<usize, Bounded> {
        if depth > MAX_REQUEST_DEPTH {
            return Err(JcsError::TooDeep.into());
        }
        let b = self.text.as_bytes();
        self.push("[")?;
        let mut i = json::skip_ws(b, i + 1);
        if b.get(i) != Some(&b']') {
            loop {
                i = json::skip_ws(b, self.value(i, depth)?);
                match b.get(i) {
                    Some(b',') => {
                        self.push(",")?;
                        i = json::skip_ws(b, i + 1);
                    }
                    Some(b']') => break,
                    _ => return Err(JcsError::NotJson.into()),
                }
            }
        }
        self.push("]")?;
        Ok(i + 1)
    }

    /// Members are written as they come, then put in order in place when
    /// they came out of it (RFC 8785's order: UTF-16 code units of the names).
    fn object(&mut self, i: usize, depth: usize) -> Result<usize, Bounded> {
        if depth > MAX_REQUEST_DEPTH {
            return Err(JcsError::TooDeep.into());
        }
        let b = self.text.as_bytes();
        let not_json = Bounded::Jcs(JcsError::NotJson);
        self.push("{")?;
        let start = self.out.len();
        // Each member's name and where its `"name":value` text is in `out`.
        let mut members: Vec<(String, core::ops::Range<usize>)> = Vec::new();
        let mut i = json::skip_ws(b, i + 1);
        if b.get(i) != Some(&b'}') {
            loop {
                let (end, name) = self.string_at(i)?;
                i = json::skip_ws(b, end);
                if b.get(i) != Some(&b':') {
                    return Err(not_json);
                }
                if !members.is_empty() {
                    self.push(",")?;
                }
                let from = self.out.len();
                self.string(&name)?;
                self.push(":")?;
                i = json::skip_ws(b, self.value(json::skip_ws(b, i + 1), depth)?);
                members
                    .try_reserve(1)
                    .map_err(|_| Bounded::TooLarge(self.out.len()))?;
                members.push((name, from..self.out.len()));
                match b.get(i) {
                    Some(b',') => i = json::skip_ws(b, i + 1),
                    Some(b'}') => break,
                    _ => return Err(not_json),
                }
            }
        }
        self.order_members(start, &mut members)?;
        self.push("}")?;
        Ok(i + 1)
    }

    /// Put the members written from `start` (commas between them) in RFC
    /// 8785's order; a repeated name has no form. Text already in order, as
    /// a canonical request is, is left as written.
    fn order_members(
        &mut self,
        start: usize,
        members: &mut [(String, core::ops::Range<usize>)],
    ) -> Result<(), Bounded> {
        let utf16 = |a: &str, b: &str| a.encode_utf16().cmp(b.encode_utf16());
        if members
            .windows(2)
            .all(|w| matches!(w, [a, b] if utf16(&a.0, &b.0).is_lt()))
        {
            return Ok(());
        }
        members.sort_unstable_by(|a, b| utf16(&a.0, &b.0));
        if members
            .windows(2)
            .any(|w| matches!(w, [a, b] if a.0 == b.0))
        {
            return Err(JcsError::DuplicateName.into());
        }
        let mut ordered = String::new();
        ordered
            .try_reserve(self.out.len() - start)
            .map_err(|_| Bounded::TooLarge(self.out.len()))?;
        for (n, (_, range)) in members.iter().enumerate() {
            if n > 0 {
                ordered.push(',');
            }
            ordered.push_str(self.out.get(range.clone()).unwrap_or_default());
        }
        self.out.truncate(start);
        self.push(&ordered)
    }

    /// A `serde_json` value: its strings are Rust strings (no lone
    /// surrogate) and its objects have each name once.
    #[cfg(feature = "serde")]
    fn json_value(&mut self, v: &serde_json::Value, depth: usize) -> Result<(), Bounded> {
        use serde_json::Value;
        match v {
            Value::Null => self.push("null"),
            Value::Bool(true) => self.push("true"),
            Value::Bool(false) => self.push("false"),
            Value::Number(n) => self.number(n.as_f64().unwrap_or(f64::INFINITY)),
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                if depth + 1 > MAX_REQUEST_DEPTH {
                    return Err(JcsError::TooDeep.into());
                }
                self.push("[")?;
                for (n, item) in items.iter().enumerate() {
                    if n > 0 {
                        self.push(",")?;
                    }
                    self.json_value(item, depth + 1)?;
                }
                self.push("]")
            }
            Value::Object(map) => {
                if depth + 1 > MAX_REQUEST_DEPTH {
                    return Err(JcsError::TooDeep.into());
                }
                let mut names: Vec<&String> = Vec::new();
                names
                    .try_reserve_exact(map.len())
                    .map_err(|_| Bounded::TooLarge(self.out.len()))?;
                names.extend(map.keys());
                names.sort_unstable_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
                self.push("{")?;
                for (n, name) in names.into_iter().enumerate() {
                    if n > 0 {
                        self.push(",")?;
                    }
                    self.string(name)?;
                    self.push(":")?;
                    self.json_value(map.get(name).unwrap_or(&Value::Null), depth + 1)?;
                }
                self.push("}")
            }
        }
    }
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
