// The sandbox proxy of the demo Host, as the MCP Apps spec describes it and
// ext-apps' reference host builds it: this page runs on a SECOND origin (its
// own loopback port, www/lib/sandbox-server.mjs), under the View's CSP (an
// HTTP header, so the View cannot loosen it), inside the Host page's iframe.
// It makes the inner iframe, loads the View's HTML into it as `srcdoc` (which
// inherits this page's CSP), and relays JSON-RPC between the Host and the View:
//
//   Host page (origin A) <-> this proxy (origin B) <-> View (srcdoc, opaque origin)
//
// The Host sends the HTML in `ui/notifications/sandbox-resource-ready` once
// this page has announced `ui/notifications/sandbox-proxy-ready`; neither is
// relayed. A classic script: it needs no module loading.
(() => {
  "use strict";
  const READY = "ui/notifications/sandbox-proxy-ready";
  const RESOURCE = "ui/notifications/sandbox-resource-ready";
  // By default the View gets scripts, nothing else: no same-origin (an opaque
  // origin, so not even this proxy's storage), no forms, no popups, no top
  // navigation. The Host may send another sandbox (the demo Host's
  // frame=storage adds allow-same-origin, so the View has this origin's storage).
  const VIEW_SANDBOX = "allow-scripts";

  if (window.parent === window) throw new Error("the sandbox proxy only runs inside a Host's iframe");
  // The Host page's origin, from the referrer its iframe sends (referrerpolicy="origin").
  let hostOrigin;
  try {
    hostOrigin = new URL(document.referrer).origin;
  } catch {
    throw new Error("the sandbox proxy needs the embedding Host's origin as referrer");
  }
  // This demo proxy serves loopback Hosts only, never its own origin.
  if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(hostOrigin) || hostOrigin === location.origin) {
    throw new Error(`the sandbox proxy refuses to be embedded by ${hostOrigin}`);
  }

  let inner = null;

  function load(html, sandbox) {
    inner?.remove();
    inner = document.createElement("iframe");
    inner.setAttribute("sandbox", typeof sandbox === "string" ? sandbox : VIEW_SANDBOX);
    inner.setAttribute("title", "MCP App View");
    inner.srcdoc = html;
    document.body.append(inner);
  }

  window.addEventListener("message", (event) => {
    if (event.source === window.parent) {
      if (event.origin !== hostOrigin) return; // someone else's message
      const message = event.data;
      if (message?.method === RESOURCE) {
        if (typeof message.params?.html === "string") load(message.params.html, message.params.sandbox);
        return;
      }
      inner?.contentWindow?.postMessage(message, "*"); // the View's origin is opaque: "*" is the only target
    } else if (inner && event.source === inner.contentWindow) {
      window.parent.postMessage(event.data, hostOrigin);
    }
  });

  window.parent.postMessage({ jsonrpc: "2.0", method: READY, params: {} }, hostOrigin);
})();
