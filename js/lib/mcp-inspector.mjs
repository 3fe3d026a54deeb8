// Run the official MCP Inspector's web UI (npm @modelcontextprotocol/inspector,
// a devDependency) as a child process on loopback, for the browser e2e:
//
//   startInspector({ serverUrl, onLog })  -> { url, sandboxUrl, process, readyMs, dispose }
//   connectInspector(page)                 its UI, opened in a page, connected to that server
//
// `url` is the UI with its auth token in the query (the Inspector's own way of
// handing the token to a browser). The Inspector needs Node >= 22.19, so it
// runs on npm `node` (22.x, js/node_modules/node), not on the Node running the
// tests. Everything it writes (secrets, catalog, storage) goes to a temporary
// HOME that dispose() removes; the token goes through the environment, never argv.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { startWithHome, stopper } from "./child-server.mjs";
import { REPO_ROOT } from "./servers.mjs";

const NODE_MODULES = join(REPO_ROOT, "js/node_modules");
/** npm `node` (22.x): the Inspector's engines field asks for >= 22.19. */
export const INSPECTOR_NODE = join(NODE_MODULES, "node/bin/node");
/** The package's `mcp-inspector` bin (its launcher; --web runs the web client in the same process). */
export const INSPECTOR_BIN = join(NODE_MODULES, "@modelcontextprotocol/inspector/clients/launcher/build/index.js");

async function startOnce({ serverUrl, port, home, onLog }) {
  const token = randomBytes(24).toString("hex");
  const env = {
    ...process.env,
    HOME: home,
    HOST: "127.0.0.1",
    CLIENT_PORT: String(port),
    MCP_SANDBOX_PORT: "0", // the MCP Apps sandbox proxy: any free port
    MCP_APP_ORIGIN_PORT: "0", // the origin for Apps that declare _meta.ui.domain: any free port
    MCP_AUTO_OPEN_ENABLED: "false",
    MCP_INSPECTOR_API_TOKEN: token,
    MCP_INSPECTOR_SECRET_STORE: "memory", // no keychain, no secrets.json
    MCP_STORAGE_DIR: join(home, "storage"),
  };
  for (const name of ["DANGEROUSLY_OMIT_AUTH", "MCP_PROXY_AUTH_TOKEN", "ALLOWED_ORIGINS", "MCP_CATALOG_PATH", "NODE_OPTIONS"]) delete env[name];
  const t0 = performance.now();
  const child = spawn(INSPECTOR_NODE, [INSPECTOR_BIN, "--web", "--transport", "http", "--server-url", String(serverUrl)], { env, stdio: ["ignore", "pipe", "pipe"] });
  const log = onLog ?? ((line) => process.stderr.write(`[inspector] ${line}\n`));
  const early = []; // stderr before it listens, for the error if it never does (stdout carries the token: never echoed)
  createInterface({ input: child.stderr }).on("line", (line) => {
    if (early.length < 20) early.push(line);
    log(line);
  });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  let stdout = "";
  const ready = new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (/PORT IS IN USE/.test(stdout)) reject(Object.assign(new Error(`port ${port} in use`), { portInUse: true }));
      const url = stdout.match(/running at:\s+(http:\/\/\S+)/)?.[1];
      const sandboxUrl = stdout.match(/Sandbox \(MCP Apps\):\s+(http:\/\/\S+)/)?.[1];
      if (url && sandboxUrl) resolve({ url, sandboxUrl });
    });
    child.once("error", reject);
    exited.then(({ code, signal }) => setImmediate(() => reject(new Error(`the MCP Inspector exited before listening (code ${code}, signal ${signal}): ${early.join(" | ")}`))));
  });
  const dispose = stopper(child, exited);
  try {
    const { url, sandboxUrl } = await ready;
    if (!url.includes(token)) throw new Error("the Inspector's URL does not carry the auth token it was given");
    return { url, sandboxUrl, process: child, readyMs: performance.now() - t0, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/** Start the Inspector's web UI, with `serverUrl` (Streamable HTTP) as its one server. */
export async function startInspector({ serverUrl, onLog } = {}) {
  // CLIENT_PORT cannot be 0 (the Inspector derives its origin allow-list from
  // it), so a free port is found first; a lost race is retried.
  return startWithHome("mcp-inspector-", ({ port, home }) => startOnce({ serverUrl, port, home, onLog }));
}

/**
 * Connect the Inspector's UI (open in `page`) to its server. Its switch is
 * controlled by its connection status, and its handler awaits a pending
 * promise before it sets "connecting"; on two busy cores a click can land
 * before that settles and change nothing (CI saw it). So click, wait for the
 * switch to show connecting or connected, and click again only while it still
 * shows neither.
 */
export async function connectInspector(page) {
  const toggle = page.getByRole("switch", { name: /Connect or disconnect/ });
  const connected = page.getByText("Connected", { exact: true }).first();
  for (let attempt = 1; ; attempt++) {
    await toggle.click({ force: true }); // Mantine draws the track over the input
    const input = await toggle.elementHandle();
    const started = await page
      .waitForFunction((el) => el.checked, input, { timeout: 10_000 })
      .then(() => true)
      .catch(() => false); // not yet, or the input was re-rendered under the click
    if (started || (await connected.isVisible())) break;
    assert.ok(attempt < 3, "the Inspector did not start connecting after three clicks on its switch");
  }
  await connected.waitFor();
}
