//! Exports of the edge build: the keyed codec.

use core::cell::{Cell, RefCell};

use wasm_bindgen::prelude::{wasm_bindgen, JsError, JsValue};

use crate::codec::{self, CodecOptions};
use crate::envelope::Inner;
use crate::keys;
use crate::Reason;

/// The core codec plus the reason of the last failed open, which the glue
/// reads after an `undefined` result (cheaper than throwing across the boundary).
///
/// The `*Io` methods are the glue's fast path: it writes its strings as UTF-8
/// straight into `input` (`TextEncoder.encodeInto` on a view of wasm memory)
/// and reads the result out of `output`, so no call allocates for its
/// arguments or its result and nothing is copied twice. Both buffers are
/// kept between calls.
#[wasm_bindgen(js_name = WasmCodec)]
pub struct WasmCodec {
    inner: codec::Codec,
    reason: Cell<u8>,
    input: RefCell<Vec<u8>>,
    output: RefCell<Vec<u8>>,
}

/// What an `*Io` call seals or opens.
const IO_VIEW: u8 = 0;
const IO_REQUEST_STATE: u8 = 1;

/// The input buffer read as the strings the glue wrote back to back:
/// `first` bytes, then `second` bytes, then `third` bytes (`third < 0`: absent).
/// `None` when the lengths overrun the buffer or a string is not UTF-8 (the
/// glue writes with `encodeInto`, which never produces that).
fn texts(
    input: &[u8],
    first: usize,
    second: usize,
    third: i32,
) -> Option<(&str, &str, Option<&str>)> {
    let (a, rest) = input.split_at_checked(first)?;
    let (b, rest) = rest.split_at_checked(second)?;
    let c = match usize::try_from(third) {
        Ok(n) => Some(core::str::from_utf8(rest.get(..n)?).ok()?),
        Err(_) => None,
    };
    Some((
        core::str::from_utf8(a).ok()?,
        core::str::from_utf8(b).ok()?,
        c,
    ))
}

#[wasm_bindgen(js_class = WasmCodec)]
impl WasmCodec {
    /// `keys` is every key's bytes back to back, `key_lengths` their lengths
    /// (first seals, all open); both are copied. `max_token_bytes` <= 0 keeps the default.
    #[wasm_bindgen(constructor)]
    pub fn new(
        keys: &[u8],
        key_lengths: &[u32],
        ttl_seconds: f64,
        leeway_seconds: f64,
        max_token_bytes: f64,
        production: bool,
    ) -> Result<WasmCodec, JsError> {
        let mut list: Vec<&[u8]> = Vec::with_capacity(key_lengths.len());
        let mut rest = keys;
        for &len in key_lengths {
            let (key, tail) = rest
                .split_at_checked(len as usize)
                .ok_or_else(|| JsError::new("key lengths do not add up"))?;
            list.push(key);
            rest = tail;
        }
        let mut options = CodecOptions::with_keys(list);
        options.ttl_seconds = ttl_seconds as i64;
        options.leeway_seconds = leeway_seconds as i64;
        options.production = production;
        if max_token_bytes > 0.0 {
            options.max_token_bytes = max_token_bytes as usize;
        }
        let inner = codec::Codec::new(options).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(WasmCodec {
            inner,
            reason: Cell::new(0),
            input: RefCell::new(Vec::new()),
            output: RefCell::new(Vec::new()),
        })
    }

    /// Address of the input buffer, grown to at least `len` bytes. It moves
    /// when it grows, so the glue asks again whenever it needs more room.
    #[wasm_bindgen(js_name = inputBuffer)]
    pub fn input_buffer(&self, len: usize) -> *const u8 {
        let Ok(mut input) = self.input.try_borrow_mut() else {
            return core::ptr::null();
        };
        if input.len() < len {
            input.resize(len, 0);
        }
        input.as_ptr()
    }

    /// Address of the output buffer. It only moves when a result is longer
    /// than [`WasmCodec::output_capacity`].
    #[wasm_bindgen(js_name = outputBuffer)]
    pub fn output_buffer(&self) -> *const u8 {
        self.output
            .try_borrow()
            .map_or(core::ptr::null(), |o| o.as_ptr())
    }

    /// Bytes the output buffer holds before it has to move.
    #[wasm_bindgen(js_name = outputCapacity)]
    pub fn output_capacity(&self) -> usize {
        self.output.try_borrow().map_or(0, |o| o.capacity())
    }

    /// Seal from the input buffer, which holds the payload JSON
    /// (`payload_len` bytes, from `JSON.stringify`), then the tool
    /// (`tool_len`, requestState only), then the bind value (`bind_len`, or
    /// -1 for none). `what`: 0 view token, 1 requestState, 2 raw (`mint`).
    /// The token is left in the output buffer; returns its length, or -1 if
    /// the input is not what the glue promised.
    #[wasm_bindgen(js_name = sealIo)]
    pub fn seal_io(
        &self,
        what: u8,
        payload_len: usize,
        tool_len: usize,
        bind_len: i32,
        now_ms: f64,
    ) -> f64 {
        let (Ok(input), Ok(mut out)) = (self.input.try_borrow(), self.output.try_borrow_mut())
        else {
            return -1.0;
        };
        let Some((payload, tool, bind)) = texts(&input, payload_len, tool_len, bind_len) else {
            return -1.0;
        };
        let inner = match what {
            IO_VIEW => Inner::View(payload),
            IO_REQUEST_STATE => Inner::RequestState { payload, tool },
            _ => Inner::Raw(payload),
        };
        out.clear();
        self.inner.seal_into(inner, bind, now_ms, &mut out);
        out.len() as f64
    }

