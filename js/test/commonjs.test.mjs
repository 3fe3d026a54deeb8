// CommonJS users of the packed package: require() on the Nodes that support
// require(esm) unflagged (20.19+, 22.12+, so 24 and 26; engines says so) and Bun
// (the "require" condition's node.cjs, which requires the "node" ES module), and TypeScript in
// a CommonJS project (module node16), which reads the "require"
// types condition (.d.cts) instead of refusing the ESM types (TS1479).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { CONSUMER, JS_DIR } from "./support.mjs";

const execFileP = promisify(execFile);
const project = join(CONSUMER, "commonjs");
const NODE22 = join(JS_DIR, "node_modules/node/bin/node");
const BUN = join(JS_DIR, "node_modules/bun/bin/bun.exe");

before(() => {
  rmSync(project, { recursive: true, force: true });
  mkdirSync(project, { recursive: true });
  // No "type": .js and .ts files here are CommonJS.
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "commonjs-consumer", private: true }));
});
after(() => rmSync(project, { recursive: true, force: true }));

const program = `
const edge = require("mcp-sealed-state");
const widget = require("mcp-sealed-state/widget");
const codec = new edge.StateCodec({ key: "commonjs-test-key: at least thirty-two bytes" });
const token = codec.seal({ a: 1 }, { bind: "u" });
let reason;
try { codec.open(token, { bind: "v" }); } catch (e) { reason = e instanceof edge.SealedStateError && e.reason; }
import("mcp-sealed-state").then((esm) => {
  console.log(JSON.stringify({
    opened: codec.open(token, { bind: "u" }),
    read: widget.readTokenUnverified(token).purpose,
    reason,
    resolved: require.resolve("mcp-sealed-state").split("/node_modules/")[1],
    sameInstance: esm.StateCodec === edge.StateCodec && esm.SealedStateError === edge.SealedStateError,
  }));
});
`;

for (const [label, node] of [
  [`Node ${process.versions.node} (this machine's)`, process.execPath],
  ["Node 22 (npm node)", NODE22],
  ["Node 24 (npm node24)", join(JS_DIR, "node_modules/node24/bin/node")],
  ["Node 26 (npm node26)", join(JS_DIR, "node_modules/node26/bin/node")],
  ["Bun (npm bun)", BUN],
]) {
  test(`require() in ${label}: node.cjs over the "node" ES module, one instance with import, no warning`, async () => {
    writeFileSync(join(project, "main.js"), program);
    const { stdout, stderr } = await execFileP(node, ["main.js"], { cwd: project });
    assert.deepEqual(JSON.parse(stdout), { opened: { a: 1 }, read: "view", reason: "bind", resolved: "mcp-sealed-state/edge/node.cjs", sameInstance: true });
    assert.equal(stderr, "");
  });
}

const typed = `
import { StateCodec, SealedStateError, createRequestStateCodec } from "mcp-sealed-state";
import { readTokenUnverified, type TokenView } from "mcp-sealed-state/widget";
const codec = new StateCodec({ key: "k".repeat(32) });
const game: { n: number } = codec.open<{ n: number }>(codec.seal({ n: 1 }));
const view: TokenView = readTokenUnverified(codec.seal(game));
const reason: "malformed" | "mac" | "expired" | "bind" | "purpose" | "request" = new SealedStateError("mac").reason;
void createRequestStateCodec<{ step: number }>({ key: "k".repeat(32) }).mint({ step: 1 });
// @ts-expect-error: the payload type flows through open<T>
const wrong: string = codec.open<{ n: number }>("t");
export { view, reason, wrong };
`;

// node16 only: nodenext resolves the same conditions, and each tsc run costs seconds.
for (const module of ["node16"]) {
  test(`TypeScript module ${module} in a CommonJS project: the .d.cts types, no TS1479`, async () => {
    writeFileSync(join(project, "program.ts"), typed);
    const tsconfig = { compilerOptions: { strict: true, noEmit: true, module, moduleResolution: module, target: "ES2022", skipLibCheck: false, types: [] }, files: ["program.ts"] };
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify(tsconfig));
    let out = "";
    try {
      await execFileP(process.execPath, [join(JS_DIR, "node_modules/typescript/bin/tsc"), "-p", project], { encoding: "utf8" });
    } catch (e) {
      out = `${e.stdout}${e.stderr}`;
    }
    assert.equal(out, "", out);
  });
}
