// The demo: the stateless tic-tac-toe MCP server in real workerd (two
// Miniflare instances sharing one key, so no session affinity is needed; they
// serve the game View as a `ui://` resource), the static server for the Host
// page and the token inspector, and the sandbox proxy on a second origin.
// It builds nothing: `npm --prefix js run build && node js/pack.mjs && node
// www/game/build.mjs` first (./scripts/demo does all three). Runs until
// Ctrl-C, then disposes everything.
//
//   node www/demo.mjs [--instances N] [--port P] [--mcp-port P] [--ttl S] [--rust]
//
// --rust adds the Rust demo server (rust-server/, rmcp; build it first with
// `cargo build --manifest-path rust-server/Cargo.toml`, which
// `./scripts/demo --rust` does) as one more server of the Host page, on the
// port after the workerd ones, with the same key: the Host's requests then go
// round workerd and Rust in turn. VIEW_HTML names the View file it serves
// (default build/view/game.html, the one-file View that workerd serves too).
//
// The sandbox proxy listens on the Host page's port + 1 (or a free one). It
// also prints the Host page as a stand-in of ChatGPT's surface and of ext-apps'
// basic-host, which drop the tool result's _meta (www/host/host.js).
//
// Environment: STATE_KEY (the HMAC key, >= 32 bytes; unset: an ephemeral
// development key for this run, with a warning), TTL_SECONDS (token lifetime,
// default 600), DEMO_USER (the principal the Host sends, default demo-user).
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { VIEW_HTML } from "./game/build.mjs";
import { serveSandbox } from "./lib/sandbox-server.mjs";
import { DEFAULT_VIEW_HTML, HTTP_NAMES, REPO_ROOT, buildWorker, serve, startRustServer, startServer } from "../js/lib/servers.mjs";
import { VIEW_DECLARATION } from "./server/view-meta.js";

function parseArgs(argv) {
  const opts = { instances: 2, port: 8000, mcpPort: 8787, ttl: process.env.TTL_SECONDS ? Number(process.env.TTL_SECONDS) : undefined, rust: false };
  const names = { "--instances": "instances", "--port": "port", "--mcp-port": "mcpPort", "--ttl": "ttl" };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--rust") {
      opts.rust = true;
      continue;
    }
    const name = names[argv[i]];
    const value = argv[i + 1];
    if (!name) throw new Error(`unknown argument ${argv[i]} (use ${Object.keys(names).join(", ")}, --rust)`);
    if (value === undefined || !/^\d+$/.test(value)) throw new Error(`${argv[i]} needs a whole number`);
    opts[name] = Number(value);
    i++;
  }
  if (opts.instances < 1) throw new Error("--instances must be at least 1");
  if (opts.ttl !== undefined && !(Number.isInteger(opts.ttl) && opts.ttl > 0)) throw new Error("TTL_SECONDS / --ttl must be a positive whole number");
  return opts;
}

const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const yellow = (s) => (process.stderr.isTTY ? `\x1b[33m${s}\x1b[0m` : s);

