// wrangler with the packed package, as a Worker author uses it: a minimal
// Worker in a project that installed the tarball, bundled by
// `wrangler deploy --dry-run`, then served by `wrangler dev` on loopback and
// called. No wrangler config file, no login, metrics and error reports off.
//
//   node js/suite/wrangler-run.mjs <project dir>
//
// The project holds src/worker.js (WORKER) and src/dev.js (DEV_WORKER).
// Prints one JSON line with what it saw. js/suite/wrangler.test.mjs runs it
// inside a network namespace that has only loopback, so anything wrangler
// tried to reach outside would fail the run.
import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../lib/servers.mjs";

const JS = fileURLToPath(new URL("..", import.meta.url));
const NODE22 = join(JS, "node_modules/node/bin/node"); // wrangler needs Node >= 22.12
const WRANGLER = join(JS, "node_modules/wrangler/bin/wrangler.js");
export const COMPATIBILITY_DATE = "2026-05-03";
export const WRANGLER_ENV = {
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_SEND_ERROR_REPORTS: "false",
  WRANGLER_HIDE_BANNER: "true", // the banner's update check asks the npm registry
  CLOUDFLARE_CF_FETCH_ENABLED: "false", // no request.cf data fetched from Cloudflare
  DO_NOT_TRACK: "1",
  NO_COLOR: "1",
  CI: "true", // no interactive dev session, no prompts
};

/** The Worker: seals and opens with the package's main entry (the reader is the widget's, which the suite runs in workerd). */
export const WORKER = `import { StateCodec, SealedStateError, STATE_META_KEY } from "mcp-sealed-state";

const codec = new StateCodec({ key: "wrangler-test-key: at least thirty-two bytes long" });

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/seal") {
      const token = codec.seal({ n: Number(url.searchParams.get("n")) }, { bind: "alice" });
      return Response.json({ _meta: { [STATE_META_KEY]: token } });
    }
    if (url.pathname === "/open") {
      try {
        return Response.json({ payload: codec.open(url.searchParams.get("token"), { bind: url.searchParams.get("user") }) });
      } catch (e) {
        if (!(e instanceof SealedStateError)) throw e;
        return Response.json({ error: e.message, reason: e.reason }, { status: 400 });
      }
    }
    return new Response("not found", { status: 404 });
  },
};
`;

/** What `wrangler dev` serves: the Worker, and the whole behaviour suite at /suite, in wrangler's workerd. */
export const DEV_WORKER = `import worker from "./worker.js";
import { run } from "../suite/index.js";

export default {
  async fetch(request) {
    if (new URL(request.url).pathname === "/suite") return Response.json(await run());
    return worker.fetch(request);
  },
};
`;

function wrangler(args, cwd) {
  const env = { ...process.env, ...WRANGLER_ENV, XDG_CONFIG_HOME: join(cwd, ".config"), WRANGLER_LOG_PATH: join(cwd, ".wrangler-logs") };
  delete env.NODE_OPTIONS;
  return spawn(NODE22, [WRANGLER, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
}

function collect(child) {
  const out = { stdout: "", stderr: "" };
  child.stdout.on("data", (d) => (out.stdout += d));
  child.stderr.on("data", (d) => (out.stderr += d));
  return out;
}

async function dryRun(dir) {
  const child = wrangler(["deploy", "src/worker.js", "--name", "suite-wrangler", "--compatibility-date", COMPATIBILITY_DATE, "--dry-run", "--outdir", "dist"], dir);
  const out = collect(child);
  const code = await new Promise((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`wrangler deploy --dry-run exited ${code}:\n${out.stdout}${out.stderr}`);
  const files = readdirSync(join(dir, "dist")).sort();
  const bundle = readFileSync(join(dir, "dist/worker.js"), "utf8");
  return {
    output: out.stdout + out.stderr,
    files,
    bundleBytes: bundle.length,
    readsFiles: /readFileSync|node:fs/.test(bundle),
    importsWasm: [...bundle.matchAll(/from\s+"([^"]+\.wasm)"/g)].map((m) => m[1]),
  };
}

async function dev(dir) {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const args = [
    "dev",
    "src/dev.js",
    "--name",
    "suite-wrangler",
    "--compatibility-date",
    COMPATIBILITY_DATE,
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--local",
    "--show-interactive-dev-session=false",
    "--log-level",
    "warn",
  ];
  const child = wrangler(args, dir);
  const out = collect(child);
  const exited = new Promise((resolve) => child.on("close", (code) => resolve(code)));
  try {
    const base = `http://127.0.0.1:${port}`;
    // Wait until it answers (wrangler's "Ready" line is hidden at --log-level warn).
    // Bounded: 600 tries, and a wrangler that exits ends the wait at once.
    let seal;
    for (let i = 0; i < 600 && seal === undefined; i++) {
      const done = await Promise.race([exited.then((code) => ({ code })), new Promise((resolve) => setTimeout(resolve, 100))]);
      if (done) throw new Error(`wrangler dev exited ${done.code} before answering:\n${out.stdout}${out.stderr}`);
      seal = await fetch(`${base}/seal?n=7`).then(
        (r) => (r.ok ? r.json() : undefined),
        () => undefined,
      );
    }
    if (seal === undefined) throw new Error(`wrangler dev never answered on ${base}:\n${out.stdout}${out.stderr}`);
    const token = seal._meta["ng-mcp-ui/state"];
    const open = async (user, t = token) => {
      const r = await fetch(`${base}/open?${new URLSearchParams({ token: t, user })}`);
      return { status: r.status, body: await r.json() };
    };
    const suite = await (await fetch(`${base}/suite`)).json();
    return {
      seal,
      suite,
      opened: await open("alice"),
      otherUser: await open("bob"),
      tampered: await open("alice", `${token.slice(0, -2)}${token.endsWith("AA") ? "BA" : "AA"}`),
      output: out.stdout + out.stderr,
    };
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = resolve(process.argv[2]);
  const result = { dryRun: await dryRun(dir), dev: await dev(dir) };
  console.log(`WRANGLER-RESULT ${JSON.stringify(result)}`);
}
