//! Exports of the edge build: the keyed codec.

use core::cell::Cell;

use wasm_bindgen::prelude::{wasm_bindgen, JsError};

use crate::codec::{self, CodecOptions};
use crate::envelope::Inner;
use crate::keys;
use crate::Reason;

/// The core codec plus the reason of the last failed open, which the glue
/// reads after an `undefined` result (cheaper than throwing across the boundary).
#[wasm_bindgen(js_name = WasmCodec)]
pub struct WasmCodec {
    inner: codec::Codec,
    reason: Cell<u8>,
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
        })
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
