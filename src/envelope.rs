//! The JSON inside a token.
//!
//! Outer envelope (the SDK's): `{"p":<inner>,"exp":<int>}` or with `,"b":<tag>`.
//! Inner purpose envelope (ng-mcp-ui's), so the two verified carriers never mix:
//! a view token `{"p":"v","d":<payload>}`, an MRTR requestState
//! `{"p":"r","d":<payload>,"o":<tool>}`. A raw `mint` puts the payload itself in `p`.
//! Keys are written in that order, compact, as `JSON.stringify` writes them.

use crate::json;

/// What goes into the outer `p` when sealing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inner<'a> {
    /// `mint`: the payload JSON as it is.
    Raw(&'a str),
    /// `seal`: `{"p":"v","d":payload}`.
    View(&'a str),
    /// `sealRequestState`: `{"p":"r","d":payload,"o":tool}`.
    RequestState { payload: &'a str, tool: &'a str },
}

/// Write the envelope JSON for `inner`, `exp` and an optional bind tag
/// (base64url, so it needs no escaping).
pub fn write(inner: Inner<'_>, exp: i64, bind_tag: Option<&str>, out: &mut String) {
    out.push_str("{\"p\":");
    match inner {
        Inner::Raw(payload) => out.push_str(payload),
        Inner::View(payload) => {
            out.push_str("{\"p\":\"v\",\"d\":");
            out.push_str(payload);
            out.push('}');
        }
        Inner::RequestState { payload, tool } => {
            out.push_str("{\"p\":\"r\",\"d\":");
            out.push_str(payload);
            out.push_str(",\"o\":");
            json::write_string(tool, out);
            out.push('}');
        }
    }
    out.push_str(",\"exp\":");
    json::write_int(exp, out);
    if let Some(tag) = bind_tag {
        out.push_str(",\"b\":\"");
        out.push_str(tag);
        out.push('"');
    }
    out.push('}');
}

/// The outer envelope of an opened body. Slices borrow the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Envelope<'a> {
    /// Raw JSON of `p`.
    pub p: &'a str,
    /// Unix seconds.
    pub exp: i64,
    /// Raw JSON of `b`, if present (any JSON type: it is judged at the bind step).
    pub b: Option<&'a str>,
}

/// Find the members named `names` (unescaped key equality, as `JSON.parse`
/// would see them). A repeated wanted key makes the object invalid: JS would
/// silently keep the last one, and a token should have one reading only.
fn pick<'a, const N: usize>(
    members: Vec<json::Member<'a>>,
    names: [&str; N],
) -> Option<[Option<&'a str>; N]> {
    let mut found = [None; N];
    for m in members {
        let key = if m.key.contains('\\') {
            std::borrow::Cow::Owned(json::unescape(m.key)?)
        } else {
            std::borrow::Cow::Borrowed(m.key.get(1..m.key.len() - 1)?)
        };
        if let Some(idx) = names.iter().position(|n| *n == key) {
            let slot = found.get_mut(idx)?;
            if slot.is_some() {
                return None;
            }
            *slot = Some(m.value);
        }
    }
    Some(found)
}

/// Parse the outer envelope: a JSON object with `p` and an integer `exp`.
/// `None` means malformed. The whole body is validated as JSON on the way,
/// so `p` is valid JSON text. Unknown members are ignored, as the SDK does.
pub fn parse(body: &str) -> Option<Envelope<'_>> {
    let [p, exp, b] = pick(json::object_members(body)?, ["p", "exp", "b"])?;
    Some(Envelope {
        p: p?,
        exp: json::parse_int(exp?)?,
        b,
    })
}

