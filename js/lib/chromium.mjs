// Headless Chromium for the browser tests and benchmarks: Debian's
// /usr/bin/chromium driven by playwright-core (no browser download works here).
import { createRequire } from "node:module";
import { join } from "node:path";
import { REPO_ROOT } from "./servers.mjs";

// Without the background-networking flags Chromium keeps dialling Google
// hosts, which this machine's closed network refuses.
export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

/** The packed package as a consumer installs it (js/pack.mjs). */
export const PACKED = join(REPO_ROOT, "js/out/consumer/node_modules/mcp-sealed-state");

/** Launch headless Chromium (CHROMIUM overrides the binary). */
export function launchChromium(options = {}) {
  const { chromium } = createRequire(join(REPO_ROOT, "js/package.json"))("playwright-core");
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS, ...options });
}

/**
 * Collect a page's errors, console errors and failed or refused requests (in
 * every frame), and after the test (once `close` has run) fail it if there
 * were any. Returns the list as it fills, for error messages along the way.
 * Console errors that match one of `expected` (RegExps) are not problems:
 * they go to `problems.expected`, for the test to count.
 */
export function failOnPageProblems(t, page, close, { expected = [] } = {}) {
  const problems = [];
  problems.expected = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    if (expected.some((re) => re.test(m.text()))) problems.expected.push(m.text());
    else problems.push(`console.error: ${m.text()}`);
  });
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on("response", (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
  t.after(async () => {
    await close();
    if (problems.length > 0) throw new Error(`page errors, console errors or failed requests:\n${problems.join("\n")}`);
  });
  return problems;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Keep `context` on loopback, as this machine's and CI's network is: the
 * Google Fonts stylesheet a tool's UI loads (both Inspectors do) gets an empty
 * one, a host matching one of `silence` (RegExps: a tool's telemetry) an empty
 * 204 answered here, and any other request off loopback is aborted and pushed
 * onto `problems`. Returns the list of the silenced requests' URLs as it fills.
 */
export async function keepOnLoopback(context, problems, { silence = [] } = {}) {
  const silenced = [];
  await context.route(
    (url) => !LOOPBACK.has(url.hostname),
    (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === "fonts.googleapis.com") return route.fulfill({ status: 200, contentType: "text/css", body: "" });
      if (silence.some((re) => re.test(url.hostname))) {
        silenced.push(url.href);
        return route.fulfill({ status: 204, body: "" });
      }
      problems.push(`a request off loopback: ${url.href}`);
      return route.abort();
    },
  );
  return silenced;
}
