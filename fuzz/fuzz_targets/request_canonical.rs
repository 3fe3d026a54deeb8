//! The request's canonical form (`jcs::canonicalize`, what the request digest
//! is taken over) against an independent RFC 8785 implementation, the
//! `serde_json_canonicalizer` crate (over serde_json values), and the rules
//! RFC 8785 and the crate add: no lone surrogate, no non-finite number, no
//! repeated member name, nesting at most `MAX_REQUEST_DEPTH`.
//!
//! Input: the first byte wraps the text in `flags & 0x7f` levels (arrays, or
//! with bit 7 objects `{"k":…}`), so the depth boundary is easy to reach
//! with any content; the rest is the JSON text (UTF-8, lossily).
//!
//! Checks: text the reference and the rules accept canonicalizes to exactly
//! the reference's text; whatever the reference refuses, or that breaks a
//! rule, is refused, with the error of a rule it breaks; the form is a fixed
//! point; and the codec agrees (a sealed request opens with its own text, a
//! refused one is `SealError::Request` of the same error when sealing and
//! reason `request` when opening, a garbage token included). A codec bounded
//! at [`BOUND`] bytes seals exactly the forms that fit, refuses a longer one
//! as `RequestTooLarge` (having written past the bound by at most one
//! scalar), and otherwise refuses what the unbounded one refuses, with its
//! error or as too large.
#![no_main]

mod common;

use std::collections::HashSet;
use std::fmt;

