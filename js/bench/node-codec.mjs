// A synchronous node:crypto implementation of the same v1 wire format, the
// native-JS bound the issue asks for. It is what a careful Node user would
// write by hand: Buffer's native base64url, JSON.stringify of the whole
// envelope, HMAC-SHA256 from OpenSSL, timingSafeEqual.
//
// Two ways to key the MAC:
//   mode "hmac"   createHmac("sha256", keyObject) per call: what a naive
//                 implementation does (OpenSSL re-derives the pads every call).
//   mode "keyed"  HMAC keyed once: the inner and outer pad states are hashed at
//                 construction and cloned per call with Hash#copy() (Node has no
//                 Hmac#copy). HMAC(k, m) = H((k^opad) || H((k^ipad) || m)).
//
// Same checks as the SDK's verify and our open, in the order of docs/format.md: shape, MAC
// (constant time), body (strict UTF-8, object, integer exp), expiry, binding,
// purpose/tool. Errors are plain Errors whose message is the reason code.
import { createHash, createHmac, createSecretKey, timingSafeEqual } from "node:crypto";

const PREFIX = "v1.";
const BIND_LABEL = "mcp.requestState.bind:";
const B64URL = /^[A-Za-z0-9_-]+$/;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function fail(reason) {
  throw new Error(reason);
}

export class NodeCryptoCodec {
  #mac; // (string | Buffer) => Buffer, the HMAC of the input
  #ttl;

  constructor({ key, ttlSeconds = 600, mode = "keyed" }) {
    const k = typeof key === "string" ? Buffer.from(key, "utf8") : Buffer.from(key);
    if (k.length < 32) throw new RangeError("key must be at least 32 bytes");
    this.#ttl = ttlSeconds;
    this.mode = mode;
    if (mode === "hmac") {
      const keyObject = createSecretKey(k);
      this.#mac = (data) => createHmac("sha256", keyObject).update(data).digest();
    } else if (mode === "keyed") {
      const block = Buffer.alloc(64);
      (k.length > 64 ? createHash("sha256").update(k).digest() : k).copy(block);
      const ipad = Buffer.alloc(64);
      const opad = Buffer.alloc(64);
      for (let i = 0; i < 64; i++) {
        ipad[i] = block[i] ^ 0x36;
        opad[i] = block[i] ^ 0x5c;
      }
      const inner = createHash("sha256").update(ipad);
      const outer = createHash("sha256").update(opad);
      block.fill(0);
      ipad.fill(0);
      opad.fill(0);
      this.#mac = (data) => outer.copy().update(inner.copy().update(data).digest()).digest();
    } else {
      throw new TypeError(`unknown mode ${mode}`);
    }
  }

  #bindTag(value) {
    return this.#mac(BIND_LABEL + value)
      .subarray(0, 16)
      .toString("base64url");
  }

  #make(p, bind) {
    const env = { p, exp: Math.floor(Date.now() / 1000) + this.#ttl };
    if (bind !== undefined) env.b = this.#bindTag(bind);
    const signed = PREFIX + Buffer.from(JSON.stringify(env), "utf8").toString("base64url");
    return `${signed}.${this.#mac(signed).toString("base64url")}`;
  }

  #take(token, bind) {
    if (typeof token !== "string" || !token.startsWith(PREFIX)) fail("malformed");
    const dot = token.indexOf(".", 3);
    if (dot < 4 || token.length - dot - 1 !== 43) fail("malformed");
    const body = token.slice(3, dot);
    const mac = token.slice(dot + 1);
    if (!B64URL.test(body) || !B64URL.test(mac)) fail("malformed");
    const given = Buffer.from(mac, "base64url");
    const signed = token.slice(0, dot);
    if (given.length !== 32 || !timingSafeEqual(given, this.#mac(signed))) fail("mac");
    let env;
    try {
      env = JSON.parse(strictUtf8.decode(Buffer.from(body, "base64url")));
    } catch {
      fail("malformed");
    }
    if (env === null || typeof env !== "object" || Array.isArray(env) || !("p" in env) || !Number.isInteger(env.exp)) fail("malformed");
    if (env.exp < Math.floor(Date.now() / 1000)) fail("expired");
    if (bind !== undefined) {
      if (typeof env.b !== "string") fail("bind");
      const want = Buffer.from(this.#bindTag(bind));
      const got = Buffer.from(env.b);
      if (got.length !== want.length || !timingSafeEqual(got, want)) fail("bind");
    } else if (env.b !== undefined) fail("bind");
    return env.p;
  }

  /** Raw v1 token, as the SDK's mint. */
  mint(payload, opts) {
    return this.#make(payload, opts?.bind);
  }
  verify(token, opts) {
    return this.#take(token, opts?.bind);
  }
  /** View token: {"p":"v","d":payload}. */
  seal(payload, opts) {
    return this.#make({ p: "v", d: payload }, opts?.bind);
  }
  open(token, opts) {
    const p = this.#take(token, opts?.bind);
    if (p === null || typeof p !== "object" || p.p !== "v" || !("d" in p)) fail("purpose");
    return p.d;
  }
  /** MRTR requestState token: {"p":"r","d":payload,"o":tool}. */
  sealRequestState(payload, tool, opts) {
    return this.#make({ p: "r", d: payload, o: tool }, opts?.bind);
  }
  openRequestState(token, tool, opts) {
    const p = this.#take(token, opts?.bind);
    if (p === null || typeof p !== "object" || p.p !== "r" || !("d" in p) || p.o !== tool) fail("purpose");
    return p.d;
  }
}
