// The package's template entries (pkg-template/loaders/, js/build.mjs): a
// missing substitution fails the build, and what was packed has none left.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ctsDeclarations, fill } from "../build.mjs";
import { PACKAGE_DIR } from "./support.mjs";

test("fill: every {{NAME}} gets its value; an unknown or malformed placeholder fails", () => {
  assert.equal(fill('import "../wasm/{{BUILD}}.js"; // {{BUILD}}', { BUILD: "edge" }, "t"), 'import "../wasm/edge.js"; // edge');
  assert.equal(fill("const o = { a: { b: 1 } };", {}, "t"), "const o = { a: { b: 1 } };", "JS braces are not placeholders");
  assert.throws(() => fill("{{BUILD}}/{{NAME}}", { BUILD: "edge" }, "deno.js"), /deno\.js: no value for \{\{NAME\}\}/);
  assert.throws(() => fill("{{ BUILD }}", { BUILD: "edge" }, "deno.js"), /deno\.js: a placeholder is left unfilled/);
  assert.throws(() => fill("{{toString}}", {}, "t"), /no value for \{\{toString\}\}/, "only own values count");
});

test("ctsDeclarations: every relative import names the .cjs twin, or the build fails", () => {
  const dts = 'export * from "../widget/index.js";\nexport { A, B } from "../common.js";\nimport type { C } from "./c.js";\nexport type D = string;\n';
  assert.equal(ctsDeclarations(dts, "t"), 'export * from "../widget/index.cjs";\nexport { A, B } from "../common.cjs";\nimport type { C } from "./c.cjs";\nexport type D = string;\n');
  assert.throws(() => ctsDeclarations('export type X = import("./x.js").X;', "index.d.ts"), /index\.d\.ts: a relative import is left unrewritten/);
});

test("the packed package: no placeholder left in any file, a .d.cts beside every entry's .d.ts", () => {
  const files = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) e.isDirectory() ? walk(join(dir, e.name)) : files.push(join(dir, e.name));
  };
  walk(PACKAGE_DIR);
  for (const f of files.filter((f) => /\.(c?js|d\.c?ts|json)$/.test(f))) assert.doesNotMatch(readFileSync(f, "utf8"), /\{\{\s*[\w.-]+\s*\}\}/, f);
  for (const entry of ["edge", "widget"]) {
    assert.match(readFileSync(join(PACKAGE_DIR, entry, "deno.js"), "utf8"), new RegExp(`import source wasm from "\\.\\./wasm/${entry}_bg\\.wasm"`));
    assert.ok(files.includes(join(PACKAGE_DIR, entry, "index.d.cts")), entry);
  }
  assert.ok(files.includes(join(PACKAGE_DIR, "common.d.cts")));
  assert.ok(!files.some((f) => f.includes("/loaders/")), "the templates themselves are not shipped");
});
