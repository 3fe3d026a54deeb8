// The widget's browser entry (wasm inlined), which a bundle for Deno would
// carry, in Deno (the `deno` npm package), from the packed package installed in
// js/out/consumer. The entry Deno's own conditions pick runs the behaviour
// suite (js/suite) with every other runtime.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, test } from "node:test";
import { CONSUMER, JS_DIR } from "./support.mjs";

const DENO = createRequire(join(JS_DIR, "package.json")).resolve("deno/bin.cjs");
const dir = mkdtempSync(join(CONSUMER, "deno-")); // inside the consumer: its node_modules resolve
after(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = `v1.${Buffer.from('{"p":{"p":"r","d":{"board":[0,1]},"o":"move"},"exp":5,"b":"t"}').toString("base64url")}.${"A".repeat(43)}`;
const script = (specifier) => `import { backend, init, readTokenUnverified, secondsLeft, viewStateBytes } from ${JSON.stringify(specifier)};
const atImport = backend();
console.log(JSON.stringify({ atImport, settled: await init(), view: readTokenUnverified(${JSON.stringify(TOKEN)}), left: secondsLeft(${JSON.stringify(TOKEN)}, 0), bytes: viewStateBytes({ "é": 1 }) }));
`;

function runDeno(specifier) {
  const file = join(dir, `check-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, script(specifier));
  const out = execFileSync(process.execPath, [DENO, "run", "--allow-read", "--no-prompt", file], { cwd: dir, encoding: "utf8", env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" } });
  return JSON.parse(out);
}

const want = { view: { payload: { board: [0, 1] }, purpose: "requestState", tool: "move", exp: 5, bound: true, hasSecret: false }, left: 6, bytes: 8 };

test("the browser entry (wasm inlined) in Deno: the JS twin at import, the wasm once ready, same results", () => {
  const r = runDeno("./../node_modules/mcp-sealed-state/widget/browser.js");
  assert.deepEqual({ view: r.view, left: r.left, bytes: r.bytes }, want);
  assert.equal(r.atImport, "js");
  assert.equal(r.settled, "wasm");
});
