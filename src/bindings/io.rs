//! The edge build's I/O path without the wasm: what `sealIo` and `openIo`
//! do with the input buffer, the codec and the output buffer. Compiled
//! natively too, so the fuzz targets and native tests run the shipped path.

use super::protocol::{
    config_error, operation, Operation, CONFIG_BAD_OPTIONS, STATUS_BAD_INPUT, STATUS_INVALID_CLOCK,
    STATUS_NO_RANDOMNESS, STATUS_OUT_OF_MEMORY, STATUS_PAYLOAD_NOT_JSON, STATUS_REQUEST_INVALID,
    STATUS_SECRET_NOT_JSON, STATUS_TOKEN_TOO_LARGE, STATUS_UNKNOWN_OP,
};
use crate::clock;
use crate::codec::{Codec, CodecOptions, OpenWith, SealError, SealWith, SealWithError};
use crate::purpose::Purpose;
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
    Codec::new(options).map_err(config_error)
}

/// The input buffer read as what the glue wrote back to back: `first`
/// bytes (left as bytes: a payload is checked as UTF-8 by [`seal`], a token
/// needs no check, see [`open`]), then `second` bytes, then `third` bytes
/// (`third < 0`: absent). `None` when the lengths overrun the buffer or the
/// second or third is not UTF-8 (the glue writes with `encodeInto`, which
/// never produces that).
fn texts(
    input: &[u8],
    first: usize,
    second: usize,
    third: i32,
) -> Option<(&[u8], &str, Option<&str>)> {
    let (a, rest) = input.split_at_checked(first)?;
    let (b, rest) = rest.split_at_checked(second)?;
    let c = match usize::try_from(third) {
        Ok(n) => Some(core::str::from_utf8(rest.get(..n)?).ok()?),
        Err(_) => None,
    };
    Some((a, core::str::from_utf8(b).ok()?, c))
}

fn status(code: i8) -> f64 {
    f64::from(code)
}

/// `sealIo`: seal from `input`, which holds the payload JSON (`payload_len`
/// bytes), then the tool (`tool_len`), then the bind value (`bind_len`, -1
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
    now_ms: f64,
) -> f64 {
    let Some((payload, tool, bind)) = texts(input, payload_len, tool_len, bind_len)
        .and_then(|(a, b, c)| Some((core::str::from_utf8(a).ok()?, b, c)))
    else {
        return status(STATUS_BAD_INPUT);
    };
    let sealed = match operation(what, tool) {
        Some(Operation::Purpose(purpose)) => {
            codec.seal_into(purpose, Some(payload), bind, now_ms, out)
        }
        // No JSON text is empty: 0 bytes stand for `undefined`.
        Some(Operation::Sdk) => {
            let payload = (!payload.is_empty()).then_some(payload);
            sdk_reading::mint_into(codec, payload, bind, now_ms, out)
        }
        None => return status(STATUS_UNKNOWN_OP),
    };
    match sealed {
        Ok(()) => out.len() as f64,
        Err(SealError::InvalidClock) => status(STATUS_INVALID_CLOCK),
        Err(SealError::OutOfMemory) => status(STATUS_OUT_OF_MEMORY),
        Err(SealError::PayloadNotJson) => status(STATUS_PAYLOAD_NOT_JSON),
        Err(SealError::TokenTooLarge { .. }) => status(STATUS_TOKEN_TOO_LARGE),
    }
}

