// Runs the behaviour suite (js/suite/index.js) in each runtime, from a project
// that installed the PACKED tarball the way that runtime's users install it:
//
//   npm project  (js/out/suite-npm):  Node 20 (this process's; end of life),
//                 Node 22, 24 and 26 (npm `node`, `node24`, `node26`), workerd
//                 (Miniflare, the bundle esbuild makes with the "workerd"
//                 condition), Chromium (playwright-core driving
//                 /usr/bin/chromium, the package served as installed, an
//                 import map from the "browser" condition);
//   bun install  (js/out/suite-bun):   Bun (npm `bun`);
//   deno install (js/out/suite-deno):  Deno (npm `deno`), with no permission flags.
//
// Each run returns the suite's summary: { passed, failed, names, failures }.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { COMPATIBILITY_DATE, bundleForWorkerd, importTool } from "../lib/workerd.mjs";

const execFileP = promisify(execFile);
const SUITE = dirname(fileURLToPath(import.meta.url));
export const JS = join(SUITE, "..");
const OUT = join(JS, "out");
const ROOT = join(JS, "..");
const NM = join(JS, "node_modules");

/** The runtimes, as npm installs them into js/node_modules (exact versions in js/package.json). */
export const BIN = {
  node22: join(NM, "node/bin/node"),
  node24: join(NM, "node24/bin/node"),
  node26: join(NM, "node26/bin/node"),
  deno: join(NM, "deno/deno"),
  bun: join(NM, "bun/bin/bun.exe"),
};

/** The files of the suite a project gets (not the runners). */
const SUITE_FILES = ["harness.js", "util.js", "table.js", "index.js", "main.js", "cases"];

