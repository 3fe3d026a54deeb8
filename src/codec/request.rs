//! The request a `requestState` token is bound to, and the optional texts
//! that [`SealWith`](super::SealWith) and [`OpenWith`](super::OpenWith) take.

/// The arguments of the request a `requestState` token answers, bound by
/// the digest of their RFC 8785 canonical form (docs/format.md, "q").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Request<'a> {
    /// JSON text, canonicalized here: member order and spelling do not matter.
    #[cfg(feature = "jcs")]
    #[cfg_attr(docsrs, doc(cfg(feature = "jcs")))]
    Json(&'a str),
    /// A `serde_json` value, canonicalized here.
    #[cfg(feature = "serde")]
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    Value(&'a serde_json::Value),
    /// Text already in RFC 8785 form, digested exactly as given (the wasm
    /// build's glue canonicalizes in JS). Text that is not canonical only
    /// fails to match, so it fails closed.
    Canonical(&'a str),
}

/// A text that may be absent, as [`SealWith`](super::SealWith) and [`OpenWith`](super::OpenWith) take their
/// bind value and secret: a `&str`, a `&String`, or an `Option<&str>`
/// (`None`: none).
pub trait MaybeStr<'a>: sealed::Sealed {
    /// The text, or `None`.
    fn into_option(self) -> Option<&'a str>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for &str {}
    impl Sealed for &String {}
    impl Sealed for Option<&str> {}
}

impl<'a> MaybeStr<'a> for &'a str {
    fn into_option(self) -> Option<&'a str> {
        Some(self)
    }
}

impl<'a> MaybeStr<'a> for &'a String {
    fn into_option(self) -> Option<&'a str> {
        Some(self.as_str())
    }
}

impl<'a> MaybeStr<'a> for Option<&'a str> {
    fn into_option(self) -> Option<&'a str> {
        self
    }
}
