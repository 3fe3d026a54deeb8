//! The edge build's I/O path without the wasm: what `sealIo` and `openIo`
//! do with the input buffer, the codec and the output buffer. Compiled
//! natively too, so the fuzz targets and native tests run the shipped path.

use super::protocol::{
    config_error, operation, Operation, CONFIG_BAD_OPTIONS, OP_WITH_SECRET, STATUS_BAD_INPUT,
    STATUS_INVALID_CLOCK, STATUS_NO_RANDOMNESS, STATUS_OUT_OF_MEMORY, STATUS_PAYLOAD_NOT_JSON,
    STATUS_REQUEST_NOT_CANONICAL, STATUS_SECRET_NOT_JSON, STATUS_TOKEN_TOO_LARGE,
    STATUS_UNKNOWN_OP,
};
use crate::clock;
use crate::codec::{Codec, CodecOptions, OpenWith, Request, SealError, SealWith};
use crate::sdk_reading;

/// `n` as an integer when it is a safe one. JS checks these first; this
/// keeps the core from reading NaN as 0.
fn whole(n: f64) -> Option<i64> {
    (n.is_finite() && n.fract() == 0.0 && n.abs() <= 9_007_199_254_740_991.0).then_some(n as i64)
}

/// The codec of `new WasmCodec(...)`: `keys` is every key's bytes back to
/// back, `key_lengths` their lengths (first seals, all open). Or the
/// `configError` code (`protocol::CONFIG_*`) of options that build none.
pub fn codec(
    keys: &[u8],
    key_lengths: &[u32],
    ttl_seconds: f64,
    leeway_seconds: f64,
    max_token_bytes: f64,
    production: bool,
) -> Result<Codec, u32> {
    let bad = u32::from(CONFIG_BAD_OPTIONS);
    let mut list: Vec<&[u8]> = Vec::with_capacity(key_lengths.len());
    let mut rest = keys;
    for &len in key_lengths {
        let (key, tail) = rest.split_at_checked(len as usize).ok_or(bad)?;
        list.push(key);
        rest = tail;
    }
    // The glue refuses `key: []` itself; no key bytes here means no key option.
    let mut options = if list.is_empty() {
        CodecOptions::default()
    } else {
        CodecOptions::with_keys(list)
    };
    options.ttl_seconds = whole(ttl_seconds).ok_or(bad)?;
    options.leeway_seconds = whole(leeway_seconds).ok_or(bad)?;
    options.max_token_bytes = whole(max_token_bytes)
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n > 0)
        .ok_or(bad)?;
    options.production = production;
    // The glue enforces `maxRequestBytes` while it canonicalizes, before it
    // copies a request in; the core does not count it again.
    options.max_request_bytes = usize::MAX;
    Codec::new(options).map_err(config_error)
}

/// The subject bytes, the tool and the optional texts of [`texts`].
type Texts<'a, const N: usize> = (&'a [u8], &'a str, [Option<&'a str>; N]);

/// The input buffer read as what the glue wrote back to back: the subject
/// (left as bytes: a payload is checked as UTF-8 by [`seal`], a token needs
/// no check, see [`open`]), the tool, then each optional text (a negative
/// length: absent). `None` when the lengths overrun the buffer or a text
/// is not UTF-8 (the glue writes with `encodeInto`, which never produces that).
fn texts<const N: usize>(
    input: &[u8],
    subject: usize,
    tool: usize,
    optional: [i32; N],
) -> Option<Texts<'_, N>> {
    let (a, rest) = input.split_at_checked(subject)?;
    let (b, mut rest) = rest.split_at_checked(tool)?;
    let mut texts = [None; N];
    for (text, len) in texts.iter_mut().zip(optional) {
        if let Ok(n) = usize::try_from(len) {
            let (t, tail) = rest.split_at_checked(n)?;
            *text = Some(core::str::from_utf8(t).ok()?);
            rest = tail;
        }
    }
    Some((a, core::str::from_utf8(b).ok()?, texts))
}

fn status(code: i8) -> f64 {
    f64::from(code)
}

