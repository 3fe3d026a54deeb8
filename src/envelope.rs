//! The JSON inside a token (docs/format.md, "Grammar").
//!
//! Outer envelope (the SDK's): `{"p":<inner>,"exp":<int>}` or with `,"b":<tag>`.
//! Inner purpose envelope (ng-mcp-ui's), so the two verified carriers never mix:
//! a view token `{"p":"v","d":<payload>}`, an MRTR requestState
//! `{"p":"r","d":<payload>,"o":<tool>}`. A raw `mint` puts the payload itself in `p`.
//! Keys are written in that order, compact, as `JSON.stringify` writes them.
//!
//! This is docs/format.md's reading ([`parse`]: one reading per token, nothing
//! lenient); the drop-in's reading, the SDK codec's, is `sdk_reading`.

use crate::json;
use crate::purpose::Purpose;

/// Longest envelope JSON around a payload, a tool, `s`, `q` and a bind tag:
/// the fixed text, a tool escaped at the worst rate (`\u00XX`, 6 bytes per
/// byte), the longest `exp` and the tags. For reserving a buffer before writing.
#[cfg(feature = "edge")]
pub fn max_len(
    purpose: Purpose<&str>,
    payload: Option<&str>,
    extra: Extra<'_>,
    bind_tag: Option<&str>,
) -> Option<usize> {
    let tool = purpose.tool().map_or(0, str::len);
    payload
        .map_or(0, str::len)
        .checked_add(tool.checked_mul(6)?)?
        .checked_add(bind_tag.map_or(0, str::len))?
        .checked_add(extra.secret.map_or(0, str::len))?
        .checked_add(extra.request.map_or(0, str::len))?
        .checked_add(64 + 16)
}

/// Write the envelope JSON for `purpose`, `payload`, `exp` and an optional
/// bind tag (base64url, so it needs no escaping). A raw envelope without a
/// payload is JS `undefined` under `p`, which `JSON.stringify` leaves out:
/// `{"exp":N}`. The other purposes always have one.
#[cfg(feature = "edge")]
pub fn write(
    purpose: Purpose<&str>,
    payload: Option<&str>,
    extra: Extra<'_>,
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
            write_extra(extra, out);
        }
        Purpose::RequestState(tool) => {
            out.push_str("{\"p\":\"r\",\"d\":");
            out.push_str(payload);
            out.push_str(",\"o\":");
            json::write_string(tool, out);
            write_extra(extra, out);
        }
    }
    out.push_str(",\"exp\":");
    write_tail(exp, bind_tag, out);
}

/// The optional members of a purpose envelope after `d` and `o`: the sealed
/// secret `s` and the request digest `q`, both base64url (no escaping).
#[cfg(feature = "edge")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Extra<'a> {
    pub secret: Option<&'a str>,
    pub request: Option<&'a str>,
}

/// `s` and `q` when present, and the purpose envelope's closing brace.
#[cfg(feature = "edge")]
fn write_extra(extra: Extra<'_>, out: &mut String) {
    for (name, value) in [(",\"s\":\"", extra.secret), (",\"q\":\"", extra.request)] {
        if let Some(value) = value {
            out.push_str(name);
            out.push_str(value);
            out.push('"');
        }
    }
    out.push('}');
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
    /// The `p`, `d`, `o`, `s` and `q` members of `p`, when [`parse`] found them on its
    /// pass (`Some(None)`: `p` repeats one of them); `None` when it did not
    /// (`p` is not an object, or its key is spelled with escapes), and
    /// [`Envelope::claim`] reads `p` itself.
    inner: Option<Option<Picked<'a, 5>>>,
}

/// Values of the wanted members, in the order of their names.
pub(crate) type Picked<'a, const N: usize> = [Option<&'a str>; N];

