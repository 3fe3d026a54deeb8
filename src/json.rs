//! A small JSON scanner: validates RFC 8259 text and hands out raw slices.
//!
//! Payloads stay JSON text end to end (JS serializes them with
//! `JSON.stringify`), so opening a token only needs to validate the body and
//! find a few members of the envelope; building a tree would be wasted work.
//! It is iterative, so a payload nested 10,000 deep costs at most a bit per
//! level on the heap and never overflows the wasm stack. It accepts what
//! `JSON.parse` accepts, lone surrogate escapes (`"\ud800"`) included.
//!
//! The scan is shaped for the compact text `JSON.stringify` writes: it looks
//! at the byte after a token once and skips whitespace only where it finds
//! some, since every open scans a whole payload.

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

/// Push without aborting: `None` when the allocator refuses (in wasm an
/// allocation failure is otherwise a trap), which callers read as unusable
/// input, so a hostile body fails closed instead of killing the instance.
#[inline]
fn try_push<T>(v: &mut Vec<T>, x: T) -> Option<()> {
    v.try_reserve(1).ok()?;
    v.push(x);
    Some(())
}

// The scanner's helpers are marked for inlining, and each build's
// optimisation level decides: the edge build (opt-level 3) inlines where
// it pays, the widget build (opt-level z) keeps most of them as calls.

/// Index of the first byte at or after `i` that is not JSON whitespace.
#[inline]
pub(crate) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// End (exclusive) of the string literal starting at `i` (which must be `"`).
#[inline]
pub(crate) fn string_end(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    string_rest_end(b, i + 1)
}

/// [`string_end`] from `i`, inside the literal (after its opening quote).
#[inline]
fn string_rest_end(b: &[u8], mut i: usize) -> Option<usize> {
    loop {
        // Most bytes are plain: find the next one that is not in one tight loop.
        i += plain_run(b.get(i..)?)?;
        match *b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => match *b.get(i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'u' => {
                    let hex = b.get(i + 2..i + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    i += 6;
                }
                _ => return None,
            },
            _ => return None, // a control character
        }
    }
}

/// Index in `rest` of its first byte that ends a string's plain run (`"`,
/// `\` or a control character), or `None` when there is none.
#[inline]
pub fn plain_run(rest: &[u8]) -> Option<usize> {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return simd128::plain_run(rest);
    #[allow(unreachable_code)]
    plain_run_scalar(rest)
}

/// [`plain_run`] a byte at a time: the kernel without SIMD128, and the
/// reference the SIMD128 one is tested against.
#[inline]
pub fn plain_run_scalar(rest: &[u8]) -> Option<usize> {
    rest.iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
}

/// End (exclusive) of the key literal at `i` (its `"`). A byte at a time:
/// keys are short, and the set-up of [`plain_run`]'s blocks costs more than
/// their bytes. From an escape on, the general scan.
#[inline]
fn key_end(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    loop {
        match *b.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => return string_rest_end(b, j),
            c if c < 0x20 => return None,
            _ => j += 1,
        }
    }
}

/// At the end of a key (or whitespace after it): the index after its `:`.
#[inline]
fn colon_end(b: &[u8], mut i: usize) -> Option<usize> {
    if b.get(i) != Some(&b':') {
        i = skip_ws(b, i);
        if b.get(i) != Some(&b':') {
            return None;
        }
    }
    Some(i + 1)
}

/// After `{` or `,` inside an object, at the key or whitespace before it:
/// the index after the key's `:` (the value, or whitespace before it).
#[inline]
fn after_key(b: &[u8], mut i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        i = skip_ws(b, i);
    }
    colon_end(b, key_end(b, i)?)
}

