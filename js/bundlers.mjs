// One-file MCP App Views built the way View authors build them, from the
// packed package installed into a project of its own (js/out/bundlers), and
// run the way hosts run them: in a sandboxed srcdoc iframe under a CSP with
// connect-src 'none'. Shared by js/test/widget-bundlers.browser.test.mjs and the
// Chromium bench (js/bench/widget-chromium.mjs).
//
// Each bundler runs with its defaults and no plug-in for the wasm: Vite 8 +
// vite-plugin-singlefile (the one plug-in a one-file View needs anyway),
// esbuild --bundle (iife), webpack 5 (production), bun build --target=browser.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const JS = dirname(fileURLToPath(import.meta.url));
const OUT = join(JS, "out");
export const PROJECT = join(OUT, "bundlers");
const requireTool = createRequire(join(JS, "package.json"));
const importTool = async (name) => import(pathToFileURL(requireTool.resolve(name)).href);

/** The View: every widget function once, reported to the host page by postMessage. */
const VIEW_SOURCE = `import "./start.js";
import {
  STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE, adoptToken, backend, checkViewState, init,
  isSealedStateError, readTokenUnverified, secondsLeft, viewStateBytes, viewStateSupport,
} from "mcp-sealed-state/widget";

const started = globalThis.VIEW_STARTED; // set by ./start.js, which runs before the widget's modules
const report = (message) => parent.postMessage(message, "*");
const token = globalThis.VIEW_TOKEN;
// The first call, at once: before the wasm can be ready. With VIEW_WAIT, none
// until init() resolved, as a View whose first token comes later (a tool result).
const wait = globalThis.VIEW_WAIT === true;
const atImport = backend();
const firstView = wait ? null : readTokenUnverified(token);
const firstReadMs = wait ? null : performance.now() - started;
init().then((settled) => {
  const readyMs = performance.now() - started;
  const view = readTokenUnverified(token);
  const viewMs = performance.now() - started;
  let malformed = null;
  try {
    readTokenUnverified("v1.x.y");
  } catch (e) {
    malformed = e.reason;
  }
  let refusedCode = null;
  try {
    checkViewState({ big: "x".repeat(100) }, 10);
  } catch (e) {
    refusedCode = e.code;
  }
  report({
    type: "result", atImport, settled, now: backend(), firstView, view, firstReadMs, readyMs, viewMs,
    left: secondsLeft(token, globalThis.VIEW_NOW_MS),
    adopted: adoptToken(null, { _meta: { [STATE_META_KEY]: token } }) === token,
    expired: isSealedStateError({ isError: true, content: [{ type: "text", text: SEALED_STATE_INVALID_MESSAGE }] }),
    bytes: viewStateBytes({ "é": 1 }),
    support: viewStateSupport({ hostCapabilities: { viewState: { maxBytes: 64 } }, hostContext: { viewState: { a: 1 } } }),
    malformed, refusedCode,
  });
});
`;

/** The same View without the widget, to measure what the widget adds. */
const BASELINE_SOURCE = `import "./start.js";
const started = globalThis.VIEW_STARTED;
parent.postMessage({ type: "result", firstReadMs: performance.now() - started, token: globalThis.VIEW_TOKEN }, "*");
`;
const pageFor = (script) => `<!doctype html>\n<html><head><meta charset="utf-8"><title>view</title></head>\n<body><script type="module" src="./${script}"></script></body></html>\n`;

/** Write the View project and install the packed tarball into it, as a user would. */
export function makeProject() {
  const tarball = readdirSync(OUT).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error("no packed tarball in js/out: run `node js/pack.mjs` first");
  rmSync(PROJECT, { recursive: true, force: true });
  mkdirSync(PROJECT, { recursive: true });
  writeFileSync(join(PROJECT, "package.json"), JSON.stringify({ name: "view", private: true, type: "module" }, null, 2));
  // Imported first, so it runs first: "module start" for the timings.
  writeFileSync(join(PROJECT, "start.js"), "globalThis.VIEW_STARTED = performance.now();\n");
  writeFileSync(join(PROJECT, "main.js"), VIEW_SOURCE);
  writeFileSync(join(PROJECT, "main.html"), pageFor("main.js"));
  writeFileSync(join(PROJECT, "baseline.js"), BASELINE_SOURCE);
  writeFileSync(join(PROJECT, "baseline.html"), pageFor("baseline.js"));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--silent", join(OUT, tarball)], { cwd: PROJECT, stdio: ["ignore", "ignore", "inherit"] });
  return PROJECT;
}

