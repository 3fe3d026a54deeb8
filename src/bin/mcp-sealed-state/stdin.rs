//! Standard input, bounded: `cat huge | mcp-sealed-state seal -` must not hold
//! all of it in memory before the size checks refuse it.

use std::io::Read;

/// A payload read from stdin may be at most this long (documented in `--help`).
pub const MAX_PAYLOAD_BYTES: usize = 1 << 20;

/// What a token on stdin may carry beyond the token limit: its line ending (`\r\n`).
pub const LINE_ENDING_BYTES: usize = 2;

/// All of standard input as UTF-8, refused once it holds more than `limit`
/// bytes (at most `limit + 1` are read).
pub fn read_at_most(limit: usize) -> Result<String, String> {
    let bytes = read_bounded(std::io::stdin().lock(), limit, "standard input")?;
    String::from_utf8(bytes).map_err(|_| "standard input is not UTF-8 text".to_string())
}

/// All of `input`, refused once it holds more than `limit` bytes (at most
/// `limit + 1` are read, so `/dev/zero` or a huge file fails at once).
/// `what` names the input in messages: never a path, which may be a key
/// pasted in its place.
pub fn read_bounded(input: impl Read, limit: usize, what: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    input
        .take(u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {what}: {e}"))?;
    if bytes.len() > limit {
        return Err(format!(
            "{what} holds more than {limit} bytes, the limit here (see --help)"
        ));
    }
    Ok(bytes)
}

/// Drop one trailing line ending (`\n` or `\r\n`), which `echo` or a
/// terminal adds and is no part of a token or a secret; nothing else.
pub fn drop_line_ending(text: &mut String) {
    if text.ends_with("\r\n") {
        text.truncate(text.len() - 2);
    } else if text.ends_with('\n') {
        text.truncate(text.len() - 1);
    }
}