use common::*;
use libfuzzer_sys::fuzz_target;
use mcp_sealed_state::internals::jcs::{self, MAX_REQUEST_DEPTH};
use mcp_sealed_state::{
    Clock, Codec, CodecOptions, JcsError, OpenWith, Reason, Request, SealError, SealWith,
};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A JSON value as serde_json reads it, repeated names and number text kept.
enum J {
    Scalar,
    /// A number, and whether it is a finite double.
    Num(bool),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

/// serde_json's `arbitrary_precision` hands a number to `deserialize_any` as a
/// one-member map under this name, with the number's text as the value.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

impl<'de> Deserialize<'de> for J {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<J, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = J;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("JSON")
            }
            fn visit_unit<E>(self) -> Result<J, E> {
                Ok(J::Scalar)
            }
            fn visit_bool<E>(self, _: bool) -> Result<J, E> {
                Ok(J::Scalar)
            }
            fn visit_str<E>(self, _: &str) -> Result<J, E> {
                Ok(J::Scalar)
            }
            fn visit_u64<E>(self, _: u64) -> Result<J, E> {
                Ok(J::Num(true))
            }
            fn visit_i64<E>(self, _: i64) -> Result<J, E> {
                Ok(J::Num(true))
            }
            fn visit_f64<E>(self, x: f64) -> Result<J, E> {
                Ok(J::Num(x.is_finite()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<J, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = a.next_element()? {
                    items.push(item);
                }
                Ok(J::Arr(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<J, A::Error> {
                let mut members = Vec::new();
                while let Some(name) = m.next_key::<String>()? {
                    if name == NUMBER_TOKEN && members.is_empty() {
                        let text: String = m.next_value()?;
                        let x: f64 = text.parse().expect("a JSON number");
                        return Ok(J::Num(x.is_finite()));
                    }
                    members.push((name, m.next_value()?));
                }
                Ok(J::Obj(members))
            }
        }
        d.deserialize_any(V)
    }
}

/// The rules a valid text breaks, found by serde_json (not the crate's scanner).
#[derive(Default, Debug)]
struct Broken {
    lone_surrogate: bool,
    non_finite: bool,
    duplicate: bool,
    too_deep: bool,
    /// serde_json could not read the text (a lone surrogate, or past its 128
    /// levels), so its depth is not known here.
    unread: bool,
}

impl Broken {
    fn any(&self) -> bool {
        self.lone_surrogate || self.non_finite || self.duplicate || self.too_deep || self.unread
    }
    fn allows(&self, e: JcsError) -> bool {
        match e {
            JcsError::LoneSurrogate => self.lone_surrogate,
            JcsError::NumberOutOfRange => self.non_finite,
            JcsError::DuplicateName => self.duplicate,
            JcsError::TooDeep => self.too_deep || self.unread,
            _ => false,
        }
    }
}

/// Which rules the value `v`, at `depth` levels, breaks.
fn walk(v: &J, depth: usize, b: &mut Broken) {
    match v {
        J::Scalar => {}
        J::Num(finite) => b.non_finite |= !finite,
        J::Arr(_) | J::Obj(_) if depth + 1 > MAX_REQUEST_DEPTH => b.too_deep = true,
        J::Arr(items) => items.iter().for_each(|i| walk(i, depth + 1, b)),
        J::Obj(members) => {
            let mut names = HashSet::new();
            for (name, value) in members {
                b.duplicate |= !names.insert(name.as_str());
                walk(value, depth + 1, b);
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let body = String::from_utf8_lossy(rest);
    let levels = usize::from(flags & 0x7f);
    let text = if flags & 0x80 != 0 {
        format!("{}{body}{}", "{\"k\":".repeat(levels), "}".repeat(levels))
    } else {
        format!("{}{body}{}", "[".repeat(levels), "]".repeat(levels))
    };
    let text = text.as_str();
    let ours = jcs::canonicalize(text);

    // Whatever has a form: a fixed point, and JSON.
    if let Ok(c) = &ours {
        assert_eq!(jcs::canonicalize(c).as_ref(), Ok(c), "not a fixed point");
        assert!(serde_grammar_ok(c));
    }

    // serde_json reads its private marker keys as something else: no verdict.
    if has_serde_marker_key(text) {
        return;
    }
    let grammar = serde_grammar_ok(text);
    assert_eq!(grammar, ours != Err(JcsError::NotJson), "grammar: {text:?}");
    let reference = serde_json_canonicalizer::pipe(text);
    if !grammar {
        assert!(reference.is_err(), "the reference read non-JSON: {text:?}");
        return;
    }

    let mut broken = Broken::default();
    // What serde_json cannot read has a lone surrogate or is over 128 deep.
    let lone = has_lone_surrogate_escape(text);
    match serde_json::from_str::<J>(text) {
        Ok(tree) => {
            assert!(!lone, "serde_json read a lone surrogate: {text:?}");
            walk(&tree, 0, &mut broken);
        }
        // The rest of what it breaks, read past its lone surrogates (one pass
        // may meet a number out of range before them).
        Err(_) if lone => match serde_json::from_str::<J>(&surrogates_to_private_use(text)) {
            Ok(tree) => walk(&tree, 0, &mut broken),
            Err(_) => broken.unread = true,
        },
        Err(_) => broken.unread = true,
    }
    broken.lone_surrogate = lone;
    match (&ours, &reference) {
        (Ok(c), Ok(r)) => {
            assert!(
                !broken.any(),
                "canonicalized a text that breaks {broken:?}: {text:?}"
            );
            assert_eq!(c, r, "differs from serde_json_canonicalizer: {text:?}");
        }
        (Ok(c), Err(e)) => panic!("the reference refuses ({e}) what we write as {c:?}: {text:?}"),
        (Err(e), r) => {
            assert!(
                broken.allows(*e),
                "{e:?} but the text breaks {broken:?}: {text:?}"
            );
            // The reference refuses what it can tell is broken: serde_json
            // allows 128 levels, and keeps the last of repeated names, so a
            // number in an earlier one never reaches its serializer (a crash
            // input of this target, now seed-regression-masked-by-duplicate).
            if broken.lone_surrogate || (broken.non_finite && !broken.duplicate) {
                assert!(r.is_err(), "the reference read {broken:?}: {text:?}");
            }
        }
    }

    // The codec: sealing says why, opening is `request`.
    let codec = codec(false);
    let seal = |codec: &Codec, request: &str| {
        let with = SealWith::request_state("t").request(Request::Json(request));
        codec.seal("1", &with)
    };
    let open = |codec: &Codec, token: &str, request: &str| {
        let with = OpenWith::request_state("t").request(Request::Json(request));
        codec.open(token, &with)
    };
    match &ours {
        Ok(c) => {
            let token = seal(codec, text).expect("a request with a form seals");
            assert!(open(codec, &token, text).is_ok());
            assert!(open(codec, &token, c).is_ok());
        }
        Err(e) => {
            assert_eq!(seal(codec, text).unwrap_err(), SealError::Request(*e));
            let token = seal(codec, "0").expect("seals");
            assert_eq!(
                open(codec, &token, text).unwrap_err().reason(),
                Reason::Request
            );
            // Step 0: refused before the token is read.
            assert_eq!(
                open(codec, "v1.x", text).unwrap_err().reason(),
                Reason::Request
            );
        }
    }

    // Bounded: the form when it fits, else refused on the way.
    let bounded = bounded_codec();
    match (&ours, seal(bounded, text)) {
        (Ok(c), Ok(_)) => assert!(c.len() <= BOUND),
        (Ok(c), Err(SealError::RequestTooLarge { bytes, max_bytes })) => {
            assert!(c.len() > BOUND, "{c:?}");
            assert_eq!(max_bytes, BOUND);
            assert!(bytes > BOUND && bytes <= c.len(), "{bytes} of {}", c.len());
        }
        (Err(e), Err(SealError::Request(b))) => assert_eq!(*e, b, "{text:?}"),
        (Err(_), Err(SealError::RequestTooLarge { bytes, .. })) => assert!(bytes > BOUND),
        (ours, bounded) => panic!("unbounded {ours:?}, bounded {bounded:?}: {text:?}"),
    }
});

/// The request bound of [`bounded_codec`], in bytes: small, so texts pass it.
const BOUND: usize = 48;

fn bounded_codec() -> &'static Codec {
    static CODEC: std::sync::OnceLock<Codec> = std::sync::OnceLock::new();
    CODEC.get_or_init(|| {
        let mut opts = CodecOptions::with_keys(KEYS.to_vec());
        opts.max_request_bytes = BOUND;
        opts.now = Clock::from_fn(|| NOW_MS);
        Codec::new(opts).expect("codec")
    })
}
