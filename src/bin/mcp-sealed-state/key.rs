//! The key, from an environment variable or a file. Messages name the source,
//! never the key.

use std::ffi::OsStr;

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
        let mut bytes = std::fs::read(path)
            .map_err(|e| format!("cannot read the key file {}: {e}", path.display()))?;
        // `keygen > key.txt` leaves a newline that is not part of the key.
        if bytes.ends_with(b"\r\n") {
            bytes.truncate(bytes.len() - 2);
        } else if bytes.ends_with(b"\n") {
            bytes.truncate(bytes.len() - 1);
        }
        return Ok(bytes);
    }
    let var = args
        .key_env
        .as_deref()
        .unwrap_or(OsStr::new(DEFAULT_KEY_ENV));
    match std::env::var_os(var) {
        Some(value) if !value.is_empty() => Ok(os_bytes(value)),
        _ => Err(format!(
            "no key: ${} is not set (set it, or use --key-env VAR or --key-file PATH)",
            var.to_string_lossy()
        )),
    }
}

#[cfg(unix)]
fn os_bytes(value: std::ffi::OsString) -> Vec<u8> {
    use std::os::unix::ffi::OsStringExt;
    value.into_vec()
}

#[cfg(not(unix))]
fn os_bytes(value: std::ffi::OsString) -> Vec<u8> {
    value.to_string_lossy().into_owned().into_bytes()
}
