// Every codec under test, configured with the same key, and the check that
// they all accept each other's tokens (run before any timing).
import { isDeepStrictEqual } from "node:util";
import { webcrypto } from "node:crypto";
import { createRequestStateCodec as sdkCreateRequestStateCodec } from "@modelcontextprotocol/server";
import * as jose from "jose";
import { importPackage } from "../test/support.mjs";
import { NodeCryptoCodec } from "./node-codec.mjs";

export const KEY = "bench-key: 0123456789abcdefghijklmnopqrstuvwxyz"; // 46 bytes
export const BIND = "user-42";
export const CTX = { user: BIND };
export const TOOL = "move";

export async function makeCodecs() {
  const pkg = await importPackage();
  const bindFn = (ctx) => ctx.user;
  const joseKey = await webcrypto.subtle.importKey("raw", new TextEncoder().encode(KEY), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  return {
    pkg,
    ours: new pkg.StateCodec({ key: KEY }),
    dropIn: pkg.createRequestStateCodec({ key: KEY }),
    dropInBound: pkg.createRequestStateCodec({ key: KEY, bind: bindFn }),
    sdk: sdkCreateRequestStateCodec({ key: KEY }),
    sdkBound: sdkCreateRequestStateCodec({ key: KEY, bind: bindFn }),
    nodeHmac: new NodeCryptoCodec({ key: KEY, mode: "hmac" }),
    nodeKeyed: new NodeCryptoCodec({ key: KEY, mode: "keyed" }),
    jose: {
      sign: (payload) => new jose.SignJWT(payload).setProtectedHeader({ alg: "HS256" }).setExpirationTime("10m").sign(joseKey),
      verify: async (token) => (await jose.jwtVerify(token, joseKey, { algorithms: ["HS256"] })).payload,
    },
  };
}

function fail(msg) {
  throw new Error(`interop check failed: ${msg}`);
}

async function rejects(what, f) {
  try {
    await f();
  } catch {
    return;
  }
  fail(`${what} was accepted`);
}

/**
 * Every minter's token opens in every verifier (unbound and bound), the raw
 * tokens are byte-identical across ours, the SDK's and node:crypto's for the
 * same second, the purpose tokens cross between ours and node:crypto, and
 * tampering / wrong binding / wrong purpose are refused by all. Returns the
 * number of checks made.
 */
export async function checkInterop(c, payload) {
  let checks = 0;
  const same = (got, what) => {
    checks++;
    if (!isDeepStrictEqual(got, payload)) fail(`${what} returned another payload`);
  };
  const minters = {
    ours: (b) => c.ours.mint(payload, b ? { bind: BIND } : undefined),
    dropIn: (b) => (b ? c.dropInBound.mint(payload, CTX) : c.dropIn.mint(payload)),
    sdk: (b) => (b ? c.sdkBound.mint(payload, CTX) : c.sdk.mint(payload)),
    nodeHmac: (b) => c.nodeHmac.mint(payload, b ? { bind: BIND } : undefined),
    nodeKeyed: (b) => c.nodeKeyed.mint(payload, b ? { bind: BIND } : undefined),
  };
  const verifiers = {
    ours: (t, b) => c.ours.verify(t, b ? { bind: BIND } : undefined),
    dropIn: (t, b) => (b ? c.dropInBound.verify(t, CTX) : c.dropIn.verify(t)),
    sdk: (t, b) => (b ? c.sdkBound.verify(t, CTX) : c.sdk.verify(t)),
    nodeHmac: (t, b) => c.nodeHmac.verify(t, b ? { bind: BIND } : undefined),
    nodeKeyed: (t, b) => c.nodeKeyed.verify(t, b ? { bind: BIND } : undefined),
  };
  for (const bound of [false, true]) {
    // Byte identity: mint all in the same second (retry across a second boundary).
    for (let attempt = 0; ; attempt++) {
      const sec = Math.floor(Date.now() / 1000);
      const tokens = {};
      for (const [name, mint] of Object.entries(minters)) tokens[name] = await mint(bound);
      if (Math.floor(Date.now() / 1000) !== sec) {
        if (attempt < 5) continue;
        fail("could not mint within one second");
      }
      const distinct = new Set(Object.values(tokens));
      checks++;
      if (distinct.size !== 1) fail(`${bound ? "bound" : "unbound"} tokens differ between codecs: ${Object.keys(tokens).join(", ")}`);
      for (const [mname, token] of Object.entries(tokens)) {
        for (const [vname, verify] of Object.entries(verifiers)) same(await verify(token, bound), `${vname}.verify(${mname}.mint) ${bound ? "bound" : ""}`);
      }
      // Tampered, and bound/unbound mixed up: refused by all.
      const mac = token0(tokens).lastIndexOf(".") + 10;
      const t = token0(tokens);
      const tampered = t.slice(0, mac) + (t[mac] === "A" ? "B" : "A") + t.slice(mac + 1);
      for (const [vname, verify] of Object.entries(verifiers)) {
        checks += 2;
        await rejects(`${vname}.verify(tampered)`, () => verify(tampered, bound));
        await rejects(`${vname}.verify(${bound ? "bound token without bind" : "unbound token with bind"})`, () => verify(t, !bound));
      }
      break;
    }
    // The purpose envelopes: ours <-> node:crypto, both ways, both modes.
    const opts = bound ? { bind: BIND } : undefined;
    for (const node of [c.nodeHmac, c.nodeKeyed]) {
      for (const [sealer, opener] of [
        [c.ours, node],
        [node, c.ours],
      ]) {
        const v = sealer.seal(payload, opts);
        const r = sealer.sealRequestState(payload, TOOL, opts);
        same(opener.open(v, opts), "open(seal)");
        same(opener.openRequestState(r, TOOL, opts), "openRequestState(sealRequestState)");
        checks += 3;
        await rejects("open(requestState token)", () => opener.open(r, opts));
        await rejects("openRequestState(view token)", () => opener.openRequestState(v, TOOL, opts));
        await rejects("openRequestState(other tool)", () => opener.openRequestState(r, "other", opts));
      }
      checks++;
      if (c.ours.seal(payload, opts) !== node.seal(payload, opts)) fail("view tokens differ between ours and node:crypto");
    }
    // A view token is a raw v1 token to the SDK: it opens there with the envelope.
    checks++;
    const inner = await (bound ? c.sdkBound.verify(c.ours.seal(payload, opts), CTX) : c.sdk.verify(c.ours.seal(payload, opts)));
    if (!isDeepStrictEqual(inner, { p: "v", d: payload })) fail("the SDK does not see our purpose envelope");
  }
  // jose: a round trip of its own format.
  const jwt = await c.jose.sign(payload);
  const back = await c.jose.verify(jwt);
  checks++;
  if (!isDeepStrictEqual({ ...back, exp: undefined }, { ...payload, exp: undefined })) fail("jose round trip");
  return checks;
}

function token0(tokens) {
  return Object.values(tokens)[0];
}