/// `sealIo`: seal from `input`, which holds the payload JSON (`payload_len`
/// bytes), then the tool (`tool_len`), then the bind value, the secret's
/// JSON and the request's JSON (`bind_len`, `secret_len`, `request_len`; -1
/// for none), into `out`. Returns the token's length or a `STATUS_*` code.
#[allow(clippy::too_many_arguments)]
pub fn seal(
    codec: &Codec,
    input: &[u8],
    out: &mut Vec<u8>,
    what: u8,
    payload_len: usize,
    tool_len: usize,
    bind_len: i32,
    secret_len: i32,
    request_len: i32,
    now_ms: f64,
) -> f64 {
    let lengths = [bind_len, secret_len, request_len];
    let Some((payload, tool, [bind, secret, request])) =
        texts(input, payload_len, tool_len, lengths)
            .and_then(|(a, b, c)| Some((core::str::from_utf8(a).ok()?, b, c)))
    else {
        return status(STATUS_BAD_INPUT);
    };
    // The glue hands in the request's canonical text (it canonicalizes in JS).
    let request = request.map(Request::Canonical);
    let sealed = match operation(what, tool) {
        Some(Operation::Purpose(purpose)) => {
            let with = SealWith::new(purpose)
                .bind(bind)
                .secret(secret)
                .request(request);
            codec.seal_into(&with, Some(payload), now_ms, out)
        }
        // No JSON text is empty: 0 bytes stand for `undefined`.
        Some(Operation::Sdk) if secret.is_none() && request.is_none() => {
            let payload = (!payload.is_empty()).then_some(payload);
            sdk_reading::mint_into(codec, payload, bind, now_ms, out)
        }
        Some(Operation::Sdk) => Err(SealError::NotCarried),
        None => return status(STATUS_UNKNOWN_OP),
    };
    match sealed {
        Ok(()) => out.len() as f64,
        Err(SealError::InvalidClock) => status(STATUS_INVALID_CLOCK),
        Err(SealError::OutOfMemory) => status(STATUS_OUT_OF_MEMORY),
        Err(SealError::PayloadNotJson) => status(STATUS_PAYLOAD_NOT_JSON),
        Err(SealError::TokenTooLarge { .. }) => status(STATUS_TOKEN_TOO_LARGE),
        Err(SealError::SecretNotJson) => status(STATUS_SECRET_NOT_JSON),
        Err(SealError::Request(_) | SealError::RequestTooLarge { .. }) => {
            status(STATUS_REQUEST_NOT_CANONICAL)
        }
        Err(SealError::NoRandomness) => status(STATUS_NO_RANDOMNESS),
        // A secret or a request where the token has no room for it: the glue never sends one.
        Err(SealError::NotCarried) => status(STATUS_BAD_INPUT),
    }
}

