//! The payload of an opened (or read) token: its JSON text, kept inside the
//! decoded body it came from so nothing is copied to hand it out.

/// The payload JSON of a token, exactly as it was sealed. `Display` writes
/// that JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Payload {
    body: String,
    range: core::ops::Range<usize>,
}

impl Payload {
    /// The payload at `range` of `body` (from [`range_in`]); `None` when it
    /// is not a range of whole chars of `body`.
    pub(crate) fn new(body: String, range: core::ops::Range<usize>) -> Option<Payload> {
        body.get(range.clone())?;
        Some(Payload { body, range })
    }

    /// The payload as JSON text.
    pub fn payload_json(&self) -> &str {
        // `new` checked the range, so the fallback is never taken.
        self.body.get(self.range.clone()).unwrap_or("null")
    }

    /// The payload JSON as an owned string.
    pub fn into_payload_json(self) -> String {
        self.payload_json().to_owned()
    }
}

impl core::fmt::Display for Payload {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.payload_json())
    }
}

impl AsRef<str> for Payload {
    fn as_ref(&self) -> &str {
        self.payload_json()
    }
}

/// Where `part` (a subslice of `whole`) sits in `whole`.
pub(crate) fn range_in(whole: &str, part: &str) -> Option<core::ops::Range<usize>> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= whole.len()).then_some(start..end)
}