#[inline]
fn digits_end(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// End of the number starting at `i`: `-? (0 | [1-9][0-9]*) frac? exp?`.
#[inline]
pub(crate) fn number_end(b: &[u8], mut i: usize) -> Option<usize> {
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match *b.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits_end(b, i + 1),
        _ => return None,
    }
    // Most numbers end here: one look at the next byte.
    match b.get(i) {
        Some(b'.') => {
            let end = digits_end(b, i + 1);
            if end == i + 1 {
                return None;
            }
            i = end;
            if !matches!(b.get(i), Some(b'e' | b'E')) {
                return Some(i);
            }
        }
        Some(b'e' | b'E') => {}
        _ => return Some(i),
    }
    // The exponent, at `i`.
    i += 1;
    if let Some(b'+' | b'-') = b.get(i) {
        i += 1;
    }
    let end = digits_end(b, i);
    (end > i).then_some(end)
}

#[inline]
pub(crate) fn literal_end(b: &[u8], i: usize, lit: &[u8]) -> Option<usize> {
    let end = i + lit.len();
    (b.get(i..end)? == lit).then_some(end)
}

/// The open containers of [`value_end`], innermost last: a bit per level
/// (1: an object), 64 levels in a word and deeper ones spilled to the heap,
/// so a scan allocates nothing until a payload nests 64 deep.
struct Nesting {
    top: u64,
    depth: usize,
    spill: Vec<u64>,
}

impl Nesting {
    const fn new() -> Nesting {
        Nesting {
            top: 0,
            depth: 0,
            spill: Vec::new(),
        }
    }

    /// Open a container; `None` when the heap refuses room for a deeper level.
    #[inline]
    fn push(&mut self, object: bool) -> Option<()> {
        if self.depth > 0 && self.depth % 64 == 0 {
            try_push(&mut self.spill, self.top)?;
            self.top = 0;
        }
        self.top = self.top << 1 | u64::from(object);
        self.depth += 1;
        Some(())
    }

    #[inline]
    fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        self.top >>= 1;
        if self.depth > 0 && self.depth % 64 == 0 {
            self.top = self.spill.pop().unwrap_or(0);
        }
    }

    /// The closer of the innermost open container, if any.
    #[inline]
    fn closer(&self) -> Option<u8> {
        (self.depth > 0).then_some(if self.top & 1 == 1 { b'}' } else { b']' })
    }
}

/// End (exclusive) of the JSON value that starts at the first non-whitespace
/// byte at or after `start`. Iterative: the nesting lives in a [`Nesting`].
pub fn value_end(b: &[u8], start: usize) -> Option<usize> {
    let mut stack = Nesting::new();
    let mut i = start;
    loop {
        // A value starts at `i`, or whitespace before it.
        match *b.get(i)? {
            b'"' => i = string_end(b, i)?,
            b'0'..=b'9' | b'-' => i = number_end(b, i)?,
            b'{' => {
                i = skip_ws(b, i + 1);
                if b.get(i) == Some(&b'}') {
                    i += 1;
                } else {
                    stack.push(true)?;
                    i = after_key(b, i)?;
                    continue;
                }
            }
            b'[' => {
                i = skip_ws(b, i + 1);
                if b.get(i) == Some(&b']') {
                    i += 1;
                } else {
                    stack.push(false)?;
                    continue;
                }
            }
            b't' => i = literal_end(b, i, b"true")?,
            b'f' => i = literal_end(b, i, b"false")?,
            b'n' => i = literal_end(b, i, b"null")?,
            b' ' | b'\t' | b'\n' | b'\r' => {
                i = skip_ws(b, i + 1);
                continue;
            }
            _ => return None,
        }
        // A value ended at `i`: close containers until one continues.
        loop {
            let Some(close) = stack.closer() else {
                return Some(i);
            };
            match *b.get(i)? {
                b',' => {
                    i = if close == b'}' {
                        after_key(b, i + 1)?
                    } else {
                        i + 1
                    };
                    break;
                }
                c if c == close => {
                    stack.pop();
                    i += 1;
                }
                b' ' | b'\t' | b'\n' | b'\r' => i = skip_ws(b, i + 1),
                _ => return None,
            }
        }
    }
}

