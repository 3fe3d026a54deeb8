//! The JSON inside a token.
//!
//! Outer envelope (the SDK's): `{"p":<inner>,"exp":<int>}` or with `,"b":<tag>`.
//! Inner purpose envelope (ng-mcp-ui's), so the two verified carriers never mix:
//! a view token `{"p":"v","d":<payload>}`, an MRTR requestState
//! `{"p":"r","d":<payload>,"o":<tool>}`. A raw `mint` puts the payload itself in `p`.
//! Keys are written in that order, compact, as `JSON.stringify` writes them.
//!
//! Two readings: SPEC's ([`parse`]: one reading per token, nothing lenient)
//! and, for the drop-in only, the SDK codec's ([`parse_as_sdk`]: whatever its
//! `JSON.parse` and property reads accept, from a body whose MAC verified).

use crate::json;
use crate::purpose::Purpose;

/// Longest envelope JSON around a payload, a tool and a bind tag: the fixed
/// text, a tool escaped at the worst rate (`\u00XX`, 6 bytes per byte), the
/// longest `exp` and a 22-char tag. For reserving a buffer before writing.
#[cfg(feature = "edge")]
pub fn max_len(
    purpose: Purpose<&str>,
    payload: Option<&str>,
    bind_tag: Option<&str>,
) -> Option<usize> {
    let tool = purpose.tool().map_or(0, str::len);
    payload
        .map_or(0, str::len)
        .checked_add(tool.checked_mul(6)?)?
        .checked_add(bind_tag.map_or(0, str::len))?
        .checked_add(64)
}

/// Write the envelope JSON for `purpose`, `payload`, `exp` and an optional
/// bind tag (base64url, so it needs no escaping). A raw envelope without a
/// payload is JS `undefined` under `p`, which `JSON.stringify` leaves out:
/// `{"exp":N}`. The other purposes always have one.
#[cfg(feature = "edge")]
pub fn write(
    purpose: Purpose<&str>,
    payload: Option<&str>,
    exp: i64,
    bind_tag: Option<&str>,
    out: &mut String,
) {
    let Some(payload) = payload else {
        out.push_str("{\"exp\":");
        write_tail(exp, bind_tag, out);
        return;
    };
    out.push_str("{\"p\":");
    match purpose {
        Purpose::Raw => out.push_str(payload),
        Purpose::View => {
            out.push_str("{\"p\":\"v\",\"d\":");
            out.push_str(payload);
            out.push('}');
        }
        Purpose::RequestState(tool) => {
            out.push_str("{\"p\":\"r\",\"d\":");
            out.push_str(payload);
            out.push_str(",\"o\":");
            json::write_string(tool, out);
            out.push('}');
        }
    }
    out.push_str(",\"exp\":");
    write_tail(exp, bind_tag, out);
}

/// `exp`'s value, the optional bind tag and the closing brace.
#[cfg(feature = "edge")]
fn write_tail(exp: i64, bind_tag: Option<&str>, out: &mut String) {
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
    /// Raw JSON of `p`, validated.
    pub p: &'a str,
    /// Unix seconds.
    pub exp: i64,
    /// Raw JSON of `b`, if present (any JSON type: it is judged at the bind step).
    pub b: Option<&'a str>,
    /// The `p`, `d` and `o` members of `p`, when [`parse`] found them on its
    /// pass (`Some(None)`: `p` has a repeated one of them); `None` when it
    /// did not, and [`Envelope::claim`] reads `p` itself.
    #[cfg(feature = "edge")]
    inner: Option<Option<Picked<'a, 3>>>,
}

/// Values of the wanted members, in the order of their names.
type Picked<'a, const N: usize> = [Option<&'a str>; N];