/// The purpose envelope found in `p`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opened<'a> {
    /// `{"p":"v","d":...}`, with the raw `d`.
    View { d: &'a str },
    /// `{"p":"r","d":...,"o":"tool"}`, with the raw `d` and the tool.
    RequestState { d: &'a str, tool: String },
}

/// Read the purpose envelope in a raw `p` taken from [`parse`], which has
/// validated it already (so the payload is skipped, not scanned twice). `None`
/// when `p` is not one (a raw `mint` token, an unknown purpose, a missing `d`
/// or `o`).
pub fn parse_inner(p: &str) -> Option<Opened<'_>> {
    if !p.starts_with('{') {
        return None;
    }
    // The edge build skips the payload it has just validated; the widget build,
    // budgeted in bytes and reading small tokens, validates it again instead.
    #[cfg(feature = "edge")]
    let members = json::valid_object_members(p)?;
    #[cfg(not(feature = "edge"))]
    let members = json::object_members(p)?;
    let [purpose, d, o] = pick(members, ["p", "d", "o"])?;
    match json::unescape(purpose?)?.as_str() {
        "v" => Some(Opened::View { d: d? }),
        "r" => Some(Opened::RequestState {
            d: d?,
            tool: json::unescape(o?)?,
        }),
        _ => None,
    }
}

/// The unescaped value of a JSON string, for the bind tag; `None` if not a string.
pub fn string_value(raw: &str) -> Option<String> {
    json::unescape(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(inner: Inner<'_>, exp: i64, tag: Option<&str>) -> String {
        let mut s = String::new();
        write(inner, exp, tag, &mut s);
        s
    }

    #[test]
    fn writes_the_sdk_layout() {
        assert_eq!(
            written(Inner::Raw("{\"a\":1}"), 5, None),
            "{\"p\":{\"a\":1},\"exp\":5}"
        );
        assert_eq!(
            written(Inner::View("[1]"), 5, Some("TAG")),
            "{\"p\":{\"p\":\"v\",\"d\":[1]},\"exp\":5,\"b\":\"TAG\"}"
        );
        assert_eq!(
            written(
                Inner::RequestState {
                    payload: "null",
                    tool: "a\"b"
                },
                -1,
                None
            ),
            "{\"p\":{\"p\":\"r\",\"d\":null,\"o\":\"a\\\"b\"},\"exp\":-1}"
        );
    }

    #[test]
    fn parses_what_it_writes() {
        let s = written(
            Inner::RequestState {
                payload: "{\"x\":[1]}",
                tool: "move",
            },
            99,
            Some("T"),
        );
        let env = parse(&s).unwrap();
        assert_eq!(env.exp, 99);
        assert_eq!(env.b, Some("\"T\""));
        assert_eq!(
            parse_inner(env.p),
            Some(Opened::RequestState {
                d: "{\"x\":[1]}",
                tool: "move".into()
            })
        );
    }

    #[test]
    fn refuses_bad_envelopes() {
        for body in [
            "[]",
            "{\"exp\":1}",
            "{\"p\":1}",
            "{\"p\":1,\"exp\":1.5}",
            "{\"p\":1,\"exp\":\"1\"}",
            "{\"p\":1,\"exp\":null}",
            "{\"p\":1,\"exp\":1e300}",
            "{\"p\":1,\"p\":2,\"exp\":1}",
            "{\"p\":1,\"\\u0070\":2,\"exp\":1}",
        ] {
            assert_eq!(parse(body), None, "{body}");
        }
        assert_eq!(parse("{\"p\":1,\"exp\":-3,\"x\":0}").unwrap().exp, -3);
    }

    #[test]
    fn inner_purposes() {
        assert_eq!(
            parse_inner("{\"p\":\"v\",\"d\":0}"),
            Some(Opened::View { d: "0" })
        );
        assert_eq!(
            parse_inner("{\"d\":0,\"p\":\"v\"}"),
            Some(Opened::View { d: "0" })
        );
        for p in [
            "{\"p\":\"v\"}",
            "{\"p\":\"x\",\"d\":0}",
            "{\"p\":\"r\",\"d\":0}",
            "{\"p\":\"r\",\"d\":0,\"o\":1}",
            "[1]",
            "\"v\"",
        ] {
            assert_eq!(parse_inner(p), None, "{p}");
        }
    }
}
