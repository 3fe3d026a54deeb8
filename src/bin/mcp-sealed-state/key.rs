//! The key, from an environment variable or a file (and the secret part's
//! file, read the same way). Messages name the option, never the key nor
//! the path given (people paste keys where a path belongs).

use std::ffi::OsStr;
use std::fs::File;
use std::path::Path;

use crate::args::{KeyArgs, DEFAULT_KEY_ENV};

/// The key bytes (a string key is its UTF-8 bytes, as in the JS package).
pub fn load(args: &KeyArgs) -> Result<Vec<u8>, String> {
    if args.key.is_some() {
        return Err(
            "refusing --key: a key on the command line is visible to every local user \
                    and kept in shell history; use --key-env VAR or --key-file PATH"
                .into(),
        );
    }
    if let Some(path) = &args.key_file {
        return read_private_file(path, PrivateFile::Key);
    }
    let var = args
        .key_env
        .as_deref()
        .unwrap_or(OsStr::new(DEFAULT_KEY_ENV));
    let Some(var) = var.to_str().filter(|name| is_variable_name(name)) else {
        // A key pasted here by mistake must not end up on the terminal or in a log.
        return Err("--key-env takes the name of an environment variable \
                    ([A-Za-z_][A-Za-z0-9_]*); the value given is not one (not shown, \
                    in case it is a key)"
            .into());
    };
    match std::env::var_os(var) {
        Some(value) if !value.is_empty() => Ok(os_bytes(value)),
        _ => Err(format!(
            "no key: ${var} is not set (set it, or use --key-env VAR or --key-file PATH)"
        )),
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`, the names a POSIX shell exports.
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Which file [`read_private_file`] reads: messages name its option.
#[derive(Clone, Copy)]
pub enum PrivateFile {
    Key,
    Secret,
}

impl PrivateFile {
    /// How messages name it: the option, never the path given to it.
    pub fn name(self) -> &'static str {
        match self {
            PrivateFile::Key => "the key file (--key-file)",
            PrivateFile::Secret => "the secret file (--secret-file)",
        }
    }
}

/// The most a key or secret file may hold, as a payload or secret on
/// standard input (documented in `--help`), plus a line ending.
pub const MAX_FILE_BYTES: usize = crate::stdin::MAX_PAYLOAD_BYTES + crate::stdin::LINE_ENDING_BYTES;

/// A key or secret file's bytes, less one trailing line ending: `keygen >
/// key.txt` leaves a newline that is not part of the key. Read up to
/// [`MAX_FILE_BYTES`], so `/dev/zero` fails at once. Warns on stderr when its
/// mode lets group or others read it (the file is used all the same:
/// refusing would break scripts that were working, and its contents may
/// already be exposed).
pub fn read_private_file(path: &Path, which: PrivateFile) -> Result<Vec<u8>, String> {
    let what = which.name();
    let file = File::open(path).map_err(|e| format!("cannot read {what}: {e}"))?;
    // The mode of the file opened (after any symlink), not of the path.
    let metadata = file
        .metadata()
        .map_err(|e| format!("cannot read {what}: {e}"))?;
    warn_if_readable_by_others(what, &metadata);
    let mut bytes = crate::stdin::read_bounded(file, MAX_FILE_BYTES, what)?;
    let line_ending = if bytes.ends_with(b"\r\n") {
        2
    } else {
        usize::from(bytes.ends_with(b"\n"))
    };
    bytes.truncate(bytes.len() - line_ending);
    Ok(bytes)
}

#[cfg(unix)]
fn warn_if_readable_by_others(what: &str, metadata: &std::fs::Metadata) {
    use std::os::unix::fs::PermissionsExt;
    let mode = metadata.permissions().mode() & 0o7777;
    if mode & 0o044 != 0 {
        eprintln!(
            "mcp-sealed-state: warning: {what} is readable by {} (mode {mode:04o}); \
             `chmod 600` it",
            if mode & 0o004 != 0 {
                "others"
            } else {
                "its group"
            }
        );
    }
}

#[cfg(not(unix))]
fn warn_if_readable_by_others(_what: &str, _metadata: &std::fs::Metadata) {}

#[cfg(unix)]
fn os_bytes(value: std::ffi::OsString) -> Vec<u8> {
    use std::os::unix::ffi::OsStringExt;
    value.into_vec()
}

#[cfg(not(unix))]
fn os_bytes(value: std::ffi::OsString) -> Vec<u8> {
    value.to_string_lossy().into_owned().into_bytes()
}

#[cfg(test)]
mod tests {
    use super::is_variable_name;

    #[test]
    fn variable_names() {
        for name in ["STATE_KEY", "_", "a1", "_9_x"] {
            assert!(is_variable_name(name), "{name}");
        }
        for value in ["", "1A", "A-B", "A B", "key=1", "é", "AB+/="] {
            assert!(!is_variable_name(value), "{value}");
        }
    }
}
