// Helpers the test modules share, from the web platform only (TextEncoder,
// atob/btoa, WebCrypto), so they behave the same in every runtime.
import { assert } from "./harness.js";

const utf8 = new TextEncoder();

export const T0 = Date.UTC(2026, 6, 28, 12, 0, 0, 250); // ms, not on a second boundary
export const S0 = Math.floor(T0 / 1000);
export const KEY = "suite-test-key: at least thirty-two bytes long, surely";
export const KEY2 = new Uint8Array(32).map((_, i) => i * 7 + 1);
export const TOKEN_SHAPE = /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/;
export const PAYLOAD = { board: [0, 1, 2, null], turn: 2, name: "Zoë 🎲", nested: { ok: true, n: -1.5e-7 } };
export const NG_MCP_UI_MESSAGE = "ng-mcp-ui: sealed state is invalid or expired";

/** base64url without padding, of bytes or of a string's UTF-8. */
export function b64url(data) {
  const bytes = typeof data === "string" ? utf8.encode(data) : data;
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The bytes of unpadded base64url. */
export function fromB64url(text) {
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** The envelope JSON of a token, parsed. */
export const envelope = (token) => JSON.parse(new TextDecoder().decode(fromB64url(token.split(".")[1])));

export const hexBytes = (hex) => Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));

/** A vector's key as the bytes or string the SDK was given. */
export const vectorKey = (key) => (key.utf8 !== undefined ? key.utf8 : hexBytes(key.hex));

/** HMAC-SHA256 by WebCrypto (not by the package under test). */
async function hmac(key, text) {
  const raw = typeof key === "string" ? utf8.encode(key) : key;
  const k = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, utf8.encode(text)));
}

/** A token with a VALID MAC around any body bytes: it gets past the MAC to the body checks. */
export async function signed(body, key = KEY) {
  const b = b64url(body);
  return `v1.${b}.${b64url(await hmac(key, `v1.${b}`))}`;
}

/** A v1-shaped token around any body text, with a junk MAC (the widget never checks it). */
export const forged = (bodyText, mac = "A".repeat(43)) => `v1.${b64url(bodyText)}.${mac}`;

/** `fn` throws a SealedStateError with this reason and the one stable message (never a wasm trap). */
export function refused(pkg, fn, reason, label) {
  const e = assert.throws(fn, undefined, label);
  assert.ok(!(e instanceof WebAssembly.RuntimeError), `${label ?? reason}: a wasm trap: ${e}`);
  assert.ok(e instanceof pkg.SealedStateError, `${label ?? reason}: ${e?.constructor?.name}: ${e?.message}`);
  assert.ok(e instanceof Error);
  assert.equal(e.name, "SealedStateError");
  assert.equal(e.message, pkg.SEALED_STATE_INVALID_MESSAGE, label);
  assert.equal(e.reason, reason, label);
  return e;
}

/** `fn` throws an ordinary, clear error of `type` whose message matches `pattern` (never a trap). */
export function clearError(fn, type, pattern, label) {
  const e = assert.throws(fn, undefined, label);
  assert.ok(!(e instanceof WebAssembly.RuntimeError), `${label ?? pattern}: a wasm trap: ${e}`);
  assert.ok(e instanceof type, `${label ?? pattern}: ${e?.constructor?.name}: ${e?.message}`);
  assert.match(e.message, pattern, label);
  return e;
}

/** Run `fn` with Date.now pinned to `ms` (for the drop-in, which has no clock option, as the SDK). */
export async function atClock(ms, fn) {
  const real = Date.now;
  Date.now = () => ms;
  try {
    return await fn();
  } finally {
    Date.now = real;
  }
}
