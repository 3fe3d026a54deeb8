//! What `Debug` prints in place of a key or a decrypted secret, so a
//! `{:?}` in a log shows whether there is one and never a byte of it.

use core::fmt;

/// Prints `<redacted>`.
#[derive(Clone, Copy)]
pub(crate) struct Redacted;

impl fmt::Debug for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// `Some(<redacted>)` for a value, `None` for none.
pub(crate) fn option<T>(value: &Option<T>) -> Option<Redacted> {
    value.as_ref().map(|_| Redacted)
}

/// `[<redacted>, …]`, one entry per item: how many keys, none of their bytes.
pub(crate) struct RedactedList(pub(crate) usize);

impl fmt::Debug for RedactedList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(core::iter::repeat_n(Redacted, self.0))
            .finish()
    }
}
