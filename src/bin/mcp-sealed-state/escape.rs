//! Token content made safe for a terminal. A token's payload and tool name are
//! the sender's bytes: a raw CSI (U+009B) or bidi override (U+202E) printed as
//! it is would drive the terminal or reorder what the reader sees.

/// What a terminal acts on: C0, DEL, C1 and the bidi controls.
fn is_terminal_control(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// JSON text with every terminal control inside a string written as a `\u`
/// escape, so it parses to the same value. Between values, a carriage return
/// (which would let the text overwrite its own line) becomes a space, and with
/// `one_line` so do newlines and tabs; none of these changes the value either.
pub fn json_for_terminal(json: &str, one_line: bool) -> String {
    let mut out = String::with_capacity(json.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in json.chars() {
        let outside = !in_string;
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        }
        if !is_terminal_control(c) {
            out.push(c);
        } else if outside && (c == '\r' || (one_line && matches!(c, '\n' | '\t'))) {
            out.push(' ');
        } else if outside && matches!(c, '\n' | '\t') {
            out.push(c);
        } else {
            // Only a string can hold one in valid JSON; elsewhere (text that
            // is not JSON) the escape still keeps it off the terminal.
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::json_for_terminal;

    #[test]
    fn escapes_inside_strings_and_keeps_the_value() {
        let json = "{\"\u{9b}k\":[\"a\u{202e}b\\\"\u{7f}\",1],\r\n\t\"c\":\"\\u001b\"}";
        for one_line in [false, true] {
            let out = json_for_terminal(json, one_line);
            assert!(
                !out.contains(['\u{9b}', '\u{202e}', '\u{7f}', '\r']),
                "{out}"
            );
            let a = serde_json::from_str::<serde_json::Value>(json).ok();
            let b = serde_json::from_str::<serde_json::Value>(&out).ok();
            assert!(a.is_some());
            assert_eq!(a, b);
            assert_eq!(out.contains('\n'), !one_line);
        }
        assert_eq!(json_for_terminal("\"\u{2066}\"", false), "\"\\u2066\"");
        assert_eq!(json_for_terminal("[1,\r\n2]", true), "[1,  2]");
        // Not JSON: still nothing raw reaches the terminal.
        assert_eq!(json_for_terminal("\u{1b}[2J", false), "\\u001b[2J");
    }
}
