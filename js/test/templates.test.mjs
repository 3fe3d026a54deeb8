// What js/build.mjs writes beside the template files: the CommonJS types, and
// the deno entries' source-phase wasm imports.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ctsDeclarations } from "../build.mjs";
import { PACKAGE_DIR } from "./support.mjs";

test("ctsDeclarations: every relative import names the .cjs twin, or the build fails", () => {
  const dts = 'export * from "../widget/index.js";\nexport { A, B } from "../common.js";\nimport type { C } from "./c.js";\nexport type D = string;\n';
  assert.equal(ctsDeclarations(dts, "t"), 'export * from "../widget/index.cjs";\nexport { A, B } from "../common.cjs";\nimport type { C } from "./c.cjs";\nexport type D = string;\n');
  // tsc writes import("./x.js") types into emitted declarations: those name the twin too.
  assert.equal(ctsDeclarations('export type X = import("./x.js").X;', "t"), 'export type X = import("./x.cjs").X;');
  assert.throws(() => ctsDeclarations('export type X = import("./x").X;', "index.d.ts"), /index\.d\.ts: a relative import is left unrewritten/);
  assert.throws(() => ctsDeclarations('export * from "./x";', "index.d.ts"), /index\.d\.ts: a relative import is left unrewritten/);
});

test("the packed package: a deno entry with a source-phase wasm import and a .d.cts beside every entry's .d.ts", () => {
  const files = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) e.isDirectory() ? walk(join(dir, e.name)) : files.push(join(dir, e.name));
  };
  walk(PACKAGE_DIR);
  for (const entry of ["edge", "widget"]) {
    assert.match(readFileSync(join(PACKAGE_DIR, entry, "deno.js"), "utf8"), new RegExp(`import source wasm from "\\.\\./wasm/${entry}_bg\\.wasm"`));
    assert.ok(files.includes(join(PACKAGE_DIR, entry, "index.d.cts")), entry);
  }
  assert.ok(files.includes(join(PACKAGE_DIR, "common.d.cts")));
});
