// Build the tic-tac-toe View into ONE HTML file, the way MCP App servers ship
// a View: Vite + vite-plugin-singlefile, every script and style inlined, no
// sibling file. The demo server in workerd serves it as the `ui://` resource
// (www/server/view.js); any other server can read it from the same place.
//
//   node www/game/build.mjs          -> build/view/game.html (VIEW_HTML)
//
// Bare imports (mcp-sealed-state/*, @modelcontextprotocol/ext-apps, zod)
// resolve from the PACKED package as a consumer installs it (js/out/consumer,
// made by `node js/pack.mjs`), so the View bundles exactly what `npm install`
// gives; ext-apps' own dependencies resolve from where it is installed.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { CONSUMER_NODE_MODULES, importTool } from "../../js/lib/workerd.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "../..");
/** Where the one-file View lands: a stable path for every server that serves it. */
export const VIEW_HTML = join(ROOT, "build/view/game.html");
const OUT_DIR = dirname(VIEW_HTML);
const CONSUMER = dirname(CONSUMER_NODE_MODULES);

/** Build the View; resolves with { file, bytes, gzip }. */
export async function buildView({ quiet = true } = {}) {
  if (!existsSync(join(CONSUMER_NODE_MODULES, "mcp-sealed-state/package.json"))) {
    throw new Error("the packed package is not installed: run `npm --prefix js run build && node js/pack.mjs` first");
  }
  const { build } = await importTool("vite");
  const { viteSingleFile } = await importTool("vite-plugin-singlefile");
  const fromPackedPackage = {
    name: "bare-imports-from-the-packed-package",
    enforce: "pre",
    resolveId(source, _importer, options) {
      if (!/^(mcp-sealed-state|@modelcontextprotocol\/ext-apps|zod)(\/|$)/.test(source)) return null;
      return this.resolve(source, join(CONSUMER, "view.js"), { ...options, skipSelf: true });
    },
  };
  const staging = join(OUT_DIR, ".vite");
  rmSync(staging, { recursive: true, force: true });
  await build({
    configFile: false,
    root: HERE,
    base: "./",
    logLevel: quiet ? "warn" : "info",
    plugins: [fromPackedPackage, viteSingleFile()],
    // No module-preload polyfill: a one-file View preloads nothing, and the polyfill is a fetch() call.
    build: { outDir: staging, emptyOutDir: true, target: "es2022", reportCompressedSize: false, modulePreload: { polyfill: false } },
  });
  mkdirSync(OUT_DIR, { recursive: true });
  const emitted = join(staging, "index.html");
  renameSync(emitted, VIEW_HTML);
  rmSync(staging, { recursive: true, force: true });
  const html = readFileSync(VIEW_HTML);
  return { file: VIEW_HTML, bytes: statSync(VIEW_HTML).size, gzip: gzipSync(html, { level: 9 }).length };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { file, bytes, gzip } = await buildView();
  console.log(`one-file View: ${file} (${bytes} B, ${gzip} B gzip -9)`);
}