/// Finds the members named `names` (unescaped key equality, as `JSON.parse`
/// would see them). A repeated wanted key makes the object invalid: JS would
/// silently keep the last one, and a token should have one reading only.
/// The SDK reading alone keeps the last one, as `JSON.parse` does.
pub(crate) struct Picker<'a, 'n, const N: usize> {
    names: [&'n str; N],
    found: Picked<'a, N>,
    repeated: bool,
    last_wins: bool,
}

impl<'a, 'n, const N: usize> Picker<'a, 'n, N> {
    pub(crate) fn new(names: [&'n str; N]) -> Self {
        Picker {
            names,
            found: [None; N],
            repeated: false,
            last_wins: false,
        }
    }

    /// A picker that keeps the last of a repeated key, as `JSON.parse` does.
    #[cfg(feature = "edge")]
    pub(crate) fn keeping_last(names: [&'n str; N]) -> Self {
        Picker {
            last_wins: true,
            ..Picker::new(names)
        }
    }

    /// The values found, or `None` when a wanted key was repeated.
    pub(crate) fn picked(self) -> Option<Picked<'a, N>> {
        (!self.repeated).then_some(self.found)
    }
}

impl<'a, const N: usize> json::Sink<'a> for Picker<'a, '_, N> {
    /// Look at one member (a key that cannot be read counts as repeated).
    #[inline(always)]
    fn member(&mut self, m: json::Member<'a>) -> Option<()> {
        let key = if m.key.contains('\\') {
            json::unescape(m.key).map(std::borrow::Cow::Owned)
        } else {
            m.key
                .get(1..m.key.len().saturating_sub(1))
                .map(std::borrow::Cow::Borrowed)
        };
        let Some(key) = key else {
            self.repeated = true;
            return Some(());
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
        Some(())
    }
}

/// Parse the outer envelope: a JSON object with `p` and an integer `exp`.
/// `None` means malformed. The whole body is validated as JSON on the way,
/// so `p` is valid JSON text. Unknown members are ignored, as the SDK does.
/// The members of `p` are found on the same pass, so the payload, nearly
/// all of the body, is scanned once.
pub fn parse(body: &str) -> Option<Envelope<'_>> {
    let (mut outer, mut inner) = (Picker::new(OUTER_MEMBERS), Picker::new(PURPOSE_MEMBERS));
    let once = json::object_members_nested(body, "\"p\"", &mut outer, &mut inner)?;
    let [p, exp, b] = outer.picked()?;
    Some(Envelope {
        p: p?,
        exp: json::parse_int(exp?)?,
        b,
        inner: once.then(|| inner.picked()),
    })
}

/// The members of the outer envelope.
pub(crate) const OUTER_MEMBERS: [&str; 3] = ["p", "exp", "b"];

/// The members of a purpose envelope.
const PURPOSE_MEMBERS: [&str; 5] = ["p", "d", "o", "s", "q"];

/// What `p` claims, with the raw JSON of the secret `s` and the request
/// digest `q` of a purpose envelope (for a raw token, neither).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim<'a> {
    pub purpose: Purpose<String>,
    pub payload: &'a str,
    pub secret: Option<&'a str>,
    pub request: Option<&'a str>,
}

impl<'a> Envelope<'a> {
    /// The purpose `p` claims, and the payload under it. A `p` that is not a
    /// purpose envelope (a raw `mint` token, an unknown purpose, a missing `d`
    /// or `o`) claims [`Purpose::Raw`], with all of `p` as the payload.
    #[cfg(all(test, feature = "edge"))]
    pub fn claim(&self) -> (Purpose<String>, &'a str) {
        let c = self.claim_all();
        (c.purpose, c.payload)
    }

    /// The claim of [`Envelope::claim`], with `s` and `q`.
    pub fn claim_all(&self) -> Claim<'a> {
        let picked = match self.inner {
            Some(picked) => picked,
            None => pick_purpose_members(self.p),
        };
        picked
            .and_then(|[p, d, o, s, q]| {
                let (purpose, payload) = purposed([p, d, o])?;
                Some(Claim {
                    purpose,
                    payload,
                    secret: s,
                    request: q,
                })
            })
            .unwrap_or(Claim {
                purpose: Purpose::Raw,
                payload: self.p,
                secret: None,
                request: None,
            })
    }
}

/// The `p`, `d`, `o`, `s` and `q` members of `p` when it is an object, by a scan of its own.
fn pick_purpose_members(p: &str) -> Option<Picked<'_, 5>> {
    if !p.starts_with('{') {
        return None;
    }
    let mut picker = Picker::new(PURPOSE_MEMBERS);
    json::object_members_into(p, &mut picker)?;
    picker.picked()
}

/// The picked members of `p` read as a purpose envelope.
fn purposed([purpose, d, o]: Picked<'_, 3>) -> Option<(Purpose<String>, &str)> {
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
        write(purpose, payload, Extra::default(), exp, tag, &mut s);
        assert!(s.len() <= max_len(purpose, payload, Extra::default(), tag).unwrap());
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
        // `p` spelled with an escape is still `p`, as `JSON.parse` reads it.
        let body = "{\"\\u0070\":{\"p\":\"v\",\"d\":0},\"exp\":1}";
        assert_eq!(parse(body).unwrap().claim(), (Purpose::View, "0"));
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
