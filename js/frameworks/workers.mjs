// A recipe as a Worker: bundled by `wrangler deploy --dry-run --outdir` (as
// its users build it, from js/frameworks' node_modules, the "workerd"
// condition picking our package's workerd entry), served by real workerd
// through the project's Miniflare with `nodejs_compat`.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { COMPATIBILITY_DATE, importTool } from "../lib/workerd.mjs";
import { FRAMEWORKS } from "./setup.mjs";

const JS = join(FRAMEWORKS, "..");
const NODE22 = join(JS, "node_modules/node/bin/node"); // wrangler needs Node >= 22.12
const WRANGLER = join(JS, "node_modules/wrangler/bin/wrangler.js");
const OUT = join(JS, "out/frameworks");

/**
 * `wrangler deploy <entry> --dry-run --outdir [...extraArgs]`: returns `{ dir, script,
 * files, bytes, gzipBytes }` (sizes of the script and every wasm, the source
 * maps left out, gzip -9).
 */
export async function wranglerBuild(entry, name, extraArgs = []) {
  const dir = join(OUT, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const env = {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_SEND_ERROR_REPORTS: "false",
    WRANGLER_HIDE_BANNER: "true",
    DO_NOT_TRACK: "1",
    NO_COLOR: "1",
    CI: "true",
    XDG_CONFIG_HOME: join(dir, ".config"),
    WRANGLER_LOG_PATH: join(dir, ".logs"),
  };
  delete env.NODE_OPTIONS;
  const args = [
    WRANGLER,
    "deploy",
    entry,
    "--name",
    name,
    "--compatibility-date",
    COMPATIBILITY_DATE,
    "--compatibility-flags",
    "nodejs_compat",
    "--dry-run",
    "--outdir",
    join(dir, "dist"),
    ...extraArgs,
  ];
  const child = spawn(NODE22, args, { cwd: FRAMEWORKS, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const code = await new Promise((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`wrangler deploy --dry-run ${entry} exited ${code}:\n${output}`);
  const dist = join(dir, "dist");
  const files = readdirSync(dist).filter((f) => f.endsWith(".js") || f.endsWith(".wasm"));
  const script = join(
    dist,
    files.find((f) => f.endsWith(".js")),
  );
  const sizes = files.map((f) => readFileSync(join(dist, f)));
  return {
    dir: dist,
    script,
    files,
    bytes: sizes.reduce((n, b) => n + b.length, 0),
    gzipBytes: sizes.reduce((n, b) => n + gzipSync(b, { level: 9 }).length, 0),
  };
}

/** One workerd instance of a wrangler build: `{ url, logs, dispose }`. `bindings` are its env. */
export async function startWorker(build, bindings = {}) {
  const { Miniflare, Log, LogLevel } = await importTool("miniflare");
  const logs = [];
  const mf = new Miniflare({
    host: "127.0.0.1",
    port: 0,
    cf: false,
    modules: true,
    scriptPath: build.script,
    modulesRoot: build.dir,
    modulesRules: [{ type: "CompiledWasm", include: ["**/*.wasm"] }],
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: ["nodejs_compat"],
    bindings,
    log: new Log(LogLevel.NONE),
    structuredWorkerdLogs: true,
    handleStructuredLogs: (entry) => {
      logs.push(entry);
    },
  });
  let url;
  try {
    url = await mf.ready;
  } catch (error) {
    await mf.dispose().catch(() => {});
    throw error;
  }
  return { url: new URL("/mcp", url).href, logs, mf, dispose: () => mf.dispose() };
}
