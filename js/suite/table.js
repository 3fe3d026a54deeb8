// The runner of the opening tables in tests/vectors/ (hostile.json,
// reasons.json), as tests/common/table.rs runs them in Rust: each case builds
// its tokens, opens each with each opener and reads it with the unverified
// reader. docs/development.md ("Opening tables") describes the fields. Only
// the web platform is used (WebCrypto, TextEncoder, atob/btoa), so every
// runtime runs it alike.
import { b64url, hexBytes } from "./util.js";

const utf8 = new TextEncoder();
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const BIND_LABEL = "mcp.requestState.bind:";
// What a `"shape": true` case stands for: refused at step 1 however it is opened.
const SHAPE = {
  open: [
    { as: "view", want: "malformed" },
    { as: "requestState", tool: "move", want: "malformed" },
    { as: "raw", bind: "x", want: "malformed" },
  ],
  brokenMac: "malformed",
  reader: "malformed",
};

const isAscii = (s) => /^[\x00-\x7f]*$/.test(s);

/** A position of an edit: from the start, from the end when negative, or "end". */
const position = (v, len, fallback) => (v === undefined ? fallback : v === "end" ? len : v < 0 ? len + v : v);

/** One edit of a string: positions count ASCII characters. */
function edit(s, e) {
  if (e.flip !== undefined) {
    if (!isAscii(s)) throw new Error(`flip edits ASCII text: ${JSON.stringify(e)}`);
    const i = position(e.flip, s.length, 0);
    return s.slice(0, i) + ALPHABET[ALPHABET.indexOf(s[i]) ^ 1] + s.slice(i + 1);
  }
  if (e.replaceAll) return s.split(e.replaceAll[0]).join(e.replaceAll[1]);
  if (e.escapeAll) return [...s].map((c) => `\\u${c.codePointAt(0).toString(16).padStart(4, "0")}`).join("");
  if (!isAscii(s)) throw new Error(`edits apply to ASCII text: ${JSON.stringify(e)}`);
  const at = position(e.at, s.length, s.length);
  const to = position(e.to, s.length, at);
  return s.slice(0, at) + (e.ins ?? "") + s.slice(to);
}
const edits = (s, list = []) => list.reduce(edit, s);

async function hmac(key, ...parts) {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const bytes = parts.map((p) => (typeof p === "string" ? utf8.encode(p) : p));
  const all = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  bytes.reduce((at, b) => (all.set(b, at), at + b.length), 0);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, all));
}

/**
 * A table file, ready to build tokens. `pkg` is the server entry (StateCodec),
 * needed only for tokens the codec under test seals.
 */
export function loadTable(file, pkg) {
  const keys = Object.fromEntries(Object.entries(file.keys).map(([name, k]) => [name, k.utf8 !== undefined ? utf8.encode(k.utf8) : hexBytes(k.hex)]));
  const key = (name = "k1") => keys[name];

  /** Text written as a string or a list of parts. */
  async function text(v) {
    if (typeof v === "string") return v;
    if (Array.isArray(v)) return (await Promise.all(v.map(text))).join("");
    if (v.repeat !== undefined) return (await text(v.repeat)).repeat(v.times);
    if (v.bindTag !== undefined) {
      const mac = await hmac(key(v.key), BIND_LABEL, v.bindTag);
      const tag = b64url(mac.slice(0, v.bytes ?? 16));
      return edits(v.chars === undefined ? tag : tag.slice(0, v.chars), v.edits);
    }
    throw new Error(`not text: ${JSON.stringify(v)}`);
  }

  function codec(spec = {}) {
    return new pkg.StateCodec({
      key: (spec.keys ?? ["k1"]).map(key),
      ...(spec.leewaySeconds === undefined ? {} : { leewaySeconds: spec.leewaySeconds }),
      ...(spec.maxTokenBytes === undefined ? {} : { maxTokenBytes: spec.maxTokenBytes }),
      ...(spec.ttlSeconds === undefined ? {} : { ttlSeconds: spec.ttlSeconds }),
      now: () => spec.nowMs ?? file.nowMs,
    });
  }

  async function token(spec) {
    if (typeof spec === "string" || Array.isArray(spec)) return text(spec);
    let t;
    if (spec.seal) {
      const s = spec.seal;
      const c = codec(s);
      const payload = JSON.parse(await text(s.payload));
      const opts = s.bind === undefined ? undefined : { bind: s.bind };
      t = s.as === "view" ? c.seal(payload, opts) : s.as === "raw" ? c.mint(payload, opts) : c.sealRequestState(payload, s.tool, opts);
    } else {
      const body = spec.envHex !== undefined ? b64url(hexBytes(spec.envHex)) : spec.env !== undefined ? b64url(await text(spec.env)) : await text(spec.body);
      const signed = `${spec.prefix ?? "v1."}${edits(body, spec.bodyEdits)}`;
      const mac = spec.mac === undefined ? await text(spec.macText) : b64url((await hmac(key(spec.mac), signed)).slice(0, spec.macBytes ?? 32));
      t = `${signed}.${mac}`;
    }
    t = edits(t, spec.edits);
    if (spec.length !== undefined && t.length !== spec.length) throw new Error(`the built token has ${t.length} characters, not ${spec.length}`);
    return t;
  }

  /** What `opener` makes of `t`: { payload } or { reason }, after checking a refusal is a SealedStateError with the one message. */
  function open(opener, t) {
    const c = codec(opener.codec);
    const opts = opener.bind === undefined ? undefined : { bind: opener.bind };
    try {
      const payload = opener.as === "view" ? c.open(t, opts) : opener.as === "raw" ? c.verify(t, opts) : c.openRequestState(t, opener.tool, opts);
      return { payload };
    } catch (e) {
      if (!(e instanceof pkg.SealedStateError) || e.message !== pkg.SEALED_STATE_INVALID_MESSAGE) return { error: `${e?.name}: ${e?.message}` };
      if (e.cause !== e.reason) return { error: `cause ${e.cause} for reason ${e.reason}` };
      return { reason: e.reason };
    }
  }

  return { file, text, token, open };
}