/// Whether `s` is one complete JSON text (a value with optional whitespace).
pub fn is_valid(s: &str) -> bool {
    let b = s.as_bytes();
    value_end(b, 0).is_some_and(|end| skip_ws(b, end) == b.len())
}

/// One member of a JSON object: the raw key literal (with its quotes) and the
/// raw value text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member<'a> {
    /// The key literal, quotes included.
    pub key: &'a str,
    /// The value's JSON text.
    pub value: &'a str,
}

/// How [`members_at`] scans a member's value: `value_end`, or (the
/// envelope's `p`) as an object whose members it keeps, on the same pass.
trait Values<'a> {
    fn value_end(&mut self, s: &'a str, key: &str, start: usize) -> Option<usize>;
}

/// Every value by [`value_end`].
struct Skip;

impl<'a> Values<'a> for Skip {
    #[inline]
    fn value_end(&mut self, s: &'a str, _: &str, start: usize) -> Option<usize> {
        value_end(s.as_bytes(), start)
    }
}

/// Where [`members_at`] puts the members it finds, in order.
pub trait Sink<'a> {
    /// `None` stops the scan (the object is refused).
    fn member(&mut self, member: Member<'a>) -> Option<()>;
}

impl<'a> Sink<'a> for Vec<Member<'a>> {
    #[inline]
    fn member(&mut self, member: Member<'a>) -> Option<()> {
        try_push(self, member)
    }
}

/// The members of the JSON object at `i` of `s` (at its `{`), handed to
/// `sink` in order; returns the index after its `}`. Each member's value is
/// scanned by `values`.
fn members_at<'a, V: Values<'a>, S: Sink<'a>>(
    s: &'a str,
    mut i: usize,
    values: &mut V,
    sink: &mut S,
) -> Option<usize> {
    let b = s.as_bytes();
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        let key_start = skip_ws(b, i);
        let key_end = key_end(b, key_start)?;
        let value_start = skip_ws(b, colon_end(b, key_end)?);
        let key = s.get(key_start..key_end)?;
        let value_end = values.value_end(s, key, value_start)?;
        sink.member(Member {
            key,
            value: s.get(value_start..value_end)?,
        })?;
        i = skip_ws(b, value_end);
        match *b.get(i)? {
            b',' => i += 1,
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// The members of the JSON object that is the whole of `s`, in order, or
/// `None` when `s` is not exactly one valid JSON object.
pub fn object_members(s: &str) -> Option<Vec<Member<'_>>> {
    let mut members = Vec::new();
    object_members_into(s, &mut members)?;
    Some(members)
}

/// [`object_members`] handed to `sink` as they are found (no list of them
/// for a sink that keeps what it needs); `None` when `s` is not exactly one
/// valid JSON object.
pub fn object_members_into<'a, S: Sink<'a>>(s: &'a str, sink: &mut S) -> Option<()> {
    let b = s.as_bytes();
    let end = members_at(s, skip_ws(b, 0), &mut Skip, sink)?;
    (skip_ws(b, end) == b.len()).then_some(())
}

/// [`object_members`] of `s` handed to `outer` as found, and, on the same
/// pass, the members of the value of its member whose key literal is exactly
/// `parent` (quotes included), when that value is an object, to `inner`.
/// Returns whether `inner` was told of exactly one such object (with none,
/// or a repeated `parent`, the caller reads that value on its own). One pass
/// instead of two over a payload that is nearly all of `s`, and no
/// allocation with sinks that keep what they need as it comes.
pub fn object_members_nested<'a, O: Sink<'a>, I: Sink<'a>>(
    s: &'a str,
    parent: &str,
    outer: &mut O,
    inner: &mut I,
) -> Option<bool> {
    /// Hands the members of the `parent` member's object value to `inner`.
    struct Keep<'k, I> {
        parent: &'k str,
        inner: &'k mut I,
        seen: usize,
    }
    impl<'a, I: Sink<'a>> Values<'a> for Keep<'_, I> {
        fn value_end(&mut self, s: &'a str, key: &str, start: usize) -> Option<usize> {
            if key != self.parent || s.as_bytes().get(start) != Some(&b'{') {
                return value_end(s.as_bytes(), start);
            }
            self.seen += 1;
            members_at(s, start, &mut Skip, self.inner)
        }
    }
    let b = s.as_bytes();
    let mut keep = Keep {
        parent,
        inner,
        seen: 0,
    };
    let end = members_at(s, skip_ws(b, 0), &mut keep, outer)?;
    (skip_ws(b, end) == b.len()).then_some(keep.seen == 1)
}

