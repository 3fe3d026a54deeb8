// Pack ../pkg the way npm publishes it, and install the tarball into a
// throwaway consumer project (js/out/consumer), the way a user gets it.
// Tests import the package from there (see test/support.mjs).
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkImports } from "./build.mjs";

const js = dirname(fileURLToPath(import.meta.url));
const out = join(js, "out");
const consumer = join(out, "consumer");
// The optional peers of mcp-sealed-state/app, /app-bridge and /react, which a
// user of those entries installs beside the package: symlinks to js/node_modules
// (the pinned devDependencies; `npm install <dir>` would run their build scripts).
const PEERS = ["@modelcontextprotocol/ext-apps", "react", "react-dom", "react-test-renderer"];

export function pack() {
  mkdirSync(out, { recursive: true });
  for (const f of readdirSync(out)) if (f.endsWith(".tgz")) rmSync(join(out, f));
  execFileSync("npm", ["pack", join(js, "../pkg"), "--pack-destination", out, "--silent"], { stdio: ["ignore", "ignore", "inherit"] });
  const tarball = readdirSync(out).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack made no tarball");
  rmSync(consumer, { recursive: true, force: true });
  mkdirSync(consumer, { recursive: true });
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2));
  // How the tests resolve the package as this project's `import` does (require.resolve
  // takes the "require" condition, which names the CommonJS entries).
  writeFileSync(
    join(consumer, "resolve.mjs"),
    "// Written by js/pack.mjs: a specifier resolved as an import in this project resolves it.\nexport const resolveImport = (specifier) => import.meta.resolve(specifier);\n",
  );
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--silent", join(out, tarball)], { cwd: consumer, stdio: ["ignore", "ignore", "inherit"] });
  checkImports(join(consumer, "node_modules/mcp-sealed-state"));
  for (const peer of PEERS) {
    mkdirSync(dirname(join(consumer, "node_modules", peer)), { recursive: true });
    symlinkSync(join(js, "node_modules", peer), join(consumer, "node_modules", peer), "dir");
  }
  return { tarball: join(out, tarball), bytes: statSync(join(out, tarball)).size, consumer };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { tarball, bytes } = pack();
  console.log(`packed ${tarball} (${bytes} B) and installed it into ${consumer}`);
}