/// Finds the members named `names` (unescaped key equality, as `JSON.parse`
/// would see them). A repeated wanted key makes the object invalid: JS would
/// silently keep the last one, and a token should have one reading only.
/// The SDK reading alone keeps the last one, as `JSON.parse` does.
struct Picker<'a, 'n, const N: usize> {
    names: [&'n str; N],
    found: Picked<'a, N>,
    repeated: bool,
    last_wins: bool,
}

impl<'a, 'n, const N: usize> Picker<'a, 'n, N> {
    fn new(names: [&'n str; N]) -> Self {
        Picker {
            names,
            found: [None; N],
            repeated: false,
            last_wins: false,
        }
    }

    /// A picker that keeps the last of a repeated key, as `JSON.parse` does.
    #[cfg(feature = "edge")]
    fn keeping_last(names: [&'n str; N]) -> Self {
        Picker {
            last_wins: true,
            ..Picker::new(names)
        }
    }

    /// Look at one member (a key that cannot be read counts as repeated).
    fn take(&mut self, m: json::Member<'a>) {
        let key = if m.key.contains('\\') {
            json::unescape(m.key).map(std::borrow::Cow::Owned)
        } else {
            m.key
                .get(1..m.key.len().saturating_sub(1))
                .map(std::borrow::Cow::Borrowed)
        };
        let Some(key) = key else {
            self.repeated = true;
            return;
        };
        if let Some(slot) = self
            .names
            .iter()
            .position(|n| *n == key)
            .and_then(|idx| self.found.get_mut(idx))
        {
            self.repeated |= slot.is_some() && !self.last_wins;
            *slot = Some(m.value);
        }
    }

    /// The values found, or `None` when a wanted key was repeated.
    fn picked(self) -> Option<Picked<'a, N>> {
        (!self.repeated).then_some(self.found)
    }
}

#[cfg(feature = "edge")]
impl<'a, const N: usize> json::Sink<'a> for Picker<'a, '_, N> {
    #[inline(always)]
    fn member(&mut self, member: json::Member<'a>) -> Option<()> {
        self.take(member);
        Some(())
    }
}

/// The members named `names` of `members`; see [`Picker`].
fn pick<'a, const N: usize>(
    members: Vec<json::Member<'a>>,
    names: [&str; N],
) -> Option<Picked<'a, N>> {
    let mut picker = Picker::new(names);
    for m in members {
        picker.take(m);
    }
    picker.picked()
}

/// Parse the outer envelope: a JSON object with `p` and an integer `exp`.
/// `None` means malformed. The whole body is validated as JSON on the way,
/// so `p` is valid JSON text. Unknown members are ignored, as the SDK does.
/// The edge build finds the members of `p` on the same pass (one scan of
/// the payload instead of two: -117 µs of a 64 KiB open, measured); the
/// widget build leaves them to [`Envelope::claim`] (the one pass would cost
/// it 180 B gzipped, measured).
pub fn parse(body: &str) -> Option<Envelope<'_>> {
    #[cfg(feature = "edge")]
    let ([p, exp, b], inner) = {
        let (mut outer, mut inner) = (Picker::new(OUTER_MEMBERS), Picker::new(PURPOSE_MEMBERS));
        let once = json::object_members_nested(body, "\"p\"", &mut outer, &mut inner)?;
        (outer.picked()?, once.then(|| inner.picked()))
    };
    #[cfg(not(feature = "edge"))]
    let [p, exp, b] = pick(json::object_members(body)?, OUTER_MEMBERS)?;
    Some(Envelope {
        p: p?,
        exp: json::parse_int(exp?)?,
        b,
        #[cfg(feature = "edge")]
        inner,
    })
}

/// The members of the outer envelope.
const OUTER_MEMBERS: [&str; 3] = ["p", "exp", "b"];

/// The members of a purpose envelope.
const PURPOSE_MEMBERS: [&str; 3] = ["p", "d", "o"];

/// The outer envelope as the SDK's codec reads it: `JSON.parse` of the body,
/// then `envelope.p`, `envelope.exp`, `envelope.b`. Slices borrow the body.
#[cfg(feature = "edge")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SdkEnvelope<'a> {
    /// Raw JSON of `p`; `None` where JS reads `undefined`.
    pub p: Option<&'a str>,
    /// Raw JSON of `exp`, if present: any JSON value (a number of any form is
    /// compared by [`json::number_at_least`]; anything else is expired).
    pub exp: Option<&'a str>,
    /// Raw JSON of `b`, if present.
    pub b: Option<&'a str>,
}

/// The body read as the SDK's codec reads it, after its MAC verified. `None`
/// where the SDK gives "malformed" (not one JSON text) or throws (`null`,
/// whose properties JS cannot read). A JSON text that is not an object has
/// none of the three members (its `exp` is `undefined`: "expired" there);
/// an object's repeated key counts once, the last, as in `JSON.parse`. A
/// leading BOM is skipped, as the SDK's `TextDecoder` does.
#[cfg(feature = "edge")]
pub fn parse_as_sdk(body: &str) -> Option<SdkEnvelope<'_>> {
    let text = body.strip_prefix('\u{feff}').unwrap_or(body);
    let none = SdkEnvelope {
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
    Some(SdkEnvelope { p, exp, b })
}

impl<'a> Envelope<'a> {
    /// The purpose `p` claims, and the payload under it. A `p` that is not a
    /// purpose envelope (a raw `mint` token, an unknown purpose, a missing `d`
    /// or `o`) claims [`Purpose::Raw`], with all of `p` as the payload.
    pub fn claim(&self) -> (Purpose<String>, &'a str) {
        #[cfg(feature = "edge")]
        if let Some(picked) = self.inner {
            return picked
                .and_then(purposed_members)
                .unwrap_or((Purpose::Raw, self.p));
        }
        purposed(self.p).unwrap_or((Purpose::Raw, self.p))
    }
}