/// The value of a JSON string literal (with quotes), as `JSON.parse` gives it,
/// except that a lone surrogate becomes U+FFFD (a Rust string cannot hold it;
/// wasm-bindgen maps JS lone surrogates the same way). `None` if `raw` is not a
/// valid string literal.
pub fn unescape(raw: &str) -> Option<String> {
    let b = raw.as_bytes();
    if string_end(b, 0)? != b.len() {
        return None;
    }
    let mut rest = raw.get(1..raw.len() - 1)?;
    // An unescaped string is never longer than its literal: one reservation.
    let mut out = String::new();
    out.try_reserve_exact(rest.len()).ok()?;
    while let Some(pos) = rest.bytes().position(|c| c == b'\\') {
        out.push_str(rest.get(..pos)?);
        let esc = *rest.as_bytes().get(pos + 1)?;
        rest = rest.get(pos + 2..)?;
        out.push(match esc {
            b'u' => {
                let (c, tail) = unicode_escape(rest)?;
                rest = tail;
                c
            }
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            other => char::from(other), // '"', '\\', '/'
        });
    }
    out.push_str(rest);
    Some(out)
}

/// The char of a `\uXXXX` escape whose hex digits start `s` (joined with a
/// following low-surrogate escape into one char), and the rest of `s`.
fn unicode_escape(s: &str) -> Option<(char, &str)> {
    let hex = |s: &str| u32::from_str_radix(s.get(..4)?, 16).ok();
    let unit = hex(s)?;
    let rest = s.get(4..)?;
    if (0xD800..0xDC00).contains(&unit) {
        if let Some(low) = rest
            .strip_prefix("\\u")
            .and_then(hex)
            .filter(|u| (0xDC00..0xE000).contains(u))
        {
            let c = char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))?;
            return Some((c, rest.get(6..)?));
        }
    }
    Some((char::from_u32(unit).unwrap_or('\u{FFFD}'), rest))
}

/// Append `s` as a JSON string literal, byte for byte as `JSON.stringify`
/// writes it: `"`, `\` and control characters escaped, nothing else.
pub fn write_string(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push('"');
    let mut rest = s;
    // The bytes that need escaping are ASCII, so every split below is on a
    // char boundary and the `else` never runs.
    while let Some(pos) = rest
        .bytes()
        .position(|c| c < 0x20 || c == b'"' || c == b'\\')
    {
        let (Some(plain), Some(&c), Some(tail)) = (
            rest.get(..pos),
            rest.as_bytes().get(pos),
            rest.get(pos + 1..),
        ) else {
            break;
        };
        out.push_str(plain);
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            _ => {
                out.push_str("\\u00");
                out.push(char::from(
                    HEX.get(usize::from(c >> 4)).copied().unwrap_or(b'0'),
                ));
                out.push(char::from(
                    HEX.get(usize::from(c & 0xf)).copied().unwrap_or(b'0'),
                ));
            }
        }
        rest = tail;
    }
    out.push_str(rest);
    out.push('"');
}

/// Parse a JSON number literal that is a plain integer (`-?[0-9]+`, no
/// fraction or exponent) into an `i64`. `None` for anything else.
pub fn parse_int(raw: &str) -> Option<i64> {
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    raw.parse().ok()
}

