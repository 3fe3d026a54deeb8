// @ts-check
// The widget .wasm's bytes from the lowercase hex text js/build.mjs writes
// into ./wasm-inline.js. Uint8Array.fromHex where the platform has it
// (Chromium 140+, Firefox 133+, Safari 18.2+); else a loop over the text.
// Its only input is that constant: a damaged byte fails the wasm's compile,
// and the JS twin serves.

/** `text` (lowercase hex, even length) as bytes, without Uint8Array.fromHex. */
/** @param {string} text */
export function hexBytesPortable(text) {
  const bytes = new Uint8Array(text.length >>> 1);
  for (let i = 0, j = 0; i < bytes.length; i++, j += 2) {
    // "0"-"9" (0x30-0x39) give c & 15; "a"-"f" (0x61-0x66) give (c & 15) + 9.
    const hi = text.charCodeAt(j);
    const lo = text.charCodeAt(j + 1);
    bytes[i] = (((hi & 15) + (hi >> 6) * 9) << 4) | ((lo & 15) + (lo >> 6) * 9);
  }
  return bytes;
}

/** `text` (lowercase hex, even length) as bytes. */
// Uint8Array.fromHex is newer than the libraries the type check reads.
/** @type {(text: string) => Uint8Array} */
export const hexBytes = (text) => (typeof (/** @type {any} */ (Uint8Array).fromHex) === "function" ? /** @type {any} */ (Uint8Array).fromHex(text) : hexBytesPortable(text));
