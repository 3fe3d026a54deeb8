//! The edge build's [`super::value_end`]: the same grammar, written for the
//! compact text `JSON.stringify` makes, since every open scans a payload.
//!
//! Why a second scanner: the plain one calls `skip_ws` before and after
//! every token and scans keys 16 bytes at a time, which costs more than
//! their few bytes. (Both share `number_end`, which looks once at the byte
//! after a number's digits.) This one
//! looks at the byte after a token once, skips whitespace only where it
//! finds some, and scans keys a byte at a time. Measured in V8, CPU time of
//! the scan alone, plain -> this: the bench's 64 KiB payload 74.5 -> 53.7
//! µs; 6,000 members `"kN":N` 78.7 -> 59.9; 20,000 one-digit numbers in an
//! array 146.5 -> 104.7; 12,000 booleans 68.1 -> 51.0. (Digit runs read 8
//! at a time, SWAR, cost more than they saved on such numbers: 79.0 µs on
//! the 64 KiB payload.) The plain scanner stays for the widget build
//! (smaller) and is the reference: the native tests hold the two to each
//! other and to serde_json, the wasm tests run both.

use super::{literal_end, number_end, skip_ws, string_end, string_rest_end, Nesting};

/// End (exclusive) of the key literal at `i` (its `"`). A byte at a time:
/// keys are short, and for them this is faster than the 16-byte blocks of
/// [`string_end`], whose set-up costs more than a short key's bytes (the
/// 64 KiB payload's scan: 70.4 µs with blocks for keys, 53.7 with this,
/// measured in V8); string values, often longer, keep the blocks (the
/// first 16 bytes of every string a byte at a time: 61.7 µs, and 18-byte
/// strings twice as slow). From an escape on, the general scan.
#[inline(always)]
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

/// After `{` or `,` inside an object, at the key or whitespace before it:
/// the index after the key's `:` (the value, or whitespace before it).
#[inline(always)]
fn after_key(b: &[u8], mut i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        i = skip_ws(b, i);
    }
    i = key_end(b, i)?;
    if b.get(i) != Some(&b':') {
        i = skip_ws(b, i);
        if b.get(i) != Some(&b':') {
            return None;
        }
    }
    Some(i + 1)
}

/// End (exclusive) of the JSON value that starts at the first non-whitespace
/// byte at or after `start`. Iterative: the nesting lives in a [`Nesting`].
pub(super) fn value_end(b: &[u8], start: usize) -> Option<usize> {
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
