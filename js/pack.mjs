// Pack ../pkg the way npm publishes it, and install the tarball into a
// throwaway consumer project (js/out/consumer), the way a user gets it.
// Tests import the package from there (see test/support.mjs).
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const js = dirname(fileURLToPath(import.meta.url));
const out = join(js, "out");
const consumer = join(out, "consumer");

export function pack() {
  mkdirSync(out, { recursive: true });
  for (const f of readdirSync(out)) if (f.endsWith(".tgz")) rmSync(join(out, f));
  execFileSync("npm", ["pack", join(js, "../pkg"), "--pack-destination", out, "--silent"], { stdio: ["ignore", "ignore", "inherit"] });
  const tarball = readdirSync(out).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack made no tarball");
  rmSync(consumer, { recursive: true, force: true });
  mkdirSync(consumer, { recursive: true });
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--silent", join(out, tarball)], { cwd: consumer, stdio: ["ignore", "ignore", "inherit"] });
  return { tarball: join(out, tarball), bytes: statSync(join(out, tarball)).size, consumer };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { tarball, bytes } = pack();
  console.log(`packed ${tarball} (${bytes} B) and installed it into ${consumer}`);
}
