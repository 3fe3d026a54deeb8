// Each entry of the packed package exports what its users call: the
// server entry (`.` and `./edge`) what servers call, the reader and the
// view-state helpers only from `/widget`, which has its own, smaller wasm.
// `node js/tools/entry-exports.mjs` lists every entry's names.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { CONSUMER, JS_DIR, PACKAGE_DIR, importPackage } from "./support.mjs";

const SERVER = ["STATE_META_KEY", "SEALED_STATE_INVALID_MESSAGE", "SealedStateError", "StateCodec", "createRequestStateCodec"];
// The widget's own names: none of them is a server's call.
const WIDGET_ONLY = [
  "backend",
  "init",
  "readTokenUnverified",
  "secondsLeft",
  "adoptToken",
  "isSealedStateError",
  "viewStateBytes",
  "checkViewState",
  "viewStateSupport",
  "setViewStateRequest",
  "ViewStateSaveQueue",
  "ViewStateError",
  "VIEW_STATE_ERRORS",
];

for (const subpath of ["", "/edge"]) {
  test(`mcp-sealed-state${subpath} exports what servers call, and no widget helper`, async () => {
    const names = Object.keys(await importPackage(subpath));
    for (const name of SERVER) assert.ok(names.includes(name), `${name} missing from ${names.join(", ")}`);
    assert.deepEqual(
      names.filter((n) => WIDGET_ONLY.includes(n)),
      [],
    );
  });
}

test("mcp-sealed-state/widget exports the reader, the view-state helpers and the shared names, and no codec", async () => {
  const names = Object.keys(await importPackage("/widget"));
  for (const name of [...WIDGET_ONLY, "STATE_META_KEY", "SEALED_STATE_INVALID_MESSAGE", "SealedStateError"]) assert.ok(names.includes(name), `${name} missing`);
  assert.ok(!names.includes("StateCodec") && !names.includes("createRequestStateCodec"));
});

// require() takes edge/node.cjs and widget/node.cjs (js/build.mjs writes them,
// so that the .d.cts types describe CommonJS files): the same names, bound to
// the same objects as the ES entry's.
for (const subpath of ["", "/widget"]) {
  test(`require("mcp-sealed-state${subpath}") has the ES entry's names and objects`, async () => {
    const esm = await importPackage(subpath);
    const required = createRequire(join(CONSUMER, "package.json"))(`mcp-sealed-state${subpath}`);
    assert.deepEqual(Object.keys(required).sort(), Object.keys(esm).sort());
    for (const name of Object.keys(esm)) assert.equal(required[name], esm[name], name);
  });
}

// The .d.ts files declare the same values each entry's JS exports: a name in
// one and not the other is a program that compiles and then finds undefined,
// or a function no type describes. Type-only exports (`export type`) are types.
test("each entry's .d.ts declares exactly the values its JS exports", async () => {
  const ts = createRequire(join(JS_DIR, "package.json"))("typescript");
  const entries = ["", "/edge", "/widget", "/app", "/app-bridge", "/react"];
  const files = { "": "edge", "/edge": "edge", "/widget": "widget", "/app": "app", "/app-bridge": "app-bridge", "/react": "react" };
  const roots = entries.map((e) => join(PACKAGE_DIR, files[e], "index.d.ts"));
  const program = ts.createProgram(roots, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [], noEmit: true });
  const checker = program.getTypeChecker();
  const typeOnly = (symbol) => (symbol.declarations ?? []).some((d) => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly));
  const mismatches = [];
  for (const [i, entry] of entries.entries()) {
    const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(roots[i])));
    const declared = exported
      .filter((s) => !typeOnly(s))
      .filter((s) => ((s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s).flags & ts.SymbolFlags.Value) !== 0)
      .map((s) => s.name)
      .sort();
    const actual = Object.keys(await importPackage(entry)).sort();
    if (JSON.stringify(declared) !== JSON.stringify(actual)) {
      mismatches.push(`mcp-sealed-state${entry}: only in .d.ts [${declared.filter((n) => !actual.includes(n))}], only in JS [${actual.filter((n) => !declared.includes(n))}]`);
    }
  }
  assert.deepEqual(mismatches, []);
});
