// The behaviour suite (js/suite/index.js) in six runtimes, each from a project
// that installed the packed tarball as its users would (see runtimes.mjs).
// Every runtime must pass every test, and run exactly the same tests.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, JS, denoNodeEntryWithoutFlags, installers, makeProject, runBun, runChromium, runDeno, runNode20, runNode22, runNode24, runNode26, runWorkerd } from "./runtimes.mjs";

const version = (name) => JSON.parse(readFileSync(join(JS, "node_modules", name, "package.json"), "utf8")).version;
const projects = {};
let reference;

before(async () => {
  // Installs are small and mostly I/O: run them side by side.
  const [npm, bun, deno] = await Promise.all([makeProject("npm", installers.npm), makeProject("bun", installers.bun), makeProject("deno", installers.deno)]);
  Object.assign(projects, { npm, bun, deno });
  reference = await runNode20(projects.npm);
});

/** Every test passed, the same tests as everywhere else, from the expected entry. */
function check(summary, entry) {
  const failures = summary.failures.map((f) => `--- ${f.name}\n${f.error}`).join("\n");
  assert.equal(summary.failed, 0, failures);
  // The same tests as in Node 20. (Not always in the same order: modules that
  // wait on a top-level await, as the browser entry does, evaluate later.)
  assert.deepEqual([...summary.names].sort(), [...reference.names].sort(), "the same tests as in Node 20");
  assert.equal(summary.passed, reference.names.length);
  assert.match(summary.entry, entry);
}

const endOfLife = process.versions.node.startsWith("20.") ? ", end of life since 2026-04-30" : "";

test(`Node ${process.versions.node} (this machine's${endOfLife}): the "node" entry`, () => {
  assert.ok(reference.names.length >= 50, `only ${reference.names.length} tests`);
  check(reference, /\/suite-npm\/node_modules\/mcp-sealed-state\/edge\/node\.js$/);
});

test(`Node ${version("node")} (npm node): the "node" entry`, async () => {
  check(await runNode22(projects.npm), /\/suite-npm\/node_modules\/mcp-sealed-state\/edge\/node\.js$/);
});

test(`Node ${version("node24")} (npm node24, an alias of node): the "node" entry`, async () => {
  check(await runNode24(projects.npm), /\/suite-npm\/node_modules\/mcp-sealed-state\/edge\/node\.js$/);
});

test(`Node ${version("node26")} (npm node26, an alias of node): the "node" entry`, async () => {
  check(await runNode26(projects.npm), /\/suite-npm\/node_modules\/mcp-sealed-state\/edge\/node\.js$/);
});

test(`Deno ${version("deno")} (npm deno, deno install, no permission flags): the "deno" entry`, async () => {
  check(await runDeno(projects.deno), /\/suite-deno\/node_modules\/\.deno\/mcp-sealed-state@[^/]+\/node_modules\/mcp-sealed-state\/edge\/deno\.js$/);
});

test(`Deno ${version("deno")} control: the "node" entry would need --allow-read (what the "deno" entry avoids)`, async () => {
  assert.match(await denoNodeEntryWithoutFlags(projects.deno), /NotCapable: Requires read access to "[^"]*edge_bg\.wasm"/);
});

test(`Bun ${version("bun")} (npm bun, bun install): the "node" entry`, async () => {
  check(await runBun(projects.bun), /\/suite-bun\/node_modules\/mcp-sealed-state\/edge\/node\.js$/);
});

test(`workerd (Miniflare ${version("miniflare")}): the "workerd" entry, wasm imported as modules`, async () => {
  // bundleForWorkerd refuses a bundle that did not take edge/workerd.js.
  const summary = await runWorkerd(projects.npm);
  check(summary, /^node_modules\/mcp-sealed-state\/wasm\/edge_bg\.wasm,node_modules\/mcp-sealed-state\/wasm\/widget_bg\.wasm$/);
  assert.deepEqual(
    summary.logs.filter((l) => l.level === "error"),
    [],
  );
});

test(`Chromium (headless, playwright-core ${version("playwright-core")}): the "browser" entry, no bundler`, async (t) => {
  const summary = await runChromium(projects.npm);
  t.diagnostic(`Chromium ${summary.version}`);
  check(summary, /^\/node_modules\/mcp-sealed-state\/edge\/browser\.js$/);
  assert.deepEqual(summary.problems, []);
});

test("the runtimes are the ones js/package.json pins", () => {
  const pins = JSON.parse(readFileSync(join(JS, "package.json"), "utf8")).devDependencies;
  for (const name of ["node", "deno", "bun"]) assert.equal(version(name), pins[name], name);
  for (const name of ["node24", "node26"]) assert.equal(`npm:node@${version(name)}`, pins[name], name);
  assert.ok(BIN.node22.endsWith("node/bin/node"));
  assert.ok(BIN.node24.endsWith("node24/bin/node") && BIN.node26.endsWith("node26/bin/node"));
});

test("the package's engines name the Node lines this suite runs, and no other", () => {
  const { engines } = JSON.parse(readFileSync(join(JS, "../pkg-template/package.json"), "utf8"));
  const lines = engines.node.split(" || ").map((range) => Number(/^\^(\d+)\.\d+\.\d+$/.exec(range)?.[1]));
  const tested = [process.versions.node, version("node"), version("node24"), version("node26")].map((v) => Number(v.split(".")[0]));
  assert.deepEqual(lines, tested);
});
