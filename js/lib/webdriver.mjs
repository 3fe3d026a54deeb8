// A minimal W3C WebDriver client for the browser-engine tests: Chromium
// (chromedriver), Firefox ESR (geckodriver) and WebKit (WebKitGTK's
// WebKitWebDriver, under Xvfb when there is no display). Playwright cannot
// drive stock Firefox ESR or WebKitGTK, and the npm WebDriver clients bring
// a tree of dependencies (and driver downloaders) for the few endpoints used
// here: new session, navigate, refresh, execute script, find element, switch
// frame, element click, delete session, status.
//
// Each engine's browser options come from the repo's webdriver.json, the file
// wasm-bindgen-test-runner reads for `wasm-pack test`, so both runs start the
// browsers the same way.
//
//   const session = await startSession("firefox");
//   await session.navigate(url);
//   const value = await session.executeAsync("arguments[0](1 + arguments[1])", 2);
//   await session.switchToFrame(await session.findElement("iframe")); // then session.switchToFrame(null): the top
//   await session.click(await session.findElement("button"));
//   await session.waitFor("return document.body.dataset.phase === arguments[0]", ["playing"], { what: "playing" });
//   await session.close(); // ends the browser and the driver
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { REPO_ROOT, freePort } from "./servers.mjs";

/** The key of a W3C WebDriver element reference: `{ [ELEMENT]: id }`. */
export const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

const CAPABILITIES = JSON.parse(readFileSync(join(REPO_ROOT, "webdriver.json"), "utf8"));

/** The first `name` on PATH, or undefined. */
function onPath(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/**
 * The engines: the driver binary (an environment variable overrides it, set
 * per command), its arguments, and the capabilities of a new session.
 * geckodriver is `cargo install`ed into CARGO_INSTALL_ROOT, whose bin/ is on
 * PATH after scripts/setup.sh.
 */
const ENGINES = {
  chromium: {
    driver: () => process.env.CHROMEDRIVER ?? "/usr/bin/chromedriver",
    args: (port) => [`--port=${port}`],
    capabilities: { browserName: "chrome", "goog:chromeOptions": CAPABILITIES["goog:chromeOptions"] },
  },
  firefox: {
    driver: () => process.env.GECKODRIVER ?? onPath("geckodriver") ?? join(process.env.HOME ?? "/root", ".cargo/bin/geckodriver"),
    args: (port) => ["--port", String(port), "--log", "error"],
    capabilities: { browserName: "firefox", "moz:firefoxOptions": CAPABILITIES["moz:firefoxOptions"] },
  },
  webkit: {
    driver: () => process.env.WEBKITWEBDRIVER ?? "/usr/bin/WebKitWebDriver",
    args: (port) => [`--port=${port}`],
    capabilities: { "webkitgtk:browserOptions": CAPABILITIES["webkitgtk:browserOptions"] },
    // WebKitGTK's browser opens a window: without a display it gets Xvfb.
    display: true,
  },
};

/** Whether `engine`'s driver (and, where it needs one, xvfb-run) is installed. */
function engineInstalled(engine) {
  const e = ENGINES[engine];
  const driver = e.driver();
  return existsSync(driver) && (!e.display || Boolean(process.env.DISPLAY) || Boolean(onPath("xvfb-run")));
}

async function call(base, method, path, body, timeoutMs = 60_000) {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json; charset=utf-8" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`WebDriver ${method} ${path}: HTTP ${res.status}, not JSON: ${text.slice(0, 300)}`);
  }
  if (!res.ok || json?.value?.error) {
    const { error, message } = json?.value ?? {};
    throw new Error(`WebDriver ${method} ${path}: HTTP ${res.status} ${error}: ${message}`);
  }
  return json.value;
}