    /// Open from the input buffer, which holds the token (`token_len`
    /// bytes), then the tool (`tool_len`), then the bind value (`bind_len`,
    /// or -1). `what` as for [`WasmCodec::seal_io`]. The payload JSON is left
    /// in the output buffer; returns its length, or minus the reason code.
    #[wasm_bindgen(js_name = openIo)]
    pub fn open_io(
        &self,
        what: u8,
        token_len: usize,
        tool_len: usize,
        bind_len: i32,
        now_ms: f64,
    ) -> f64 {
        let (Ok(input), Ok(mut out)) = (self.input.try_borrow(), self.output.try_borrow_mut())
        else {
            return -f64::from(Reason::Malformed as u8);
        };
        let Some((token, tool, bind)) = texts(&input, token_len, tool_len, bind_len) else {
            self.reason.set(Reason::Malformed as u8);
            return -f64::from(Reason::Malformed as u8);
        };
        let opened = match what {
            IO_VIEW => self.inner.open_at(token, bind, now_ms),
            IO_REQUEST_STATE => self.inner.open_request_state_at(token, tool, bind, now_ms),
            _ => self.inner.verify_at(token, bind, now_ms),
        };
        match opened {
            Ok(opened) => {
                out.clear();
                out.extend_from_slice(opened.payload_json().as_bytes());
                out.len() as f64
            }
            Err(e) => {
                let code = e.reason() as u8;
                self.reason.set(code);
                -f64::from(code)
            }
        }
    }

    /// Whether it runs on the dev ephemeral key.
    #[wasm_bindgen(getter, js_name = isEphemeral)]
    pub fn is_ephemeral(&self) -> bool {
        self.inner.is_ephemeral()
    }

    /// Reason code of the last failed open: 1 malformed, 2 mac, 3 expired,
    /// 4 bind, 5 purpose.
    #[wasm_bindgen(getter, js_name = lastReason)]
    pub fn last_reason(&self) -> u8 {
        self.reason.get()
    }

    /// View token. `payload_json` must come from `JSON.stringify`.
    pub fn seal(&self, payload_json: &str, bind: Option<String>, now_ms: f64) -> String {
        self.inner
            .seal_unchecked(Inner::View(payload_json), bind.as_deref(), now_ms)
    }

    /// MRTR requestState token for `tool`.
    #[wasm_bindgen(js_name = sealRequestState)]
    pub fn seal_request_state(
        &self,
        payload_json: &str,
        tool: &str,
        bind: Option<String>,
        now_ms: f64,
    ) -> String {
        self.inner.seal_unchecked(
            Inner::RequestState {
                payload: payload_json,
                tool,
            },
            bind.as_deref(),
            now_ms,
        )
    }

    /// Raw v1 token, as the SDK's `mint`.
    pub fn mint(&self, payload_json: &str, bind: Option<String>, now_ms: f64) -> String {
        self.inner
            .seal_unchecked(Inner::Raw(payload_json), bind.as_deref(), now_ms)
    }

    /// Payload JSON of a view token, or `undefined` (see `lastReason`).
    pub fn open(&self, token: &str, bind: Option<String>, now_ms: f64) -> Option<String> {
        self.settle(self.inner.open_at(token, bind.as_deref(), now_ms))
    }

    /// Payload JSON of a requestState token for `tool`, or `undefined`.
    #[wasm_bindgen(js_name = openRequestState)]
    pub fn open_request_state(
        &self,
        token: &str,
        tool: &str,
        bind: Option<String>,
        now_ms: f64,
    ) -> Option<String> {
        self.settle(
            self.inner
                .open_request_state_at(token, tool, bind.as_deref(), now_ms),
        )
    }

    /// `p` of a raw v1 token, or `undefined`.
    pub fn verify(&self, token: &str, bind: Option<String>, now_ms: f64) -> Option<String> {
        self.settle(self.inner.verify_at(token, bind.as_deref(), now_ms))
    }

    fn settle(&self, r: Result<codec::Opened, crate::SealedStateError>) -> Option<String> {
        match r {
            Ok(opened) => Some(opened.into_payload_json()),
            Err(e) => {
                self.reason.set(e.reason() as u8);
                None
            }
        }
    }
}

/// True once per wasm instance when a codec runs on the ephemeral key, so the
/// glue logs the warning once.
#[wasm_bindgen(js_name = ephemeralWarningDue)]
pub fn ephemeral_warning_due() -> bool {
    keys::ephemeral_warning_due()
}

/// The wasm memory, for the glue's views on the `*Io` buffers.
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

/// The warning text.
#[wasm_bindgen(js_name = ephemeralKeyWarning)]
pub fn ephemeral_key_warning() -> String {
    keys::EPHEMERAL_KEY_WARNING.into()
}

/// Reason code names, index = code.
#[wasm_bindgen(js_name = reasonName)]
pub fn reason_name(code: u8) -> String {
    let r = match code {
        2 => Reason::Mac,
        3 => Reason::Expired,
        4 => Reason::Bind,
        5 => Reason::Purpose,
        _ => Reason::Malformed,
    };
    r.as_str().into()
}