function filesUnder(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

// Each returns the output directory; the caller judges what is in it.
const BUILDERS = {
  async vite(outDir, entry) {
    const { build } = await importTool("vite");
    const { viteSingleFile } = await importTool("vite-plugin-singlefile");
    await build({ root: PROJECT, configFile: false, logLevel: "silent", plugins: [viteSingleFile()], build: { outDir, emptyOutDir: true, rollupOptions: { input: join(PROJECT, `${entry}.html`) } } });
  },
  async esbuild(outDir, entry) {
    const esbuild = await importTool("esbuild");
    await esbuild.build({ absWorkingDir: PROJECT, entryPoints: [`${entry}.js`], bundle: true, outdir: outDir, logLevel: "silent" });
  },
  async webpack(outDir, entry) {
    const { default: webpack } = await importTool("webpack");
    const stats = await new Promise((resolve, reject) =>
      webpack({ mode: "production", context: PROJECT, entry: `./${entry}.js`, output: { path: outDir, filename: `${entry}.js` } }, (err, s) => (err ? reject(err) : resolve(s))),
    );
    if (stats.hasErrors()) throw new Error(stats.toString({ all: false, errors: true }));
  },
  async bun(outDir, entry) {
    execFileSync(requireTool.resolve("bun/bin/bun.exe"), ["build", `./${entry}.js`, "--target=browser", "--outdir", outDir], { cwd: PROJECT, stdio: ["ignore", "ignore", "inherit"] });
  },
};
export const BUNDLERS = Object.keys(BUILDERS);

/**
 * Build the View (`entry` "main", or "baseline" for the same page without the
 * widget) with bundler `name`. Returns its output files and the one-file HTML
 * a host would put in srcdoc: Vite's HTML as it is, or the one JS bundle in a
 * script element (a module for ESM output).
 */
export async function buildView(name, entry = "main") {
  const outDir = join(PROJECT, `dist-${name}-${entry}`);
  rmSync(outDir, { recursive: true, force: true });
  await BUILDERS[name](outDir, entry);
  const files = filesUnder(outDir);
  let html;
  if (name === "vite") {
    html = readFileSync(join(outDir, `${entry}.html`), "utf8");
  } else {
    const js = readFileSync(join(outDir, `${entry}.js`), "utf8");
    if (/<\/script/i.test(js)) throw new Error(`${name}: the bundle contains "</script", which cannot be inlined`);
    const module = /^\s*(import|export)\b/m.test(js) || name === "bun" ? ' type="module"' : "";
    html = `<!doctype html>\n<html><head><meta charset="utf-8"><title>view</title></head>\n<body><script${module}>${js}</script></body></html>\n`;
  }
  return { name, outDir, files, html, bytes: Buffer.byteLength(html) };
}

/** The CSPs a host may put on a View: with WebAssembly allowed, and the MCP Apps default without it. */
export const POLICIES = {
  wasm: "default-src 'none'; script-src 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'unsafe-inline'; connect-src 'none'",
  "no-wasm": "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'none'",
};

/**
 * The View's HTML with the host's CSP first in <head>, and a small script of
 * the page's own that reports every CSP violation and error to the host and
 * hands the View its token.
 */
export function srcdocFor(html, policy, { token, nowMs, wait = false }) {
  const head = `<meta http-equiv="Content-Security-Policy" content="${POLICIES[policy]}">
<script>
globalThis.VIEW_TOKEN = ${JSON.stringify(token)};
globalThis.VIEW_NOW_MS = ${JSON.stringify(nowMs)};
globalThis.VIEW_WAIT = ${JSON.stringify(wait)};
document.addEventListener("securitypolicyviolation", (e) => parent.postMessage({ type: "csp", directive: e.effectiveDirective, blocked: e.blockedURI }, "*"));
addEventListener("error", (e) => parent.postMessage({ type: "error", message: String(e.message) }, "*"));
addEventListener("unhandledrejection", (e) => parent.postMessage({ type: "error", message: "unhandled rejection: " + String(e.reason) }, "*"));
</script>`;
  if (!/<head>/i.test(html)) throw new Error("the View's HTML has no <head>");
  return html.replace(/<head>/i, (h) => `${h}\n${head}`);
}

/** Launch headless Chromium (CHROMIUM overrides /usr/bin/chromium). */
export async function launchChromium() {
  const playwright = await importTool("playwright-core");
  const chromium = playwright.chromium ?? playwright.default.chromium;
  const args = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", headless: true, args });
}

/**
 * Render `srcdoc` in a sandboxed iframe (allow-scripts only, as hosts do) of a
 * fresh page and collect what it posts until its result arrives. Also returns
 * the requests the page made and its page-level errors.
 */
export async function runInSrcdoc(browser, srcdoc) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const requests = [];
    const pageErrors = [];
    page.on("request", (r) => r.url() !== "about:blank" && !r.url().startsWith("about:srcdoc") && requests.push(r.url()));
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.setContent("<!doctype html><title>host</title>");
    const messages = await page.evaluate(
      (doc) =>
        new Promise((resolve) => {
          const got = [];
          const frame = document.createElement("iframe");
          frame.sandbox = "allow-scripts";
          addEventListener("message", (e) => {
            if (e.source !== frame.contentWindow) return;
            got.push(e.data);
            if (e.data?.type === "result") resolve(got);
          });
          // A bound on a View that never reports (the test then fails on the missing result).
          setTimeout(() => resolve(got), 20_000);
          frame.srcdoc = doc;
          document.body.append(frame);
        }),
      srcdoc,
    );
    return { messages, result: messages.find((m) => m.type === "result"), requests, pageErrors };
  } finally {
    await context.close();
  }
}