// No runtime reports home or asks anything while the suite runs.
const QUIET_ENV = { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1", DO_NOT_TRACK: "1" };

/** The tarball `node js/pack.mjs` made. */
export function tarball() {
  const tgz = existsSync(OUT) ? readdirSync(OUT).filter((f) => f.endsWith(".tgz")) : [];
  if (tgz.length !== 1) throw new Error(`expected one packed tarball in ${OUT}, found ${tgz.length}: run \`npm --prefix js run build && node js/pack.mjs\` first`);
  return join(OUT, tgz[0]);
}

function cleanEnv(extra = {}) {
  const env = { ...process.env, ...QUIET_ENV, ...extra };
  delete env.NODE_OPTIONS;
  delete env.NODE_ENV;
  return env;
}

async function exec(file, args, { cwd, env, timeout = 180_000 } = {}) {
  try {
    return await execFileP(file, args, { cwd, env: cleanEnv(env), timeout, maxBuffer: 64 * 1024 * 1024 });
  } catch (e) {
    throw new Error(`${relative(ROOT, file) || file} ${args.join(" ")} failed (${e.code ?? e.signal}):\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}

/**
 * A consumer project at js/out/suite-<name>: a package.json that depends on the
 * tarball, the suite's files, the SDK vectors and the opening tables as modules,
 * then `install`.
 */
export async function makeProject(name, install) {
  const dir = join(OUT, `suite-${name}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "suite"), { recursive: true });
  const pkg = { name: `suite-${name}`, private: true, type: "module", dependencies: { "mcp-sealed-state": `file:${relative(dir, tarball())}` } };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  for (const f of SUITE_FILES) cpSync(join(SUITE, f), join(dir, "suite", f), { recursive: true });
  const vector = (name) => readFileSync(join(ROOT, "tests/vectors", name), "utf8").trim();
  writeFileSync(join(dir, "suite/vectors.js"), `// tests/vectors/sdk-v1.json, as a module every runtime imports alike.\nexport default ${vector("sdk-v1.json")};\n`);
  const tables = `// tests/vectors/hostile.json and reasons.json, as a module every runtime imports alike.\nexport const hostile = ${vector("hostile.json")};\nexport const reasons = ${vector("reasons.json")};\n`;
  writeFileSync(join(dir, "suite/tables.js"), tables);
  await install(dir);
  if (!existsSync(join(dir, "node_modules/mcp-sealed-state/package.json"))) throw new Error(`${name}: the install left no node_modules/mcp-sealed-state`);
  return dir;
}

/**
 * An npm registry on loopback that serves one package: the tarball. Deno's
 * installer takes no tarball path (a `file:` dependency becomes a symlink to
 * the .tgz), so `deno install` gets the package the way it gets a published
 * one: packument, then tarball, integrity checked.
 */
async function withLocalRegistry(tgz, fn) {
  const { stdout } = await exec("tar", ["-xzOf", tgz, "package/package.json"]);
  const manifest = JSON.parse(stdout);
  const bytes = readFileSync(tgz);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (path === `/${manifest.name}`) {
      const tarballUrl = `http://127.0.0.1:${server.address().port}/${manifest.name}/-/${basename(tgz)}`;
      const dist = { tarball: tarballUrl, shasum: createHash("sha1").update(bytes).digest("hex"), integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}` };
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ name: manifest.name, "dist-tags": { latest: manifest.version }, versions: { [manifest.version]: { ...manifest, dist } } }));
    }
    if (path === `/${manifest.name}/-/${basename(tgz)}`) {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length });
      return res.end(bytes);
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    return await fn({ registry: `http://127.0.0.1:${server.address().port}/`, version: manifest.version });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

export const installers = {
  npm: (dir) => exec("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir }),
  bun: (dir) => exec(BIN.bun, ["install", "--no-progress"], { cwd: dir, env: { BUN_INSTALL_CACHE_DIR: join(dir, ".bun-cache") } }),
  // The project depends on the version, as on a published package, from the loopback registry.
  deno: (dir) =>
    withLocalRegistry(tarball(), async ({ registry, version }) => {
      const pkgFile = join(dir, "package.json");
      const pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
      pkg.dependencies["mcp-sealed-state"] = version;
      writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
      await exec(BIN.deno, ["install"], { cwd: dir, env: { NPM_CONFIG_REGISTRY: registry, DENO_DIR: join(dir, ".deno-dir") } });
    }),
};

/** The suite's summary from a command-line runtime's output; `entry` is where it resolved the package. */
function summaryOf(stdout, label) {
  const line = stdout.split("\n").find((l) => l.startsWith("SUITE-SUMMARY "));
  if (!line) throw new Error(`${label}: no summary in its output:\n${stdout}`);
  const entry = stdout.split("\n").find((l) => l.startsWith("SUITE-ENTRY "));
  return { ...JSON.parse(line.slice("SUITE-SUMMARY ".length)), entry: entry?.slice("SUITE-ENTRY ".length) };
}

/** Node (this process's binary by default) or Bun or Deno, on suite/main.js. */
export async function runCli(label, file, args, dir, env = {}) {
  const { stdout, stderr } = await exec(file, [...args, "suite/main.js"], { cwd: dir, env });
  return { ...summaryOf(stdout, label), stderr };
}

export const runNode20 = (dir) => runCli("node 20", process.execPath, [], dir);
export const runNode22 = (dir) => runCli("node 22", BIN.node22, [], dir);
export const runNode24 = (dir) => runCli("node 24", BIN.node24, [], dir);
export const runNode26 = (dir) => runCli("node 26", BIN.node26, [], dir);
export const runBun = (dir) => runCli("bun", BIN.bun, ["run"], dir);
// No --allow-* flag of any kind: the package's "deno" entry needs none.
export const runDeno = (dir) => runCli("deno", BIN.deno, ["run"], dir, { DENO_DIR: join(dir, ".deno-dir") });

/**
 * The control for the Deno row: the package's Node entry, imported directly,
 * reads its .wasm with readFileSync, which Deno refuses without --allow-read.
 * Returns Deno's error output.
 */
export async function denoNodeEntryWithoutFlags(dir) {
  writeFileSync(join(dir, "node-entry.js"), 'import "./node_modules/mcp-sealed-state/edge/node.js";\n');
  try {
    await execFileP(BIN.deno, ["run", "node-entry.js"], { cwd: dir, env: cleanEnv({ DENO_DIR: join(dir, ".deno-dir") }), timeout: 60_000 });
  } catch (e) {
    return `${e.stdout}${e.stderr}`;
  } finally {
    rmSync(join(dir, "node-entry.js"));
  }
  throw new Error("Deno ran the node entry without --allow-read");
}

/** The suite in real workerd: bundled with the "workerd" condition, run in a fetch handler. */
export async function runWorkerd(dir) {
  const source = `import { run } from "./suite/index.js";
export default { async fetch() { return Response.json(await run()); } };`;
  const built = await bundleForWorkerd({ source, resolveDir: dir, moduleDir: dir, packageNodeModules: join(dir, "node_modules") });
  const { Miniflare, Log, LogLevel } = await importTool("miniflare");
  const logs = [];
  const mf = new Miniflare({
    modulesRoot: dir,
    modules: built.modules,
    compatibilityDate: COMPATIBILITY_DATE,
    cf: false,
    log: new Log(LogLevel.WARN),
    structuredWorkerdLogs: true,
    handleStructuredLogs: (entry) => {
      logs.push(entry);
    },
  });
  try {
    const res = await mf.dispatchFetch("http://suite.local/");
    const text = await res.text();
    if (res.status !== 200) throw new Error(`workerd answered ${res.status}: ${text}\n${JSON.stringify(logs)}`);
    return {
      ...JSON.parse(text),
      entry: built.wasm
        .map((f) => relative(dir, f))
        .sort()
        .join(","),
      logs,
    };
  } finally {
    await mf.dispose();
  }
}

/**
 * Where a browser without a bundler gets each entry: the files esbuild resolves
 * for the "browser" condition, as an import map over the served project.
 */
async function browserImportMap(dir) {
  const esbuild = await importTool("esbuild");
  const specifiers = ["mcp-sealed-state", "mcp-sealed-state/edge", "mcp-sealed-state/widget"];
  const imports = {};
  const record = {
    name: "record-package-entries",
    setup(build) {
      build.onResolve({ filter: /^mcp-sealed-state(\/|$)/ }, async (args) => {
        if (args.pluginData === "inner") return undefined;
        const r = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: "inner" });
        if (r.errors.length > 0) throw new Error(r.errors.map((e) => e.text).join("\n"));
        imports[args.path] = `/${relative(dir, r.path)}`;
        return { path: args.path, external: true };
      });
    },
  };
  await esbuild.build({
    stdin: { contents: specifiers.map((s) => `import ${JSON.stringify(s)};`).join("\n"), resolveDir: dir },
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    plugins: [record],
    logLevel: "silent",
  });
  return { imports };
}

/** The suite in headless Chromium: the project served on loopback, the page imports the package unbundled. */
export async function runChromium(dir) {
  const { serve } = await import("../lib/servers.mjs");
  const { launchChromium } = await import("../lib/chromium.mjs");
  const importMap = await browserImportMap(dir);
  writeFileSync(
    join(dir, "index.html"),
    `<!doctype html>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<script type="importmap">${JSON.stringify(importMap)}</script>
<script type="module">
  import { run } from "/suite/index.js";
  window.suiteSummary = await run();
</script>
`,
  );
  const server = await serve({ root: dir, mounts: { "/": dir } });
  const browser = await launchChromium();
  const problems = [];
  try {
    const page = await browser.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => m.type() === "error" && problems.push(`console.error: ${m.text()}`));
    page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    page.on("response", (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
    await page.goto(new URL("index.html", server.url).href);
    const handle = await page
      .waitForFunction(() => window.suiteSummary, undefined, { timeout: 120_000, polling: 50 })
      .catch((e) => {
        throw new Error(`the suite did not finish in Chromium: ${e.message}\n${problems.join("\n")}`);
      });
    const summary = await handle.jsonValue();
    return { ...summary, entry: importMap.imports["mcp-sealed-state"], problems, version: browser.version() };
  } finally {
    await browser.close();
    await server.close();
  }
}
