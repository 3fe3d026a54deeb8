// Chromium (headless, /usr/bin/chromium via playwright-core): what a widget
// iframe pays to get the wasm going. The packed package is served from
// 127.0.0.1; every measurement runs in a fresh browser context (own HTTP and
// code cache) and a fresh page:
//   compile + instantiate  the wasm-bindgen init() given the bytes already
//                          fetched (WebAssembly.instantiate + the glue's setup)
//   init() with fetch      init() given the URL: fetch + streaming compile +
//                          instantiate, as the package's browser entry does
//   entry import           import() of the package's browser entry and
//                          await init(): its JS modules, then the wasm ready
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { extname, join, normalize } from "node:path";
import { dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median } from "./harness.mjs";

const BENCH = dirname(fileURLToPath(import.meta.url));
const JS = join(BENCH, "..");
const PACKAGE = join(JS, "out/consumer/node_modules/mcp-sealed-state");
const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const REPEATS = 10;
const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html", ".json": "application/json" };

function serve() {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (path === "/" || path === "/bench.html") {
      res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
      return res.end("<!doctype html><meta charset=utf-8><title>bench</title>");
    }
    const file = normalize(join(PACKAGE, path));
    if (!file.startsWith(PACKAGE)) return res.writeHead(403).end();
    try {
      const body = readFileSync(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// Runs in the page. Returns milliseconds.
const PAGE = {
  async fromBytes(name) {
    const bytes = await (await fetch(`/wasm/${name}_bg.wasm`)).arrayBuffer();
    const glue = await import(`/wasm/${name}.js`);
    const t0 = performance.now();
    await glue.default({ module_or_path: bytes });
    return performance.now() - t0;
  },
  async withFetch(name) {
    const glue = await import(`/wasm/${name}.js`);
    const t0 = performance.now();
    await glue.default({ module_or_path: new URL(`/wasm/${name}_bg.wasm`, location.href) });
    return performance.now() - t0;
  },
  async entry(name) {
    const t0 = performance.now();
    const mod = await import(`/${name}/browser.js`);
    // The widget entry serves from its JS twin at once; init() is when its wasm
    // is ready. The edge entry (no init()) has its wasm ready when the import resolves.
    if (name === "widget") await mod.init();
    const ms = performance.now() - t0;
    if (typeof (name === "widget" ? mod.readTokenUnverified : mod.StateCodec) !== "function") throw new Error("the entry did not load");
    return ms;
  },
};

export async function coldChromium(log, sizes) {
  const requireTool = createRequire(join(JS, "package.json"));
  const playwright = await import(pathToFileURL(requireTool.resolve("playwright-core")).href);
  const chromium = playwright.chromium ?? playwright.default.chromium; // CommonJS
  const server = await serve();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  try {
    const once = async (how, name) => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${origin}/bench.html`);
        return await page.evaluate(`(${PAGE[how].toString().replace(/^async \w+/, "async function")})(${JSON.stringify(name)})`);
      } finally {
        await context.close();
      }
    };
    // One throwaway round: the browser's own first-use costs are not the wasm's.
    for (const how of Object.keys(PAGE)) await once(how, "widget");
    const rows = [];
    for (const name of ["widget", "edge"]) {
      const t = { fromBytes: [], withFetch: [], entry: [] };
      for (let i = 0; i < REPEATS; i++) for (const how of Object.keys(t)) t[how].push(await once(how, name));
      const row = {
        name,
        gzip: sizes?.wasm.find((s) => s.name === name)?.gzip ?? 0,
        instantiateMs: median(t.fromBytes),
        initMs: median(t.withFetch),
        entryMs: median(t.entry),
      };
      log(`  ${name}: compile+instantiate ${row.instantiateMs.toFixed(2)} ms, init() with fetch ${row.initMs.toFixed(2)} ms, entry import ${row.entryMs.toFixed(2)} ms`);
      rows.push(row);
    }
    return { version: browser.version(), runs: REPEATS, rows };
  } finally {
    await browser.close();
    server.close();
  }
}
