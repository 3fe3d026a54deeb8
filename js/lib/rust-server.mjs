// Run the Rust demo server (rust-server/, rmcp) as a child process: the same
// tic-tac-toe tools as the workerd server, sealing with the Rust crate.
//
//   startRustServer({ key, port, ttlSeconds, instance, viewHtml, viewUri, templateUri, viewMeta, mirror, onLog })
//     -> { url, mcpUrl, healthUrl, instance, view, readyMs, process, dispose }
//
// With `viewHtml` it serves that View as the workerd server does: the URIs
// and `_meta` of www/server/view-meta.js unless `viewUri` (the MCP Apps
// resource), `templateUri` (the Apps SDK template) or `viewMeta` say otherwise.
//
// Build it first: `cargo build --manifest-path rust-server/Cargo.toml`
// (RUST_SERVER_BIN names another binary). The key goes through the
// environment (STATE_KEY), never argv.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { OUTPUT_TEMPLATE_URI, VIEW_RESOURCE_META, VIEW_URI } from "../../www/server/view-meta.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
/** The debug build that scripts/test and scripts/demo make. */
export const RUST_SERVER_BIN = process.env.RUST_SERVER_BIN || join(ROOT, "rust-server/target/debug/rmcp-tic-tac-toe");
/** The one-file View (node www/game/build.mjs), the file the workerd server serves too. */
export const DEFAULT_VIEW_HTML = join(ROOT, "build/view/game.html");

export async function startRustServer({
  key,
  port = 0,
  ttlSeconds,
  instance = "rust",
  viewHtml,
  viewUri = VIEW_URI,
  templateUri = OUTPUT_TEMPLATE_URI,
  viewMeta = VIEW_RESOURCE_META,
  mirror,
  bin = RUST_SERVER_BIN,
  onLog,
} = {}) {
  if (!existsSync(bin)) throw new Error(`${bin} is not built: run \`cargo build --manifest-path rust-server/Cargo.toml\` first`);
  const env = { ...process.env, INSTANCE: instance };
  for (const name of ["STATE_KEY", "TTL_SECONDS", "VIEW_HTML", "VIEW_URI", "OUTPUT_TEMPLATE_URI", "VIEW_META", "PORT", "MIRROR_TO_STRUCTURED_CONTENT"]) delete env[name];
  if (key !== undefined) env.STATE_KEY = key;
  const args = ["--port", String(port), "--json"];
  if (ttlSeconds !== undefined) args.push("--ttl", String(ttlSeconds));
  if (viewHtml !== undefined) {
    args.push("--view-html", viewHtml, "--view-uri", viewUri, "--output-template-uri", templateUri, "--view-meta", JSON.stringify(viewMeta));
  }
  // true: mirror _meta's token and viewUUID into structuredContent (for hosts that drop _meta).
  if (mirror !== undefined) env.MIRROR_TO_STRUCTURED_CONTENT = mirror ? "1" : "0";
  const t0 = performance.now();
  const child = spawn(bin, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  const log = onLog ?? ((line) => process.stderr.write(`[rust ${instance}] ${line}\n`));
  const early = []; // stderr before it listens, for the error if it never does
  createInterface({ input: child.stderr }).on("line", (line) => {
    if (early.length < 20) early.push(line);
    log(line);
  });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", (line) => {
      try {
        resolve(JSON.parse(line));
      } catch (error) {
        reject(new Error(`unexpected first line from the Rust server: ${line}`));
      }
    });
    child.once("error", reject);
    // Let the stderr reader drain first, so the message carries the reason.
    exited.then(({ code, signal }) => setImmediate(() => reject(new Error(`the Rust server exited before listening (code ${code}, signal ${signal}): ${early.join(" | ")}`))));
  });
  const info = await ready;
  let disposed;
  return {
    url: new URL(info.url),
    mcpUrl: new URL(info.mcp),
    healthUrl: new URL(info.health),
    instance,
    view: info.view,
    readyMs: performance.now() - t0,
    process: child,
    dispose: () => (disposed ??= child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : (child.kill("SIGTERM"), exited.then(() => undefined))),
  };
}
