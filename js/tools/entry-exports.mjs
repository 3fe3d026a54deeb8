// The public names of each entry of the packed package (js/out/consumer), as a
// Node program importing it sees them: `node js/tools/entry-exports.mjs [--json]`.
// The entries are read from the installed package.json's `exports`, each
// imported under the "node" condition (or "default").
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_DIR, importPackage } from "../test/support.mjs";

const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8"));
const entries = {};
for (const subpath of Object.keys(manifest.exports)) {
  if (subpath === "./package.json") continue;
  entries[`mcp-sealed-state${subpath.slice(1)}`] = Object.keys(await importPackage(subpath.slice(1))).sort();
}
if (process.argv.includes("--json")) console.log(JSON.stringify(entries, null, 2));
else for (const [specifier, names] of Object.entries(entries)) console.log(`${specifier} (${names.length}): ${names.join(", ")}`);