/// `openIo`: open from `input`, which holds the token (`token_len` bytes),
/// then the tool, then the bind value, leaving the payload JSON in `out`.
/// Returns its length, minus the reason code, or a `STATUS_*` code. The
/// token is read as bytes: one that is not ASCII is malformed, as it would
/// be as text, without a UTF-8 pass over all of it first.
#[allow(clippy::too_many_arguments)]
pub fn open(
    codec: &Codec,
    input: &[u8],
    out: &mut Vec<u8>,
    what: u8,
    token_len: usize,
    tool_len: usize,
    bind_len: i32,
    now_ms: f64,
) -> f64 {
    let Some((token, tool, bind)) = texts(input, token_len, tool_len, bind_len) else {
        return status(STATUS_BAD_INPUT);
    };
    let Some(op) = operation(what, tool) else {
        return status(STATUS_UNKNOWN_OP);
    };
    // The core would call such a clock's tokens expired; the glue's
    // caller gets told what is wrong instead.
    if clock::unix_seconds(now_ms).is_none() {
        return status(STATUS_INVALID_CLOCK);
    }
    let opened = match op {
        Operation::Purpose(purpose) => codec.open_as(token, purpose, bind, now_ms).map(Some),
        Operation::Sdk => sdk_reading::verify(codec, token, bind, now_ms),
    };
    match opened {
        Ok(opened) => {
            // No `"p"` (JS `undefined`): 0 bytes, which no JSON text is.
            let json = opened
                .as_ref()
                .map_or(&[][..], |p| p.payload_json().as_bytes());
            out.clear();
            if out.try_reserve(json.len()).is_err() {
                return status(STATUS_OUT_OF_MEMORY);
            }
            out.extend_from_slice(json);
            out.len() as f64
        }
        Err(e) => -f64::from(e.reason().code()),
    }
}

/// The input buffer read as UTF-8 texts back to back, of these lengths (a
/// negative length: absent). `None` when they overrun it or one is not UTF-8.
fn fields<const N: usize>(input: &[u8], lens: [i32; N]) -> Option<[Option<&str>; N]> {
    let mut out = [None; N];
    let mut rest = input;
    for (slot, len) in out.iter_mut().zip(lens) {
        if let Ok(n) = usize::try_from(len) {
            let (text, tail) = rest.split_at_checked(n)?;
            *slot = Some(core::str::from_utf8(text).ok()?);
            rest = tail;
        }
    }
    Some(out)
}

/// The view or requestState purpose of `what`; a raw or SDK token has no
/// place for a secret or a request.
fn purpose_of(what: u8, tool: &str) -> Option<Purpose<&str>> {
    match operation(what, tool)? {
        Operation::Purpose(p @ (Purpose::View | Purpose::RequestState(_))) => Some(p),
        _ => None,
    }
}

/// `sealSecretIo`: as [`seal`], the input holding the payload, the tool, the
/// bind value, the secret JSON and the request JSON (each length -1 for
/// none, the payload's and tool's never), for a view or requestState token.
#[allow(clippy::too_many_arguments)]
pub fn seal_with(
    codec: &Codec,
    input: &[u8],
    out: &mut Vec<u8>,
    what: u8,
    lens: [i32; 5],
    now_ms: f64,
) -> f64 {
    let Some([Some(payload), Some(tool), bind, secret, request]) = fields(input, lens) else {
        return status(STATUS_BAD_INPUT);
    };
    let Some(purpose) = purpose_of(what, tool) else {
        return status(STATUS_UNKNOWN_OP);
    };
    let with = SealWith {
        bind,
        secret,
        request,
    };
    match codec.seal_into_with(purpose, Some(payload), with, now_ms, out) {
        Ok(()) => out.len() as f64,
        Err(SealWithError::Seal(SealError::InvalidClock)) => status(STATUS_INVALID_CLOCK),
        Err(SealWithError::Seal(SealError::OutOfMemory)) => status(STATUS_OUT_OF_MEMORY),
        Err(SealWithError::Seal(SealError::PayloadNotJson)) => status(STATUS_PAYLOAD_NOT_JSON),
        Err(SealWithError::Seal(SealError::TokenTooLarge { .. })) => status(STATUS_TOKEN_TOO_LARGE),
        Err(SealWithError::SecretNotJson) => status(STATUS_SECRET_NOT_JSON),
        Err(SealWithError::Request(_)) => status(STATUS_REQUEST_INVALID),
        Err(SealWithError::RawToken) => status(STATUS_UNKNOWN_OP),
        Err(SealWithError::NoRandomness) => status(STATUS_NO_RANDOMNESS),
    }
}