// A fixed port by default (stable URLs); another free one if it is taken.
async function withPortFallback(port, start) {
  try {
    return await start(port);
  } catch (error) {
    if (port === 0 || !/EADDRINUSE|address already in use/i.test(`${error?.code} ${error?.message}`)) throw error;
    console.error(yellow(`port ${port} is in use: taking a free one`));
    return start(0);
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(join(REPO_ROOT, "pkg/widget/browser.js"))) {
    throw new Error("pkg/ is not built: run `npm --prefix js run build && node js/pack.mjs` first (./scripts/demo does)");
  }
  if (!existsSync(VIEW_HTML)) throw new Error("the one-file View is not built: run `node www/game/build.mjs` first (./scripts/demo does)");

  let key = process.env.STATE_KEY || undefined;
  if (!key) {
    // One key for every instance: each instance drawing its own dev key would
    // make a token minted by one fail on the other.
    key = randomBytes(32).toString("base64url");
    console.error(
      yellow(
        "warning: STATE_KEY is not set, so this run uses an ephemeral development key.\n" +
          "         Tokens stop opening when the demo stops. Set STATE_KEY (at least 32 bytes) to keep them;\n" +
          "         in production (NODE_ENV=production) the server refuses to start without one.",
      ),
    );
  }

  const disposers = [];
  let stopping = false;
  const stop = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(code || 1), 10_000).unref(); // a dispose that hangs must not keep us alive
    await Promise.allSettled(disposers.map((d) => d()));
    process.exit(code);
  };
  // Miniflare installs its own SIGINT/SIGTERM hook, which kills workerd and exits
  // at once (130/143), before anything else is closed. Take the signals over
  // once everything has started, and dispose in order; Miniflare's "exit" hook
  // stays as the safety net. A second Ctrl-C while stopping changes nothing.
  const takeOverSignals = () => {
    for (const signal of ["SIGINT", "SIGTERM"]) {
      process.removeAllListeners(signal);
      process.on(signal, () => stop(0));
    }
  };
  takeOverSignals();

  try {
    const build = await buildWorker();
    const servers = [];
    for (let i = 0; i < opts.instances; i++) {
      const instance = String.fromCharCode(97 + (i % 26));
      const s = await withPortFallback(opts.mcpPort === 0 ? 0 : opts.mcpPort + i, (port) => startServer({ port, key, ttlSeconds: opts.ttl, instance, build }));
      disposers.push(() => s.dispose());
      servers.push(s);
    }
    if (opts.rust) {
      const port = opts.mcpPort === 0 ? 0 : opts.mcpPort + opts.instances;
      const s = await withPortFallback(port, (p) =>
        // The same View (URI and _meta) as workerd: the Host reads it from whichever server its request reaches.
        startRustServer({ port: p, key, ttlSeconds: opts.ttl, instance: "rust", viewHtml: process.env.VIEW_HTML || DEFAULT_VIEW_HTML, ...VIEW_DECLARATION }),
      );
      disposers.push(() => s.dispose());
      servers.push(s);
    }
    const web = await withPortFallback(opts.port, (port) => serve({ port }));
    disposers.push(() => web.close());
    const sandbox = await withPortFallback(opts.port === 0 ? 0 : Number(new URL(web.url).port) + 1, (port) => serveSandbox({ port }));
    disposers.push(() => sandbox.close());
    takeOverSignals();

    // Written out by hand so the URL stays readable (":" and "/" need no escaping in a query).
    const query = [`servers=${servers.map((s) => s.mcpUrl.href).join(",")}`, `sandbox=${new URL(sandbox.url).origin}`];
    if (process.env.DEMO_USER) query.push(`user=${encodeURIComponent(process.env.DEMO_USER)}`);
    const host = new URL(`www/host.html?${query.join("&")}`, web.url);
    const inspector = new URL("www/inspector.html", web.url);
    // The same Host as ChatGPT's surface (a stand-in) and as ext-apps' basic-host, which drop _meta;
    // the latter plays on the servers' mirror in structuredContent (the mirror query set to 1).
    const perView = "viewstate=off&frame=storage";
    const chatgpt = new URL(`${host.search}&surface=chatgpt&${perView}`, host);
    const mirrored = servers.map((s) => `${s.mcpUrl.href}?${HTTP_NAMES.mirrorQuery}=1`).join(",");
    const basicHost = new URL(`${host.search.replace(/servers=[^&]*/, `servers=${mirrored}`)}&meta=drop&${perView}`, host);

    console.log("");
    console.log(bold("mcp-sealed-state demo"));
    console.log(`  Host page        ${bold(host.href)}`);
    console.log(`  Token inspector  ${inspector.href}`);
    console.log(`  As ChatGPT       ${chatgpt.href}  (a stand-in: _meta stripped, window.openai injected)`);
    console.log(`  As basic-host    ${basicHost.href}  (no _meta: the servers mirror the token into structuredContent)`);
    console.log(`  Sandbox proxy    ${sandbox.url}  (the View's origin; add &policy=spec to the Host URL for the spec's no-WebAssembly CSP)`);
    for (const s of servers) {
      const kind = s.process ? "Rust, rmcp" : "workerd";
      console.log(`  MCP server ${s.instance.padEnd(5)} ${s.mcpUrl.href}  (${kind}, ready in ${Math.round(s.readyMs)} ms)`);
    }
    console.log(`  token lifetime   ${opts.ttl ?? 600} s · key: ${process.env.STATE_KEY ? "STATE_KEY" : "ephemeral (see the warning)"}`);
    if (!process.env.STATE_KEY) console.log(`  dev key          ${key}   (paste it into the inspector to verify tokens)`);
    console.log("");
    console.log("Open the Host page, press New game, play, reload the page. Ctrl-C to stop.");
  } catch (error) {
    console.error(error?.stack ?? error);
    await stop(1);
  }
}

main().catch((error) => {
  console.error(error?.stack ?? error);
  process.exit(1);
});
