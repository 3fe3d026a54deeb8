// The public names of each entry of the packed package (js/out/consumer), as a
// Node program importing it sees them: `node js/tools/entry-exports.mjs [--json]`.
// The entries are read from the installed package.json's `exports`; the browser
// entries of /edge need fetch(), so every entry is imported under "node" (or default).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CONSUMER, PACKAGE_DIR } from "../test/support.mjs";

const require = createRequire(join(CONSUMER, "package.json"));
const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8"));
const entries = {};
for (const subpath of Object.keys(manifest.exports)) {
  if (subpath === "./package.json") continue;
  const specifier = `mcp-sealed-state${subpath.slice(1)}`;
  const module = await import(pathToFileURL(require.resolve(specifier)).href);
  entries[specifier] = Object.keys(module).sort();
}
if (process.argv.includes("--json")) console.log(JSON.stringify(entries, null, 2));
else for (const [specifier, names] of Object.entries(entries)) console.log(`${specifier} (${names.length}): ${names.join(", ")}`);