/// `openSecretIo`: as [`open`], the input holding the token, the tool, the
/// bind value and the request JSON (-1 for none), for a view or
/// requestState token. Leaves the payload JSON then the secret JSON in
/// `out`; returns the payload's length (or minus the reason, or a status)
/// and sets `secret_len` to the secret's length, -1 when it has none.
#[allow(clippy::too_many_arguments)]
pub fn open_with(
    codec: &Codec,
    input: &[u8],
    out: &mut Vec<u8>,
    what: u8,
    lens: [i32; 4],
    now_ms: f64,
    secret_len: &mut i32,
) -> f64 {
    *secret_len = -1;
    let Some([Some(token), Some(tool), bind, request]) = fields(input, lens) else {
        return status(STATUS_BAD_INPUT);
    };
    let Some(purpose) = purpose_of(what, tool) else {
        return status(STATUS_UNKNOWN_OP);
    };
    if clock::unix_seconds(now_ms).is_none() {
        return status(STATUS_INVALID_CLOCK);
    }
    let with = OpenWith { bind, request };
    match codec.open_as_with(token.as_bytes(), purpose, with, true, now_ms) {
        Ok(opened) => {
            let payload = opened.payload.payload_json().as_bytes();
            let secret = opened.secret.as_deref().map(str::as_bytes);
            let total = payload.len() + secret.map_or(0, <[u8]>::len);
            out.clear();
            if out.try_reserve(total).is_err() {
                return status(STATUS_OUT_OF_MEMORY);
            }
            out.extend_from_slice(payload);
            if let Some(secret) = secret {
                out.extend_from_slice(secret);
                *secret_len = i32::try_from(secret.len()).unwrap_or(i32::MAX);
            }
            payload.len() as f64
        }
        Err(e) => -f64::from(e.reason().code()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::protocol::*;
    use super::codec;

    #[test]
    fn secret_and_request_round_trip_through_the_io_path() {
        use super::{open_with, seal_with};
        let c = codec(&[7u8; 32], &[32], 600.0, 0.0, 4096.0, false).unwrap();
        let now = 1_764_500_000_000.0;
        let (payload, tool, secret, request) = ("{\"a\":1}", "move", "[\"s\"]", "{\"x\":1}");
        let input = [payload, tool, secret, request].concat();
        let mut out = Vec::new();
        let lens = [7, 4, -1, 5, 7];
        let n = seal_with(&c, input.as_bytes(), &mut out, OP_REQUEST_STATE, lens, now);
        assert_eq!(n as usize, out.len());
        let token = String::from_utf8(out.clone()).unwrap();
        let open = |request: &str, rlen: i32| {
            let input = [token.as_str(), tool, request].concat();
            let (mut out, mut slen) = (Vec::new(), 0);
            let lens = [token.len() as i32, 4, -1, rlen];
            let r = open_with(
                &c,
                input.as_bytes(),
                &mut out,
                OP_REQUEST_STATE,
                lens,
                now,
                &mut slen,
            );
            (r, String::from_utf8(out).unwrap(), slen)
        };
        let (r, out, slen) = open("{ \"x\" : 1.0 }", 13);
        assert_eq!((r, out.as_str(), slen), (7.0, "{\"a\":1}[\"s\"]", 5));
        let request_code = -f64::from(crate::error::Reason::Request.code());
        assert_eq!(open("{\"x\":2}", 7).0, request_code);
        assert_eq!(open("", -1).0, request_code);
        // A secret that is not JSON, a raw token, lengths past the input.
        let bad = [payload, tool, "{"].concat();
        let r = seal_with(
            &c,
            bad.as_bytes(),
            &mut out_buf(),
            OP_VIEW,
            [7, 4, -1, 1, -1],
            now,
        );
        assert_eq!(r, f64::from(STATUS_SECRET_NOT_JSON));
        let r = seal_with(&c, input.as_bytes(), &mut out_buf(), OP_RAW, lens, now);
        assert_eq!(r, f64::from(STATUS_UNKNOWN_OP));
        let r = seal_with(
            &c,
            input.as_bytes(),
            &mut out_buf(),
            OP_VIEW,
            [7, 4, -1, 5, 99],
            now,
        );
        assert_eq!(r, f64::from(STATUS_BAD_INPUT));
    }

    fn out_buf() -> Vec<u8> {
        Vec::new()
    }

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
