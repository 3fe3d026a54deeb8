//! A small JSON scanner: validates RFC 8259 text and hands out raw slices.
//!
//! Payloads stay JSON text end to end (JS serializes them with
//! `JSON.stringify`), so opening a token only needs to validate the body and
//! find a few members of the envelope; building a tree would be wasted work.
//! It is iterative, so a payload nested 10,000 deep costs at most a byte per
//! level on the heap and never overflows the wasm stack. It accepts what
//! `JSON.parse` accepts, lone surrogate escapes (`"\ud800"`) included.

#[cfg(feature = "edge")]
mod edge_scan;
#[cfg(all(feature = "edge", target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

/// Push without aborting: `None` when the allocator refuses (in wasm an
/// allocation failure is otherwise a trap), which callers read as unusable
/// input, so a hostile body fails closed instead of killing the instance.
#[cfg_attr(feature = "edge", inline(always))]
fn try_push<T>(v: &mut Vec<T>, x: T) -> Option<()> {
    v.try_reserve(1).ok()?;
    v.push(x);
    Some(())
}

// The scanner's helpers are inlined into it in the edge build (a 64 KiB
// payload scans in 84 µs instead of 116, measured in V8); the widget build,
// made for size, leaves that to the compiler.

/// Index of the first byte at or after `i` that is not JSON whitespace.
#[cfg_attr(feature = "edge", inline(always))]
fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// End (exclusive) of the string literal starting at `i` (which must be `"`).
#[cfg_attr(feature = "edge", inline(always))]
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    string_rest_end(b, i + 1)
}

/// [`string_end`] from `i`, inside the literal (after its opening quote).
#[cfg_attr(feature = "edge", inline(always))]
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
#[inline(always)]
fn plain_run(rest: &[u8]) -> Option<usize> {
    #[cfg(all(feature = "edge", target_arch = "wasm32", target_feature = "simd128"))]
    return simd128::plain_run(rest);
    #[allow(unreachable_code)]
    plain_run_scalar(rest)
}

/// [`plain_run`] a byte at a time.
#[inline(always)]
fn plain_run_scalar(rest: &[u8]) -> Option<usize> {
    rest.iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
}