/// `p` read as a purpose envelope.
fn purposed(p: &str) -> Option<(Purpose<String>, &str)> {
    if !p.starts_with('{') {
        return None;
    }
    purposed_members(pick(json::object_members(p)?, PURPOSE_MEMBERS)?)
}

/// The picked members of `p` read as a purpose envelope.
fn purposed_members([purpose, d, o]: Picked<'_, 3>) -> Option<(Purpose<String>, &str)> {
    let purpose = purpose?;
    // The literals as sealed are read without unescaping them into a new
    // string (an allocation on every open); any other spelling is unescaped.
    let view = match purpose {
        "\"v\"" => true,
        "\"r\"" => false,
        _ => match json::unescape(purpose)?.as_str() {
            "v" => true,
            "r" => false,
            _ => return None,
        },
    };
    if view {
        Some((Purpose::View, d?))
    } else {
        Some((Purpose::RequestState(json::unescape(o?)?), d?))
    }
}

/// The unescaped value of a JSON string, for the bind tag; `None` if not a string.
#[cfg(feature = "edge")]
pub fn string_value(raw: &str) -> Option<String> {
    json::unescape(raw)
}

// The writer is edge-only, and every test here writes its input.
#[cfg(all(test, feature = "edge"))]
mod tests {
    use super::*;

    fn written(purpose: Purpose<&str>, payload: &str, exp: i64, tag: Option<&str>) -> String {
        written_opt(purpose, Some(payload), exp, tag)
    }

    fn written_opt(
        purpose: Purpose<&str>,
        payload: Option<&str>,
        exp: i64,
        tag: Option<&str>,
    ) -> String {
        let mut s = String::new();
        write(purpose, payload, exp, tag, &mut s);
        assert!(s.len() <= max_len(purpose, payload, tag).unwrap());
        s
    }

    #[test]
    fn writes_undefined_as_json_stringify_does() {
        assert_eq!(written_opt(Purpose::Raw, None, 5, None), "{\"exp\":5}");
        assert_eq!(
            written_opt(Purpose::Raw, None, -5, Some("TAG")),
            "{\"exp\":-5,\"b\":\"TAG\"}"
        );
    }

    #[test]
    fn reads_as_the_sdk_reads() {
        use parse_as_sdk as sdk;
        let env = |p, exp, b| Some(SdkEnvelope { p, exp, b });
        // What SPEC's reading takes, the SDK's takes the same.
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
    fn writes_the_sdk_layout() {
        assert_eq!(
            written(Purpose::Raw, "{\"a\":1}", 5, None),
            "{\"p\":{\"a\":1},\"exp\":5}"
        );
        assert_eq!(
            written(Purpose::View, "[1]", 5, Some("TAG")),
            "{\"p\":{\"p\":\"v\",\"d\":[1]},\"exp\":5,\"b\":\"TAG\"}"
        );
        assert_eq!(
            written(Purpose::RequestState("a\"b"), "null", -1, None),
            "{\"p\":{\"p\":\"r\",\"d\":null,\"o\":\"a\\\"b\"},\"exp\":-1}"
        );
        let worst = "\u{1}".repeat(10);
        let tag = "T".repeat(22);
        written(Purpose::RequestState(&worst), "0", i64::MIN, Some(&tag));
    }

    #[test]
    fn parses_what_it_writes() {
        let s = written(Purpose::RequestState("move"), "{\"x\":[1]}", 99, Some("T"));
        let env = parse(&s).unwrap();
        assert_eq!(env.exp, 99);
        assert_eq!(env.b, Some("\"T\""));
        assert_eq!(
            env.claim(),
            (Purpose::RequestState("move".into()), "{\"x\":[1]}")
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
    fn claimed_purposes() {
        let claim = |p: &str| {
            let body = format!("{{\"p\":{p},\"exp\":1}}");
            let env = parse(&body).unwrap();
            let (purpose, payload) = env.claim();
            (purpose, payload.to_owned())
        };
        assert_eq!(claim("{\"p\":\"v\",\"d\":0}"), (Purpose::View, "0".into()));
        assert_eq!(claim("{\"d\":0,\"p\":\"v\"}"), (Purpose::View, "0".into()));
        for p in [
            "{\"p\":\"v\"}",
            "{\"p\":\"x\",\"d\":0}",
            "{\"p\":\"r\",\"d\":0}",
            "{\"p\":\"r\",\"d\":0,\"o\":1}",
            "{\"p\":\"v\",\"d\":0,\"d\":1}",
            "[1]",
            "\"v\"",
        ] {
            assert_eq!(claim(p), (Purpose::Raw, p.to_owned()), "{p}");
        }
    }
}