/// Append the decimal form of `n`, as `String(n)` writes an integer.
pub fn write_int(n: i64, out: &mut String) {
    if n < 0 {
        out.push('-');
    }
    let mut buf = [0u8; 20];
    let mut pos = buf.len();
    let mut v = n.unsigned_abs();
    loop {
        pos -= 1;
        if let Some(slot) = buf.get_mut(pos) {
            *slot = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 || pos == 0 {
            break;
        }
    }
    for &d in buf.get(pos..).unwrap_or(&[]) {
        out.push(char::from(d));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_what_json_parse_accepts() {
        for s in [
            "0",
            "-0",
            "1.5",
            "-1e+21",
            "1E-7",
            "true",
            "false",
            "null",
            "\"\"",
            "\"\\ud800\"",
            "\"\\u00e9\\n\\\"\\\\\\/\"",
            "[]",
            "{}",
            " [ 1 , { \"a\" : [ ] } ] ",
            "{\"a\":{\"b\":[1,2,{\"c\":null}]},\"d\":\"é😀\"}",
        ] {
            assert!(is_valid(s), "{s}");
        }
    }

    #[test]
    fn refuses_what_json_parse_refuses() {
        for s in [
            "",
            " ",
            "01",
            "1.",
            ".5",
            "+1",
            "1e",
            "-",
            "tru",
            "nul",
            "\"\\x\"",
            "\"\\u12\"",
            "\"a\nb\"",
            "\"abc",
            "[1,]",
            "[,1]",
            "{\"a\"}",
            "{\"a\":}",
            "{\"a\":1,}",
            "{1:2}",
            "[1 2]",
            "{} {}",
            "[",
            "{",
            "}",
            "NaN",
            "'a'",
        ] {
            assert!(!is_valid(s), "{s:?}");
        }
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert!(is_valid(&deep));
        let unbalanced = "[".repeat(100_000) + &"]".repeat(99_999);
        assert!(!is_valid(&unbalanced));
        let objects = "{\"a\":".repeat(50_000) + "1" + &"}".repeat(50_000);
        assert!(is_valid(&objects));
    }

    // Objects and arrays mixed, across the 64-level words of `Nesting`:
    // each closer must match its own opener at every depth.
    #[test]
    fn nesting_mixed_across_words() {
        for depth in [1, 63, 64, 65, 127, 128, 129, 200] {
            let object = |level: usize| level % 3 == 0;
            let mut open = String::new();
            let mut close = String::new();
            for level in 0..depth {
                open.push_str(if object(level) { "{\"k\":" } else { "[" });
            }
            for level in (0..depth).rev() {
                close.push(if object(level) { '}' } else { ']' });
            }
            assert!(is_valid(&format!("{open}0{close}")), "{depth}");
            for wrong in 0..depth {
                let mut bad = close.clone().into_bytes();
                bad[wrong] = if bad[wrong] == b'}' { b']' } else { b'}' };
                let bad = String::from_utf8(bad).unwrap();
                assert!(!is_valid(&format!("{open}0{bad}")), "{depth} {wrong}");
            }
        }
    }

    #[test]
    fn agrees_with_serde_json_on_valid_text() {
        // serde_json refuses lone surrogates that JSON.parse accepts; skip those.
        for s in [
            "{\"k\":[1,-2.5e3,\"x\",null,true,{}]}",
            "[[[[]]]]",
            "\"\\u20ac\"",
        ] {
            assert_eq!(
                is_valid(s),
                serde_json::from_str::<serde_json::Value>(s).is_ok()
            );
        }
    }

    #[test]
    fn members_are_raw_slices_in_order() {
        let m = object_members(" {\"p\" : {\"x\":[1,2]} ,\"exp\":17, \"b\":\"t\"} ").unwrap();
        assert_eq!(
            m,
            vec![
                Member {
                    key: "\"p\"",
                    value: "{\"x\":[1,2]}"
                },
                Member {
                    key: "\"exp\"",
                    value: "17"
                },
                Member {
                    key: "\"b\"",
                    value: "\"t\""
                },
            ]
        );
        assert_eq!(object_members("{}").unwrap(), vec![]);
        assert!(object_members("[]").is_none());
        assert!(object_members("{\"a\":1} x").is_none());
    }

    #[test]
    fn unescape_follows_json_parse() {
        assert_eq!(unescape("\"p\"").unwrap(), "p");
        assert_eq!(unescape("\"\\u0070\"").unwrap(), "p");
        assert_eq!(unescape("\"\\ud83d\\ude00\"").unwrap(), "😀");
        assert_eq!(unescape("\"\\ud800\"").unwrap(), "\u{FFFD}");
        assert_eq!(unescape("\"a\\tb\\\\\\/\\\"\"").unwrap(), "a\tb\\/\"");
        assert!(unescape("\"a").is_none());
        assert!(unescape("\"a\"b").is_none());
    }

    #[test]
    fn write_string_matches_json_stringify() {
        let mut out = String::new();
        write_string("a\"b\\c\u{0}\u{1f}\n\u{2028}é😀/", &mut out);
        assert_eq!(out, "\"a\\\"b\\\\c\\u0000\\u001f\\n\u{2028}é😀/\"");
    }

    #[test]
    fn integers() {
        assert_eq!(parse_int("0"), Some(0));
        assert_eq!(parse_int("-12"), Some(-12));
        assert_eq!(parse_int("1764500600"), Some(1_764_500_600));
        for bad in [
            "",
            "-",
            "01",
            "1.0",
            "1e3",
            "1e300",
            "99999999999999999999",
            "\"1\"",
            "null",
        ] {
            assert_eq!(parse_int(bad), None, "{bad}");
        }
        for n in [0, 7, -7, 1_764_500_600, i64::MAX, i64::MIN] {
            let mut s = String::new();
            write_int(n, &mut s);
            assert_eq!(s, n.to_string());
        }
    }

    // The one-pass reading of the envelope finds what two passes find.
    #[test]
    fn nested_members_agree_with_two_passes() {
        for s in [
            "{\"p\":{\"p\":\"v\",\"d\":{\"x\":[1,{\"y\":2}]}},\"exp\":1}",
            " { \"a\" : 1 , \"p\" : { \"q\" : [ ] , \"r\" : { } } , \"b\":\"t\" } ",
            "{\"p\":{},\"exp\":1}",
            "{\"p\":[{\"a\":1}],\"exp\":1}",
            "{\"p\":\"s\",\"exp\":1}",
            "{\"x\":{\"a\":1},\"p\":{\"b\":{\"c\":3}}}",
            "{\"\\u0070\":{\"a\":1}}",
            "{\"p\":{\"a\":1},\"p\":{\"b\":2}}",
            "{}",
        ] {
            let (mut outer, mut inner) = (Vec::new(), Vec::new());
            let once = object_members_nested(s, "\"p\"", &mut outer, &mut inner).unwrap();
            let inner = once.then_some(inner);
            assert_eq!(outer, object_members(s).unwrap(), "{s}");
            let p = outer.iter().find(|m| m.key == "\"p\"").map(|m| m.value);
            match p.filter(|v| v.starts_with('{')) {
                Some(v) if outer.iter().filter(|m| m.key == "\"p\"").count() == 1 => {
                    assert_eq!(inner.unwrap(), object_members(v).unwrap(), "{s}")
                }
                Some(_) => assert_eq!(inner, None, "{s}"),
                None => assert_eq!(inner, None, "{s}"),
            }
        }
        for bad in [
            "{\"p\":{\"a\":}}",
            "{\"p\":{\"a\":1}",
            "[1]",
            "{\"p\":1} x",
            "",
        ] {
            let (mut outer, mut inner) = (Vec::new(), Vec::new());
            let found = object_members_nested(bad, "\"p\"", &mut outer, &mut inner);
            assert_eq!(found, None, "{bad}");
        }
    }
}