#[cfg_attr(feature = "edge", inline(always))]
fn digits_end(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// End of the number starting at `i`: `-? (0 | [1-9][0-9]*) frac? exp?`.
#[cfg_attr(feature = "edge", inline(always))]
fn number_end(b: &[u8], mut i: usize) -> Option<usize> {
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

#[cfg_attr(feature = "edge", inline(always))]
fn literal_end(b: &[u8], i: usize, lit: &[u8]) -> Option<usize> {
    let end = i + lit.len();
    (b.get(i..end)? == lit).then_some(end)
}

/// After `{` or `,` inside an object: the key, `:`, and the index of the value.
#[cfg_attr(feature = "edge", inline(always))]
fn member_value_start(b: &[u8], i: usize) -> Option<usize> {
    let i = skip_ws(b, string_end(b, skip_ws(b, i))?);
    (b.get(i) == Some(&b':')).then(|| skip_ws(b, i + 1))
}

/// The open containers of [`value_end`], innermost last: in the edge build
/// a bit per level (1: an object), 64 levels in a word and deeper ones
/// spilled to the heap, so a scan allocates nothing until a payload nests 64
/// deep (a `Vec` of closers cost every seal and open an allocation and a
/// free). The widget build keeps the `Vec`, which is smaller (175 B gzipped).
#[cfg(feature = "edge")]
struct Nesting {
    top: u64,
    depth: usize,
    spill: Vec<u64>,
}

#[cfg(feature = "edge")]
impl Nesting {
    const fn new() -> Nesting {
        Nesting {
            top: 0,
            depth: 0,
            spill: Vec::new(),
        }
    }

    /// Open a container; `None` when the heap refuses room for a deeper level.
    #[cfg_attr(feature = "edge", inline(always))]
    fn push(&mut self, object: bool) -> Option<()> {
        if self.depth > 0 && self.depth % 64 == 0 {
            try_push(&mut self.spill, self.top)?;
            self.top = 0;
        }
        self.top = self.top << 1 | u64::from(object);
        self.depth += 1;
        Some(())
    }

    #[cfg_attr(feature = "edge", inline(always))]
    fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        self.top >>= 1;
        if self.depth > 0 && self.depth % 64 == 0 {
            self.top = self.spill.pop().unwrap_or(0);
        }
    }

    /// The closer of the innermost open container, if any.
    #[cfg_attr(feature = "edge", inline(always))]
    fn closer(&self) -> Option<u8> {
        (self.depth > 0).then_some(if self.top & 1 == 1 { b'}' } else { b']' })
    }
}

/// The widget build's [`Nesting`]: the closers themselves, a byte per level.
#[cfg(not(feature = "edge"))]
struct Nesting(Vec<u8>);

#[cfg(not(feature = "edge"))]
impl Nesting {
    const fn new() -> Nesting {
        Nesting(Vec::new())
    }

    fn push(&mut self, object: bool) -> Option<()> {
        try_push(&mut self.0, if object { b'}' } else { b']' })
    }

    fn pop(&mut self) {
        self.0.pop();
    }

    fn closer(&self) -> Option<u8> {
        self.0.last().copied()
    }
}

/// End (exclusive) of the JSON value that starts at the first non-whitespace
/// byte at or after `start`: by the edge build's scanner for compact text
/// (`edge_scan`), else by [`value_end_plain`].
#[inline(always)]
pub fn value_end(b: &[u8], start: usize) -> Option<usize> {
    #[cfg(feature = "edge")]
    return edge_scan::value_end(b, start);
    #[allow(unreachable_code)]
    value_end_plain(b, start)
}

/// [`value_end`] as the widget build scans (and the reference the edge
/// build's scanner is tested against). Iterative: the nesting lives in a
/// [`Nesting`].
pub fn value_end_plain(b: &[u8], start: usize) -> Option<usize> {
    let mut stack = Nesting::new();
    let mut i = skip_ws(b, start);
    loop {
        // A value starts at `i`.
        match *b.get(i)? {
            b'{' => {
                let j = skip_ws(b, i + 1);
                if b.get(j) == Some(&b'}') {
                    i = j + 1;
                } else {
                    stack.push(true)?;
                    i = member_value_start(b, j)?;
                    continue;
                }
            }
            b'[' => {
                let j = skip_ws(b, i + 1);
                if b.get(j) == Some(&b']') {
                    i = j + 1;
                } else {
                    stack.push(false)?;
                    i = j;
                    continue;
                }
            }
            b'"' => i = string_end(b, i)?,
            b't' => i = literal_end(b, i, b"true")?,
            b'f' => i = literal_end(b, i, b"false")?,
            b'n' => i = literal_end(b, i, b"null")?,
            b'-' | b'0'..=b'9' => i = number_end(b, i)?,
            _ => return None,
        }
        // A value ended at `i`: close containers until one continues.
        loop {
            let Some(close) = stack.closer() else {
                return Some(i);
            };
            i = skip_ws(b, i);
            match *b.get(i)? {
                b',' if close == b'}' => {
                    i = member_value_start(b, i + 1)?;
                    break;
                }
                b',' => {
                    i = skip_ws(b, i + 1);
                    break;
                }
                c if c == close => {
                    stack.pop();
                    i += 1;
                }
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

/// [`is_valid`] by [`value_end_plain`], whatever the build: the reference
/// for the edge build's scanner in the tests.
pub fn is_valid_plain(s: &str) -> bool {
    let b = s.as_bytes();
    value_end_plain(b, 0).is_some_and(|end| skip_ws(b, end) == b.len())
}

/// One member of a JSON object: the raw key literal (with its quotes) and the
/// raw value text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member<'a> {
    pub key: &'a str,
    pub value: &'a str,
}

/// How [`members_at`] scans a member's value: `value_end`, or (the edge
/// build's envelope) as an object whose members it keeps, on the same pass.
trait Values<'a> {
    fn value_end(&mut self, s: &'a str, key: &str, start: usize) -> Option<usize>;
}

/// Every value by [`value_end`].
struct Skip;

impl<'a> Values<'a> for Skip {
    #[inline(always)]
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
    #[inline(always)]
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
        let key_end = string_end(b, key_start)?;
        let value_start = member_value_start(b, key_start)?;
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
#[cfg(feature = "edge")]
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

/// Whether the JSON value `raw` is a number at least `t`: `None` when it is
/// not a number. Exact decimal arithmetic, no float parsing (Rust's costs
/// the edge build 15.4 KB gzipped, measured). JS compares the nearest double
/// instead; the two agree on every number `JSON.stringify` writes (the
/// shortest text of its double), and differ only for a longer text within
/// half a double's spacing below `t`, which JS rounds up to `t` (a tiny
/// negative, say, which JS reads as -0). `t` is a clock's second, so its
/// magnitude is far below `i64::MAX`.
#[cfg(feature = "edge")]
pub fn number_at_least(raw: &str, t: i64) -> Option<bool> {
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

    #[cfg(feature = "edge")]
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

    // The one-pass reading of the envelope finds what two passes find.
    #[cfg(feature = "edge")]
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