/** Equal JSON values, compared without recursion (payloads nest 10,000 deep). */
export function sameJson(a, b) {
  const todo = [[a, b]];
  while (todo.length > 0) {
    const [x, y] = todo.pop();
    if (Object.is(x, y)) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null || Array.isArray(x) !== Array.isArray(y)) return false;
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    if (kx.length !== ky.length || kx.some((k, i) => k !== ky[i])) return false;
    for (const k of kx) todo.push([x[k], y[k]]);
  }
  return true;
}

const PURPOSES = { view: "view", requestState: "requestState", raw: null };
const show = (v) => JSON.stringify(v)?.slice(0, 120);

/**
 * Runs every case of a table file: the codec of `pkg` (the server entry) and
 * the reader of `widget`. Returns { cases, tokens, checks, failures }: one
 * line per check that failed, by case name.
 */
export async function runTable(file, pkg, widget) {
  const table = loadTable(file, pkg);
  const failures = [];
  let tokens = 0;
  let checks = 0;
  for (const c of file.cases) {
    if (c.only !== undefined && c.only !== "js") continue;
    const { open = [], brokenMac, reader } = c.shape ? SHAPE : c;
    for (const [i, spec] of c.tokens.entries()) {
      tokens++;
      const fail = (what) => failures.push(`${c.name} #${i}: ${what}`);
      const t = await table.token(spec);
      for (const opener of open) {
        if (opener.only !== undefined && opener.only !== "js") continue;
        checks++;
        const got = table.open(opener, t);
        const ok = typeof opener.want === "string" ? got.reason === opener.want : "payload" in got && sameJson(got.payload, JSON.parse(await table.text(opener.want.payload)));
        if (!ok) fail(`${show(opener)}: got ${show(got)}`);
        const dot = t.lastIndexOf(".");
        if (brokenMac !== undefined && typeof opener.want === "string" && dot >= 0 && dot + 1 < t.length) {
          checks++;
          const broken = t.slice(0, dot + 1) + (t[dot + 1] === "A" ? "B" : "A") + t.slice(dot + 2);
          const got2 = table.open(opener, broken);
          if (got2.reason !== brokenMac) fail(`${show(opener)} with a broken MAC: got ${show(got2)}`);
        }
      }
      if (reader !== undefined) {
        checks++;
        let view;
        try {
          view = widget.readTokenUnverified(t);
        } catch (e) {
          if (reader !== "malformed" || !(e instanceof widget.SealedStateError) || e.reason !== "malformed") fail(`reader: want ${show(reader)}, threw ${e?.name}: ${e?.reason ?? e?.message}`);
          continue;
        }
        if (reader === "malformed") fail(`reader: want malformed, read ${show(view)}`);
        else {
          if (reader.purpose !== undefined && view.purpose !== PURPOSES[reader.purpose]) fail(`reader purpose: want ${reader.purpose}, got ${view.purpose}`);
          if (reader.tool !== undefined && view.tool !== reader.tool) fail(`reader tool: want ${show(reader.tool)}, got ${show(view.tool)}`);
          if (reader.payload !== undefined && !sameJson(view.payload, JSON.parse(await table.text(reader.payload)))) fail("reader payload differs");
          if (reader.exp !== undefined && view.exp !== reader.exp) fail(`reader exp: want ${reader.exp}, got ${view.exp}`);
          if (reader.bound !== undefined && view.bound !== reader.bound) fail(`reader bound: want ${reader.bound}, got ${view.bound}`);
        }
      }
    }
  }
  return { cases: file.cases.length, tokens, checks, failures };
}
