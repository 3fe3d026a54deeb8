// wrangler (npm wrangler, on npm node 22): a minimal Worker that imports the
// packed package, bundled by `wrangler deploy --dry-run`, then run by
// `wrangler dev` on loopback and called, and the behaviour suite run inside it.
// Where this machine allows it (root, util-linux unshare), all of it runs in a
// network namespace with only loopback: nothing can phone home.
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { before, test } from "node:test";
import { JS, installers, makeProject, runNode20 } from "./runtimes.mjs";
import { DEV_WORKER, WORKER } from "./wrangler-run.mjs";

const execFileP = promisify(execFile);
const RUNNER = fileURLToPath(new URL("./wrangler-run.mjs", import.meta.url));
const version = JSON.parse(readFileSync(join(JS, "node_modules/wrangler/package.json"), "utf8")).version;
const KEY = "wrangler-test-key: at least thirty-two bytes long";

function loopbackOnly() {
  try {
    execFileSync("unshare", ["--net", "sh", "-c", "ip link set lo up"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const isolated = loopbackOnly();

let result;
let expectedTests;
let edge;

before(async () => {
  const dir = await makeProject("wrangler", installers.npm);
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src/worker.js"), WORKER);
  writeFileSync(join(dir, "src/dev.js"), DEV_WORKER);
  expectedTests = (await runNode20(dir)).names.sort();
  edge = await import(join(dir, "node_modules/mcp-sealed-state/edge/node.js"));
  const [file, args] = isolated ? ["unshare", ["--net", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', process.execPath, RUNNER, dir]] : [process.execPath, [RUNNER, dir]];
  const { stdout } = await execFileP(file, args, { timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  const line = stdout.split("\n").find((l) => l.startsWith("WRANGLER-RESULT "));
  assert.ok(line, stdout);
  result = JSON.parse(line.slice("WRANGLER-RESULT ".length));
});

test(`wrangler ${version} deploy --dry-run bundles the Worker with the workerd entry and the wasm as a module`, () => {
  const { dryRun } = result;
  assert.match(dryRun.output, /--dry-run: exiting now/);
  assert.match(dryRun.output, /Total Upload: [\d.]+ KiB \/ gzip: [\d.]+ KiB/);
  assert.equal(dryRun.readsFiles, false, "the bundle does not read files (the node entry would)");
  // One wasm module, the edge build's, beside the bundle.
  assert.equal(dryRun.importsWasm.length, 1, `wasm imports: ${dryRun.importsWasm}`);
  assert.match(dryRun.importsWasm[0], /^\.\/[0-9a-f]+-edge_bg\.wasm$/);
  assert.deepEqual(
    dryRun.files.filter((f) => f.endsWith(".wasm")),
    [dryRun.importsWasm[0].slice(2)],
  );
});

test(`wrangler ${version} dev serves it on 127.0.0.1: seal, open, refusals with the stable message`, () => {
  const { seal, opened, otherUser, tampered } = result.dev;
  const token = seal._meta[edge.STATE_META_KEY];
  assert.deepEqual(opened, { status: 200, body: { payload: { n: 7 } } });
  assert.deepEqual(otherUser, { status: 400, body: { error: edge.SEALED_STATE_INVALID_MESSAGE, reason: "bind" } });
  assert.deepEqual(tampered, { status: 400, body: { error: edge.SEALED_STATE_INVALID_MESSAGE, reason: "mac" } });
  // The Worker's token opens in Node with the same key: one wire format.
  assert.deepEqual(new edge.StateCodec({ key: KEY }).open(token, { bind: "alice" }), { n: 7 });
});

test(`wrangler ${version} dev runs the whole behaviour suite in its workerd`, () => {
  const { suite } = result.dev;
  assert.equal(suite.failed, 0, suite.failures.map((f) => `--- ${f.name}\n${f.error}`).join("\n"));
  assert.deepEqual(suite.names.sort(), expectedTests);
});

test(`wrangler ran ${isolated ? "in a network namespace with only loopback" : "with metrics, error reports, banner and cf fetch off (no unshare here)"}`, () => {
  assert.doesNotMatch(result.dev.output, /error/i, result.dev.output);
});
