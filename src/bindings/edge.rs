//! Exports of the edge build: the keyed codec, through one I/O path.
//!
//! The glue writes its strings as UTF-8 straight into the input buffer in
//! wasm memory (`TextEncoder.encodeInto`), calls `sealIo` or `openIo`, and
//! reads the result out of the output buffer, so no call allocates for its
//! arguments or its result and nothing is copied twice.
//!
//! The two buffers belong to the instance, not to a codec: a `WasmCodec` holds
//! only its keys and options, so a server that builds a codec per request
//! (and never frees it, where there is no `FinalizationRegistry`) leaves a few
//! hundred bytes behind, not three times its largest payload. The glue reads
//! its clock and runs `toJSON` before it writes, so no call into a codec can
//! begin while another one's input sits in the buffer.
//!
//! No call holds a borrow of a buffer across an allocation: each takes the
//! buffers out of their `Cell`s and puts them back when done. Every buffer
//! that grows with the input is grown with `try_reserve`, so running out of
//! memory is a status code. Should a call trap all the same, the buffers it
//! held are lost, not left borrowed: the next call starts with empty ones.

use core::cell::Cell;

use wasm_bindgen::prelude::{wasm_bindgen, JsValue};

use super::protocol::STATUS_NO_CODEC;
use super::{io, widget};
use crate::codec;
use crate::keys;

std::thread_local! {
    /// The input buffer of every codec of this instance.
    static INPUT: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    /// The output buffer of every codec of this instance.
    static OUTPUT: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// Run `f` with a buffer taken out of its cell, and put it back after (see
/// the module docs for why).
fn with<R>(
    cell: &'static std::thread::LocalKey<Cell<Vec<u8>>>,
    f: impl FnOnce(&mut Vec<u8>) -> R,
) -> R {
    cell.with(|cell| {
        let mut buf = cell.take();
        let result = f(&mut buf);
        cell.set(buf);
        result
    })
}

/// Address of the input buffer, grown to at least `len` bytes, or 0 when
/// the memory for it cannot be had. It moves when it grows, so the glue
/// asks again whenever it needs more room.
#[wasm_bindgen(js_name = inputBuffer)]
pub fn input_buffer(len: usize) -> *const u8 {
    with(&INPUT, |buf| {
        if buf.capacity() < len {
            // Its contents are not needed: free it before asking for more.
            *buf = Vec::new();
            if buf.try_reserve_exact(len).is_err() {
                return core::ptr::null();
            }
        }
        if buf.len() < len {
            buf.resize(len, 0); // within capacity: no allocation
        }
        buf.as_ptr()
    })
}

/// Address of the output buffer. It only moves when a result is longer
/// than [`output_capacity`].
#[wasm_bindgen(js_name = outputBuffer)]
pub fn output_buffer() -> *const u8 {
    with(&OUTPUT, |buf| buf.as_ptr())
}

/// Bytes the output buffer holds before it has to move.
#[wasm_bindgen(js_name = outputCapacity)]
pub fn output_capacity() -> usize {
    with(&OUTPUT, |buf| buf.capacity())
}

/// The core codec, kept between calls; the I/O buffers are the instance's.
#[wasm_bindgen(js_name = WasmCodec)]
pub struct WasmCodec {
    /// The codec, or the `configError` of options that build none.
    inner: Result<codec::Codec, u32>,
}

impl WasmCodec {
    /// Run `f` with the codec and both buffers.
    fn with_buffers(&self, f: impl FnOnce(&codec::Codec, &[u8], &mut Vec<u8>) -> f64) -> f64 {
        let Ok(inner) = &self.inner else {
            return f64::from(STATUS_NO_CODEC);
        };
        with(&INPUT, |input| with(&OUTPUT, |out| f(inner, input, out)))
    }
}

#[wasm_bindgen(js_class = WasmCodec)]
impl WasmCodec {
    /// `keys` is every key's bytes back to back, `key_lengths` their lengths
    /// (first seals, all open); both are copied. Options that build no codec
    /// leave [`WasmCodec::config_error`] non-zero (not a `Result`: see
    /// `protocol::CONFIG_OK` for why), and the glue frees it.
    #[wasm_bindgen(constructor)]
    pub fn new(
        keys: &[u8],
        key_lengths: &[u32],
        ttl_seconds: f64,
        leeway_seconds: f64,
        max_token_bytes: f64,
        production: bool,
    ) -> WasmCodec {
        WasmCodec {
            inner: io::codec(
                keys,
                key_lengths,
                ttl_seconds,
                leeway_seconds,
                max_token_bytes,
                production,
            ),
        }
    }

    /// 0 when the options built a codec, else a `protocol::CONFIG_*` code
    /// (with the key's index above the low byte for a short key).
    #[wasm_bindgen(getter, js_name = configError)]
    pub fn config_error(&self) -> u32 {
        self.inner.as_ref().err().copied().unwrap_or(0)
    }

    /// Seal from the input buffer, which holds the payload JSON
    /// (`payload_len` bytes, from `JSON.stringify`), then the tool
    /// (`tool_len`, requestState only), then the bind value, the secret's
    /// JSON and the request's JSON (each -1 for none). `what` is an `OP_*`
    /// code. The token is left in the output buffer; returns its length, or
    /// a `STATUS_*` code.
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(js_name = sealIo)]
    pub fn seal_io(
        &self,
        what: u8,
        payload_len: usize,
        tool_len: usize,
        bind_len: i32,
        secret_len: i32,
        request_len: i32,
        now_ms: f64,
    ) -> f64 {
        self.with_buffers(|codec, input, out| {
            io::seal(
                codec,
                input,
                out,
                what,
                payload_len,
                tool_len,
                bind_len,
                secret_len,
                request_len,
                now_ms,
            )
        })
    }

    /// Open from the input buffer, which holds the token (`token_len`
    /// bytes), then the tool (`tool_len`), then the bind value and the
    /// request's JSON (each -1 for none). `what` is an `OP_*` code, with
    /// `OP_WITH_SECRET` to decrypt the secret too. The payload JSON is left
    /// in the output buffer; returns its length, minus the reason code of a
    /// token that does not open, or a `STATUS_*` code.
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(js_name = openIo)]
    pub fn open_io(
        &self,
        what: u8,
        token_len: usize,
        tool_len: usize,
        bind_len: i32,
        request_len: i32,
        now_ms: f64,
    ) -> f64 {
        self.with_buffers(|codec, input, out| {
            io::open(
                codec,
                input,
                out,
                what,
                token_len,
                tool_len,
                bind_len,
                request_len,
                now_ms,
            )
        })
    }

    /// Whether it runs on the dev ephemeral key.
    #[wasm_bindgen(getter, js_name = isEphemeral)]
    pub fn is_ephemeral(&self) -> bool {
        self.inner.as_ref().is_ok_and(codec::Codec::is_ephemeral)
    }
}

/// True once per wasm instance when a codec runs on the ephemeral key, so the
/// glue logs the warning once.
#[wasm_bindgen(js_name = ephemeralWarningDue)]
pub fn ephemeral_warning_due() -> bool {
    keys::ephemeral_warning_due()
}

/// The unverified reader of `bindings::widget`, returning the JSON as a JS
/// string or `undefined`: one result, where `Option<String>` crosses as two
/// (a pointer and a length), which costs a JS-to-wasm wrapper of its own
/// (see `protocol::CONFIG_OK`).
#[wasm_bindgen(js_name = readTokenJson)]
pub fn read_token_json(token: &str) -> JsValue {
    widget::read_token_json(token).map_or(JsValue::UNDEFINED, JsValue::from)
}
