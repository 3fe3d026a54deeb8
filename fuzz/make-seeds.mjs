// Writes the committed seed corpus, fuzz/corpus/<target>/seed-*, from the SDK
// vectors (tests/vectors/sdk-v1.json) plus a few hand-written hostile inputs.
// Run from anywhere: `node fuzz/make-seeds.mjs`. The input format of each
// target is described at the top of fuzz/fuzz_targets/*.rs.
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const vectors = JSON.parse(readFileSync(join(here, "../tests/vectors/sdk-v1.json"), "utf8")).vectors;
const SEP = Buffer.from([0xff]);
const MAX_SEED_TOKEN = 3000; // the fuzz codec's limit; keeps max_len and the corpus small

const seeds = { open_verify: {}, read_unverified: {}, view_state: {}, request_canonical: {} };
const utf8 = (s) => Buffer.from(s, "utf8");
const input = (flags, ...fields) => Buffer.concat([Buffer.from([flags]), ...fields.flatMap((f, i) => (i ? [SEP, utf8(f)] : [utf8(f)]))]);
const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
const bodyOf = (token) => Buffer.from(token.split(".")[1], "base64url").toString("utf8");
const MODE = { view: 0, requestState: 1, raw: 2 };

for (const v of vectors) {
  if (v.token.length > MAX_SEED_TOKEN) continue;
  const mode = MODE[v.kind];
  const bindFlag = v.bind === null ? 0 : 1 << 2;
  const fields = [v.bind ?? "", v.tool ?? ""];
  const env = bodyOf(v.token);
  // open_verify: the token as it is; its envelope signed by the target (bit 4),
  // opened all three ways (3), and its payload sealed and opened again (bit 7).
  seeds.open_verify[`token-${v.name}`] = input(mode | bindFlag, v.token, ...fields);
  seeds.open_verify[`env-${v.name}`] = input(mode | bindFlag | (1 << 4), env, ...fields);
  seeds.open_verify[`payload-${v.name}`] = input(3 | bindFlag | (1 << 7), v.payloadJson, ...fields);
  // read_unverified: token vs token; envelope wrapped by the target (bits 0, 1); seal and read (bit 2).
  seeds.read_unverified[`token-${v.name}`] = input(0, v.token, vectors[0].token, v.tool ?? "", "");
  seeds.read_unverified[`env-${v.name}`] = input(3 | (1 << 2), env, env, v.tool ?? "", v.bind ?? "");
  // view_state: maxBytes then JSON text.
  seeds.view_state[`payload-${v.name}`] = Buffer.concat([u32(4096), utf8(v.payloadJson)]);
  seeds.view_state[`env-${v.name}`] = Buffer.concat([u32(64), utf8(env)]);
}

// Hand-written hostile inputs.
const deep = "[".repeat(600) + "]".repeat(600);
const deepObj = '{"a":'.repeat(300) + "1" + "}".repeat(300);
const hostile = {
  "deep-array": deep,
  "deep-object": deepObj,
  "lone-surrogates": '{"s":"\\ud800","t":"\\udc00\\ud83d\\ude00","\\ud800":1}',
  "dup-keys": '{"p":1,"p":2,"\\u0070":3,"exp":1}',
  "numbers": '[0,-0,1e400,-1E-400,123456789012345678901234567890,0.5e+7]',
  "escapes": '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\\u2028"',
  "not-json": "{'a':1}",
  "null": " null ",
};
for (const [name, text] of Object.entries(hostile)) {
  seeds.view_state[`hostile-${name}`] = Buffer.concat([u32(1024), utf8(text)]);
  const env = `{"p":{"p":"v","d":${text}},"exp":1764500600}`;
  seeds.open_verify[`hostile-${name}`] = input(3 | (1 << 4) | (1 << 7), env, "", "move");
  seeds.read_unverified[`hostile-${name}`] = input(1 | (1 << 2), env, text, "move", "");
}
// request_canonical: a wrapping byte (levels; bit 7 objects), then the text.
const wrap = (levels, objects = false) => Buffer.from([levels | (objects ? 0x80 : 0)]);
const requests = {
  ...hostile,
  "rfc-8785-sample": '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
  "rfc-8785-sorting": '{"\\u20ac":1,"\\r":2,"\\ufb33":3,"1":4,"\\ud83d\\ude00":5,"\\u0080":6,"\\u00f6":7}',
  "surrogate-pair": '["\\ud83d\\ude00","\\uD83D\\uDE00","\u{1f600}"]',
  "lone-high": '{"a":"\\ud800"}',
  "lone-low": '{"a":"\\udfff"}',
  "replacement": '{"a":"\\ufffd"}',
  "lone-names": '{"\\ud800":1,"\\udc00":2}',
  "reversed-pair": '"\\udc00\\ud800"',
  "big-integers": "[9007199254740993,9007199254740992,18446744073709551615,-0,1e21,1e-7,5e-324,1.7976931348623157e308]",
  "beyond-double": '{"amount":1e400}',
  "dup-nested": '[{"x":{"b":0,"c":0,"\\u0062":0}}]',
};
for (const [name, text] of Object.entries(requests)) seeds.request_canonical[name] = Buffer.concat([wrap(0), utf8(text)]);
// The depth boundary: 64 levels around a scalar or an empty container (65).
seeds.request_canonical["depth-64"] = Buffer.concat([wrap(64), utf8("0")]);
seeds.request_canonical["depth-65"] = Buffer.concat([wrap(64), utf8("[]")]);
seeds.request_canonical["depth-64-objects"] = Buffer.concat([wrap(63, true), utf8('{"a":"\\ud83d\\ude00"}')]);
seeds.request_canonical["depth-65-objects"] = Buffer.concat([wrap(64, true), utf8("{}")]);

const good = vectors[0].token;
for (const [name, token] of Object.entries({
  empty: "",
  prefix: "v1.",
  v2: good.replace(/^v1/, "v2"),
  padding: good.replace(/\.([^.]*)$/, ".$1="),
  "four-segments": good + ".x",
  "nul": good.slice(0, 20) + "\0" + good.slice(21),
})) {
  seeds.open_verify[`shape-${name}`] = input(3, token, "", "");
  seeds.read_unverified[`shape-${name}`] = input(0, token, good, "", "");
}

let total = 0;
for (const [target, files] of Object.entries(seeds)) {
  const dir = join(here, "corpus", target);
  mkdirSync(dir, { recursive: true });
  // seed-regression-* are crash inputs kept by hand: leave them.
  for (const f of readdirSync(dir)) if (f.startsWith("seed-") && !f.startsWith("seed-regression-")) rmSync(join(dir, f));
  for (const [name, bytes] of Object.entries(files)) {
    writeFileSync(join(dir, `seed-${name}`), bytes);
    total += bytes.length;
  }
  console.log(`${target}: ${Object.keys(files).length} seeds`);
}
console.log(`${total} bytes in all`);
