// An npm project of the tests, apart from js/package.json (js/frameworks,
// js/views, www/views): its packages from its own lockfile (`npm ci`), then the
// packed mcp-sealed-state tarball (js/out, `node js/pack.mjs`) as its users
// install it, without saving it (its integrity changes with every build).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const OUT = join(dirname(fileURLToPath(import.meta.url)), "../out");

/** The packed tarball in js/out (exactly one). */
export function tarball() {
  const tgz = existsSync(OUT) ? readdirSync(OUT).filter((f) => f.endsWith(".tgz")) : [];
  if (tgz.length !== 1) throw new Error(`expected one packed tarball in ${OUT}: run \`npm --prefix js run build && node js/pack.mjs\` first`);
  return join(OUT, tgz[0]);
}

const npm = (project, args) => execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd: project, stdio: ["ignore", "ignore", "inherit"] });

/** `npm ci` of `project` (an npm project with its lockfile) when its lockfile changed, then the packed tarball installed without saving. */
export function setup(project) {
  const tgz = tarball();
  const marker = join(project, "node_modules/.package-lock.json");
  if (!existsSync(marker) || statSync(join(project, "package-lock.json")).mtimeMs > statSync(marker).mtimeMs) npm(project, ["ci"]);
  // The installed copy is this tarball's when its package.json matches byte for byte and it is not older.
  const installed = join(project, "node_modules/mcp-sealed-state/.tarball");
  if (!existsSync(installed) || readFileSync(installed, "utf8") !== `${tgz} ${statSync(tgz).mtimeMs}`) {
    npm(project, ["install", "--no-save", tgz]);
    writeFileSync(installed, `${tgz} ${statSync(tgz).mtimeMs}`);
  }
}