/// `openIo`: open from `input`, which holds the token (`token_len` bytes),
/// then the tool, then the bind value and the request's JSON (-1: none),
/// leaving the payload JSON in `out` (with [`OP_WITH_SECRET`] on `what`, the
/// layout that flag's docs give). Returns its length, minus the reason
/// code, or a `STATUS_*` code. The token is read as bytes: one that is not
/// ASCII is malformed, as it would be as text, without a UTF-8 pass over
/// all of it first.
#[allow(clippy::too_many_arguments)]
pub fn open(
    codec: &Codec,
    input: &[u8],
    out: &mut Vec<u8>,
    what: u8,
    token_len: usize,
    tool_len: usize,
    bind_len: i32,
    request_len: i32,
    now_ms: f64,
) -> f64 {
    let Some((token, tool, [bind, request])) =
        texts(input, token_len, tool_len, [bind_len, request_len])
    else {
        return status(STATUS_BAD_INPUT);
    };
    let with_secret = what & OP_WITH_SECRET != 0;
    let Some(op) = operation(what & !OP_WITH_SECRET, tool) else {
        return status(STATUS_UNKNOWN_OP);
    };
    // The core would call such a clock's tokens expired; the glue's
    // caller gets told what is wrong instead.
    if clock::unix_seconds(now_ms).is_none() {
        return status(STATUS_INVALID_CLOCK);
    }
    let opened = match op {
        Operation::Purpose(purpose) => {
            let with = OpenWith::new(purpose)
                .bind(bind)
                .request(request.map(Request::Canonical));
            codec
                .open_as_with(token, &with, with_secret, now_ms)
                .map(|o| (Some(o.payload), o.secret))
        }
        Operation::Sdk if !with_secret && request.is_none() => {
            sdk_reading::verify(codec, token, bind, now_ms).map(|p| (p, None))
        }
        Operation::Sdk => return status(STATUS_BAD_INPUT),
    };
    let (payload, secret) = match opened {
        Ok(opened) => opened,
        Err(e) => return -f64::from(e.reason().code()),
    };
    // No `"p"` (JS `undefined`): 0 bytes, which no JSON text is.
    let json = payload
        .as_ref()
        .map_or(&[][..], |p| p.payload_json().as_bytes());
    let secret = secret.as_deref().unwrap_or("").as_bytes();
    let header = if with_secret { 4 } else { 0 };
    let Some(total) = json
        .len()
        .checked_add(secret.len())
        .and_then(|n| n.checked_add(header))
    else {
        return status(STATUS_OUT_OF_MEMORY);
    };
    out.clear();
    if out.try_reserve(total).is_err() {
        return status(STATUS_OUT_OF_MEMORY);
    }
    if with_secret {
        let Ok(len) = u32::try_from(json.len()) else {
            return status(STATUS_OUT_OF_MEMORY);
        };
        out.extend_from_slice(&len.to_le_bytes());
    }
    out.extend_from_slice(json);
    out.extend_from_slice(secret);
    out.len() as f64
}

#[cfg(test)]
mod tests {
    use super::super::protocol::*;
    use super::codec;

    #[test]
    fn options_that_build_no_codec_are_its_config_codes() {
        let key = [7u8; 32];
        assert!(codec(&key, &[32], 600.0, 0.0, 1024.0, false).is_ok());
        let two: Vec<u8> = [[7u8; 32], [8u8; 32]].concat();
        assert!(codec(&two, &[32, 32], 600.0, 5.0, 1024.0, true).is_ok());
        let short = u32::from(CONFIG_KEY_TOO_SHORT);
        assert_eq!(
            codec(&[7; 31], &[31], 600.0, 0.0, 1024.0, false).err(),
            Some(short)
        );
        assert_eq!(
            codec(&[7; 37], &[32, 5], 600.0, 0.0, 1024.0, false).err(),
            Some(1 << 8 | short)
        );
        assert_eq!(
            codec(&[], &[], 600.0, 0.0, 1024.0, true).err(),
            Some(u32::from(CONFIG_KEY_MISSING))
        );
        let dup: Vec<u8> = [[7u8; 32], [8u8; 32], [7u8; 32]].concat();
        assert_eq!(
            codec(&dup, &[32, 32, 32], 600.0, 0.0, 1024.0, false).err(),
            Some(2 << 8 | u32::from(CONFIG_KEY_DUPLICATE))
        );
        assert_eq!(
            codec(&key, &[32], 600.0, -1.0, 1024.0, false).err(),
            Some(u32::from(CONFIG_NEGATIVE_LEEWAY))
        );
        let bad = Some(u32::from(CONFIG_BAD_OPTIONS));
        for (ttl, leeway, max) in [
            (f64::NAN, 0.0, 1024.0),
            (1.5, 0.0, 1024.0),
            (600.0, f64::INFINITY, 1024.0),
            (600.0, 0.0, 0.0),
            (600.0, 0.0, -5.0),
            (600.0, 0.0, f64::INFINITY),
            (9_007_199_254_740_992.0, 0.0, 1024.0),
        ] {
            assert_eq!(
                codec(&key, &[32], ttl, leeway, max, false).err(),
                bad,
                "{ttl} {leeway} {max}"
            );
        }
        assert_eq!(
            codec(&key, &[33], 600.0, 0.0, 1024.0, false).err(),
            bad,
            "lengths overrun"
        );
    }
}
