// The demo Host's sandbox origin without a browser: the View CSP built from a
// resource's `_meta.ui.csp` (www/lib/view-csp.js) and the server that puts it
// on the proxy page as a header (www/lib/sandbox-server.mjs). The proxy in
// Chromium: demo.test.mjs.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { serveSandbox } from "../lib/sandbox-server.mjs";
import { SPEC_DEFAULT_CSP, buildViewCsp, declaredOrigins } from "../lib/view-csp.js";

describe("buildViewCsp", () => {
  test("nothing declared: the spec's default policy, and the same plus 'wasm-unsafe-eval'", () => {
    assert.equal(buildViewCsp(undefined, "spec"), SPEC_DEFAULT_CSP);
    assert.equal(buildViewCsp({ connectDomains: [], resourceDomains: [] }, "spec"), SPEC_DEFAULT_CSP);
    assert.equal(buildViewCsp({}, "wasm"), SPEC_DEFAULT_CSP.replace("script-src 'self' 'unsafe-inline'", "script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'"));
  });

  test("declared origins go where the spec maps them; connect-src admits only them", () => {
    const csp = buildViewCsp(
      {
        connectDomains: ["https://api.example.com", "wss://live.example.com"],
        resourceDomains: ["https://*.cdn.example"],
        frameDomains: ["https://www.youtube.com"],
        baseUriDomains: ["https://cdn.example"],
      },
      "wasm",
    );
    const directives = Object.fromEntries(csp.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));
    assert.deepEqual(directives["connect-src"], ["https://api.example.com", "wss://live.example.com"]);
    assert.deepEqual(directives["script-src"], ["'self'", "'unsafe-inline'", "'wasm-unsafe-eval'", "https://*.cdn.example"]);
    for (const d of ["style-src", "img-src", "font-src", "media-src"]) assert.ok(directives[d].includes("https://*.cdn.example"), d);
    assert.deepEqual(directives["frame-src"], ["https://www.youtube.com"]);
    assert.deepEqual(directives["base-uri"], ["https://cdn.example"]);
    assert.deepEqual(directives["default-src"], ["'none'"]);
  });

  test("a declaration cannot inject a directive, a keyword or a second source", () => {
    const hostile = ["https://ok.example", "https://a.example; script-src *", "'unsafe-eval'", "https://a.example https://b.example", "*", "data:", "https://x.example\nconnect-src *", 42, null];
    assert.deepEqual(declaredOrigins(hostile), ["https://ok.example"]);
    assert.deepEqual(declaredOrigins("https://ok.example"), [], "not a list: nothing");
    assert.equal(
      buildViewCsp({ connectDomains: hostile, resourceDomains: hostile }, "spec"),
      buildViewCsp({ connectDomains: ["https://ok.example"], resourceDomains: ["https://ok.example"] }, "spec"),
      "only the one well-formed origin is kept",
    );
    assert.throws(() => buildViewCsp({}, "lax"), RangeError);
  });
});

describe("serveSandbox", () => {
  let sandbox;
  before(async () => {
    sandbox = await serveSandbox();
  });
  after(() => sandbox.close());

  test("the proxy page carries the policy's CSP as a header; only the proxy is served", async () => {
    const csp = { connectDomains: ["https://api.example.com"] };
    for (const policy of ["wasm", "spec"]) {
      const res = await fetch(new URL(`sandbox.html?policy=${policy}&csp=${encodeURIComponent(JSON.stringify(csp))}`, sandbox.url));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-security-policy"), buildViewCsp(csp, policy));
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.match(await res.text(), /<script src="\.\/sandbox\.js"><\/script>/);
    }
    const js = await fetch(new URL("sandbox.js", sandbox.url));
    assert.equal(js.status, 200);
    assert.match(js.headers.get("content-type"), /javascript/);
    assert.match(await js.text(), /sandbox-proxy-ready/);
    assert.equal((await fetch(new URL("sandbox.html?policy=lax", sandbox.url))).status, 400);
    assert.equal((await fetch(new URL("sandbox.html?csp=%7Bnot-json", sandbox.url))).status, 400);
    assert.equal((await fetch(new URL("www/host.html", sandbox.url))).status, 404);
    assert.equal((await fetch(new URL("sandbox.html", sandbox.url), { method: "POST" })).status, 405);
  });
});