/** Start `engine`'s driver on a free port and wait until it answers /status. */
async function startDriver(engine) {
  const e = ENGINES[engine];
  const port = await freePort();
  const driver = e.driver();
  let [command, args] = [driver, e.args(port)];
  if (e.display && !process.env.DISPLAY) [command, args] = ["xvfb-run", ["-a", "-s", "-screen 0 1280x1024x24", driver, ...args]];
  // Its own process group, so that closing ends xvfb-run, Xvfb and the driver together.
  const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"], detached: true });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise((ok) => child.once("exit", ok));
  const base = `http://127.0.0.1:${port}`;
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise((ok) => setTimeout(ok, 5000).unref())]);
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  };
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${engine}: ${command} exited (${child.exitCode}): ${stderr}`);
    try {
      const status = await call(base, "GET", "/status", undefined, 2000);
      if (status?.ready !== false) break;
    } catch (error) {
      if (i >= 300) {
        await kill();
        throw new Error(`${engine}: ${command} did not answer on port ${port} (${error.message}): ${stderr}`);
      }
    }
    await new Promise((ok) => setTimeout(ok, 100));
  }
  return { base, kill, stderr: () => stderr };
}

/**
 * A new browser session of `engine` ("chromium", "firefox" or "webkit"), with
 * its own driver process. `close()` ends both. An unknown engine, or one whose
 * driver is not installed, is an error: CI installs them all.
 */
export async function startSession(engine, { scriptTimeoutMs = 60_000 } = {}) {
  if (!Object.hasOwn(ENGINES, engine)) throw new Error(`unknown engine ${engine}`);
  if (!engineInstalled(engine)) throw new Error(`${engine}: its driver (${ENGINES[engine].driver()}) is not installed: source scripts/setup.sh`);
  const driver = await startDriver(engine);
  let created;
  try {
    created = await call(driver.base, "POST", "/session", { capabilities: { alwaysMatch: { ...ENGINES[engine].capabilities, timeouts: { script: scriptTimeoutMs } } } }, 120_000);
  } catch (error) {
    await driver.kill();
    error.message += `\ndriver stderr: ${driver.stderr()}`;
    throw error;
  }
  const path = `/session/${created.sessionId}`;
  const execute = (script, ...args) => call(driver.base, "POST", `${path}/execute/sync`, { script, args });
  return {
    engine,
    /** What the driver reports of the browser: browserName, browserVersion, platformName... */
    capabilities: created.capabilities,
    navigate: (url) => call(driver.base, "POST", `${path}/url`, { url }),
    /** Run `script` in the page (a function body; its last argument is the callback) and return what it calls back with. */
    executeAsync: (script, ...args) => call(driver.base, "POST", `${path}/execute/async`, { script, args }, scriptTimeoutMs + 30_000),
    /** Run `script` in the page (a function body) and return its value. */
    execute,
    /** Reload the current top-level page (frames are left: the next commands run in the top). */
    refresh: () => call(driver.base, "POST", `${path}/refresh`, {}),
    /**
     * The first element matching `css` in the current frame (a WebDriver
     * element reference, which `execute` also takes as an argument), or an
     * error ("no such element") at once: poll with `waitFor` for one to come.
     */
    findElement: (css) => call(driver.base, "POST", `${path}/element`, { using: "css selector", value: css }),
    /** Make the frame of `element` (an iframe's reference) the current one; `null`: the top-level page. */
    switchToFrame: (element) => call(driver.base, "POST", `${path}/frame`, { id: element }),
    /** Make the current frame's parent the current one. */
    switchToParentFrame: () => call(driver.base, "POST", `${path}/frame/parent`, {}),
    /** Click `element` as a person would: scrolled into view, at its centre, refused if something covers it. */
    click: (element) => call(driver.base, "POST", `${path}/element/${element[ELEMENT]}/click`, {}),
    /**
     * Run `script` (a function body, with `args`) in the current frame every
     * `intervalMs` until it returns a truthy value, and return that value;
     * past `timeoutMs` throw, naming `what` and the last value or error. For
     * conditions a page reaches on its own time (never a fixed sleep).
     */
    async waitFor(script, args = [], { timeoutMs = 60_000, intervalMs = 100, what = script } = {}) {
      const deadline = performance.now() + timeoutMs;
      let last;
      for (;;) {
        try {
          last = await execute(script, ...args);
          if (last) return last;
        } catch (error) {
          last = error;
        }
        if (performance.now() > deadline) throw new Error(`${engine}: not within ${timeoutMs} ms: ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
        await new Promise((ok) => setTimeout(ok, intervalMs));
      }
    },
    async close() {
      try {
        await call(driver.base, "DELETE", path, undefined, 30_000);
      } finally {
        await driver.kill();
      }
    },
  };
}
